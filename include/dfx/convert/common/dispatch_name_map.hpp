// dispatch_name_map: which name map labels the tasks of an L3 dispatch
// directory (<prefix>/rank<r>/d<k>/, schema/l3_layout.hpp), for every
// converter that labels them (dfx all's swimlane conversions, critical-path's
// protobuf CPM traces). Func ids restart in every program, so a dispatch is
// labelled through its own program only: its name_map.json when its
// dispatch_program.json names a program, else nothing (anonymous labels),
// never a map that might be another program's.
//
//   if (is_l3_dispatch_dir(dir)) {
//       if (const auto map = dispatch_name_map(dir)) ... load *map ...
//       else ... anonymous labels ...
//   }
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "dfx/schema/artefact_names.hpp"
#include "dfx/schema/l3_layout.hpp"

namespace dfx::convert {

// A dispatch's program, from dispatch_program.json ({"program": "<name>"}):
// nullopt when the file is absent, unreadable or names none.
inline std::optional<std::string> dispatch_program(const std::filesystem::path& dir) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.load((dir / schema::dispatch_program_file).string()).get(doc)) return std::nullopt;
    std::string_view program;
    if (doc[schema::dispatch_program_key].get(program) || program.empty()) return std::nullopt;
    return std::string(program);
}

// Whether `dir` is an L3 dispatch directory: d<k> inside rank<r>.
inline bool is_l3_dispatch_dir(const std::filesystem::path& dir) {
    const std::filesystem::path d = dir.filename().empty() ? dir.parent_path() : dir;
    return schema::is_dispatch_dir_name(d.filename().string()) &&
           schema::is_rank_dir_name(d.parent_path().filename().string());
}

// The name map of an L3 dispatch: its name_map.json when its program is
// resolved, else nullopt (label anonymously).
inline std::optional<std::filesystem::path> dispatch_name_map(const std::filesystem::path& dir) {
    std::error_code ec;
    if (!dispatch_program(dir) || !std::filesystem::exists(dir / schema::name_map_file, ec)) return std::nullopt;
    return dir / schema::name_map_file;
}

}  // namespace dfx::convert
