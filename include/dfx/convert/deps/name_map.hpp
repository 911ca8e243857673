// name_map: the deps viewer's interpretation of a name map (dep-gen.md §3.1
// --func-names; `dfx deps`, `critical-path`, `pmu`), read by its one reader
// (common/name_map_file.hpp, which checks it the same way for every command).
//
// The file is `{"callable_id_to_name": {"<id>": "<name>", ...}, ...}`. As in the
// reference viewer, a missing or empty `callable_id_to_name` makes the whole
// object the map (a flat `{id: name}` file; the swimlane converter reads no
// names from such a file). A file that cannot be read, parse or pass the
// checks is an input_error; leniently (`--lenient`) it is what the reference
// makes of it, a warning and an empty map (names only decorate the output).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/name_map_file.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx::convert::deps {

struct name_map {
    // The loaded object had at least one key. The reference branches on the
    // dict being non-empty (`if func_names:`), even when no key is an id.
    bool nonempty = false;
    std::unordered_map<std::string, std::string> names;  // truthy values only

    // names[str(id)] when present and non-empty.
    const std::string* find(std::int64_t id) const {
        const auto it = names.find(std::to_string(id));
        return it == names.end() ? nullptr : &it->second;
    }
    // The display name of a kernel id: its name, or `f<id>` (the reference fallback).
    std::string name_or_fallback(std::int64_t id) const {
        const std::string* n = find(id);
        return n ? *n : "f" + std::to_string(id);
    }
};

namespace detail {

// The viewer's reading of one object of names: str() of every truthy value
// (the checks, strings only, are name_map_file's).
inline void fill_names(name_map& m, simdjson::dom::object obj) {
    using simdjson::dom::element_type;
    for (auto [key, v] : obj) {
        m.nonempty = true;
        std::string name;
        switch (v.type()) {
        case element_type::STRING: name = std::string_view(v.get_string()); break;
        case element_type::INT64: if (int64_t(v) != 0) name = std::to_string(int64_t(v)); break;
        case element_type::UINT64: if (uint64_t(v) != 0) name = std::to_string(uint64_t(v)); break;
        case element_type::DOUBLE: if (double(v) != 0) name = simdjson::minify(v); break;
        case element_type::BOOL: if (bool(v)) name = "True"; break;
        default: break;  // null / containers: not usable as a name
        }
        if (!name.empty()) m.names[std::string(key)] = std::move(name);
    }
}

}  // namespace detail

// Loads a name map through its one reader (common/name_map_file.hpp, which
// checks it); on any problem throws input_error "<path>: <why>", or,
// leniently, prints `Warning: couldn't read <path>: <why>` to stderr and
// returns an empty map. Leniently only the grammar is checked: the
// reference's str() of any name, the last of repeated keys.
inline name_map load_name_map(const std::string& path, bool lenient = false) {
    name_map m;
    try {
        const name_map_file f = read_name_map_file(path, lenient ? name_map_checks::grammar : name_map_checks::checked);
        // Prefer a non-empty callable_id_to_name object.
        if (const auto inner = f.callable_id_to_name()) detail::fill_names(m, *inner);
        if (!m.nonempty) detail::fill_names(m, f.top());
    } catch (const input_error& e) {
        if (!lenient) throw;
        std::fprintf(stderr, "Warning: couldn't read %s\n", e.what());
        return {};
    }
    return m;
}

// The newest `name_map*.json` regular file in `dir`, by (mtime, file name),
// as the reference's auto-discovery picks it; nullopt when there is none.
inline std::optional<std::filesystem::path> discover_name_map(const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    std::optional<fs::path> best;
    fs::file_time_type best_time{};
    std::error_code ec;
    for (fs::directory_iterator it(dir.empty() ? fs::path(".") : dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!schema::is_name_map_file_name(name)) continue;
        // Not only regular files: a name map that is a directory, a FIFO or a
        // symlink loop is a corrupt sidecar, which loading reports.
        std::error_code fec;
        auto t = fs::last_write_time(it->path(), fec);
        if (fec) t = fs::file_time_type::max();
        if (!best || t > best_time || (t == best_time && name > best->filename().string())) {
            best = dir.empty() ? fs::path(name) : it->path();
            best_time = t;
        }
    }
    return best;
}

}  // namespace dfx::convert::deps
