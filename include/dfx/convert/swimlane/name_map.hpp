// name_map: the swimlane converter's interpretation of a name map
// (`name_map_<case>.json`, spec chip-swimlane.md §3), read by its one reader
// (common/name_map_file.hpp, which checks it the same way for every command):
//     {"level": 2, "orchestrator_name": "PagedAttn", "callable_id_to_name": {"0": "QK", "1": "SF"}}
// Only `callable_id_to_name` (string keys, matched against the decimal func
// id) and `orchestrator_name` are read.
//
// Discovery for the swimlane converter: an explicit --func-names wins; else,
// when no kernel config is given either, the unique sibling `name_map*.json`
// of the records file; two or more siblings are ambiguous (warning, no map).
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/io_progress.hpp"
#include "dfx/convert/common/name_map_file.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx::convert::swimlane {

struct name_map {
    std::vector<std::pair<std::string, std::string>> names;  // (key as written, name), file order
    std::optional<std::string> orchestrator_name;            // empty string counts as absent

    [[nodiscard]] const std::string* find(std::int64_t func_id) const {
        const std::string key = std::to_string(func_id);
        // Later duplicates win, as in a JSON object read into a dict.
        for (auto it = names.rbegin(); it != names.rend(); ++it) {
            if (it->first == key) return &it->second;
        }
        return nullptr;
    }
    [[nodiscard]] bool empty() const noexcept { return names.empty(); }
};

// Loads a name map through its one reader (common/name_map_file.hpp, which
// checks it the same way for every command); the swimlane reads
// `callable_id_to_name` and `orchestrator_name` only (no flat-map fallback).
inline name_map load_name_map(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        throw input_error(fmt::format("Func names JSON not found: {}", path));
    }
    const name_map_file f = read_name_map_file(path, name_map_checks::checked);
    name_map m;
    for (auto [key, v] : f.top()) {
        std::string_view s;
        if (key == "orchestrator_name") {
            // null or "" counts as absent
            if (v.get_string().get(s) == simdjson::SUCCESS && !s.empty()) m.orchestrator_name = std::string(s);
            else m.orchestrator_name.reset();
        } else if (key == "callable_id_to_name") {
            m.names.clear();
            simdjson::dom::object names;
            if (v.get_object().get(names) != simdjson::SUCCESS) continue;  // null
            for (auto [id, name] : names) m.names.emplace_back(std::string(id), std::string(std::string_view(name.get_string())));
        }
    }
    return m;
}

// The unique sibling name_map*.json of `input`, if there is exactly one.
inline std::optional<std::string> find_sibling_name_map(const std::string& input, std::FILE* warnings = stderr) {
    namespace fs = std::filesystem;
    const fs::path parent = fs::path(input).parent_path();
    std::vector<fs::path> candidates;
    std::error_code ec;
    for (fs::directory_iterator it(parent.empty() ? fs::path(".") : parent, ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        // Not only regular files: a directory, FIFO or symlink loop of that
        // name is a corrupt sidecar, which loading reports.
        if (schema::is_name_map_file_name(name)) {
            candidates.push_back(parent.empty() ? fs::path(name) : parent / name);
        }
    }
    std::sort(candidates.begin(), candidates.end());
    if (candidates.size() == 1) return candidates.front().string();
    if (candidates.size() > 1 && warnings) {
        std::string listed;
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            if (i) listed += ", ";
            listed += candidates[i].filename().string();
        }
        const io_progress::console_output hold;  // on a line of its own, not after the progress display's
        fmt::print(warnings,
                   "Warning: multiple sibling name maps found next to {}: {}; pass --func-names explicitly.\n", input,
                   listed);
    }
    return std::nullopt;
}

}  // namespace dfx::convert::swimlane
