// name_map: kernel names for func ids, from a `name_map_<case>.json`
// (spec chip-swimlane.md §3):
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
#include "dfx/convert/common/input_file.hpp"
#include "dfx/convert/common/json_value.hpp"
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

namespace detail {

// A key as it may appear in a one-line error message: control characters
// (a "\n" escape in the file is a real newline once unescaped) as \xNN.
inline std::string printable_key(std::string_view key) {
    std::string out;
    for (const char c : key) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7F) out += fmt::format("\\x{:02x}", u);
        else out.push_back(c);
    }
    return out;
}

}  // namespace detail

// A name map is a few hundred bytes: it is read whole.
inline name_map load_name_map(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        throw input_error(fmt::format("Func names JSON not found: {}", path));
    }
    require_regular_file(path);
    simdjson::padded_string text;
    if (simdjson::padded_string::load(path).get(text) != simdjson::SUCCESS) {
        throw input_error(fmt::format("{}: cannot read", path));
    }
    auto fail = [&](std::string_view what) -> void { throw input_error(fmt::format("{}: {}", path, what)); };
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    if (parser.iterate(text).get(doc) != simdjson::SUCCESS) fail("invalid JSON");
    simdjson::ondemand::object obj;
    if (doc.get_object().get(obj) != simdjson::SUCCESS) fail("expected a JSON object");
    name_map m;
    std::string why;
    std::set<std::string, std::less<>> keys;  // a repeated key: one of its values would be ignored
    for (auto field : obj) {
        std::string_view key;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS) fail("invalid JSON");
        if (!keys.emplace(key).second) fail(fmt::format("duplicate top-level key \"{}\"", detail::printable_key(std::string(key))));
        simdjson::ondemand::value v;
        if (field.value().get(v) != simdjson::SUCCESS) fail("invalid JSON");
        if (key == "orchestrator_name") {
            if (is_null(v)) {
                m.orchestrator_name.reset();
                continue;
            }
            std::string s;
            if (!read_string(v, s, why)) fail(fmt::format("orchestrator_name: {}", why));
            if (s.empty()) {
                m.orchestrator_name.reset();
            } else {
                m.orchestrator_name = s;
            }
        } else if (key == "callable_id_to_name") {
            m.names.clear();
            if (is_null(v)) continue;
            simdjson::ondemand::object names;
            if (v.get_object().get(names) != simdjson::SUCCESS) fail("callable_id_to_name: expected an object");
            std::set<std::string, std::less<>> ids;
            for (auto entry : names) {
                std::string_view id;
                if (entry.unescaped_key().get(id) != simdjson::SUCCESS) fail("invalid JSON");
                const std::string id_s(id);
                if (!ids.emplace(id_s).second)
                    fail(fmt::format("callable_id_to_name: duplicate key \"{}\"", detail::printable_key(id_s)));
                simdjson::ondemand::value n;
                if (entry.value().get(n) != simdjson::SUCCESS) fail("invalid JSON");
                std::string s;
                if (!read_string(n, s, why)) fail(fmt::format("callable_id_to_name.{}: {}", detail::printable_key(id_s), why));
                m.names.emplace_back(id_s, std::move(s));
            }
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
        fmt::print(warnings,
                   "Warning: multiple sibling name maps found next to {}: {}; pass --func-names explicitly.\n", input,
                   listed);
    }
    return std::nullopt;
}

}  // namespace dfx::convert::swimlane
