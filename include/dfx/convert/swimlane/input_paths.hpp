// input_paths: how the swimlane tools find their inputs and name their outputs.
//
//  - no input given: the newest ./outputs/*/chip_swimlane_records.json (mtime);
//  - deps.json / merged_swimlane.json default to siblings of the records file;
//  - paths are printed the way the reference (pathlib) prints them, so
//    "./x.json" shows as "x.json" and the sibling of "x.json" is "deps.json".
#pragma once

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dfx/schema/artefact_names.hpp"

namespace dfx::convert::swimlane {

// pathlib's normalisation: drop empty and "." components (".." is kept).
inline std::string normalize_path(std::string_view p) {
    if (p.empty()) return ".";
    const bool absolute = p.front() == '/';
    std::vector<std::string_view> parts;
    std::size_t i = 0;
    while (i <= p.size()) {
        const std::size_t j = std::min(p.find('/', i), p.size());
        const std::string_view part = p.substr(i, j - i);
        if (!part.empty() && part != ".") parts.push_back(part);
        i = j + 1;
    }
    std::string out = absolute ? "/" : "";
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (k) out += '/';
        out += parts[k];
    }
    return out.empty() ? "." : out;
}

// `name` in the directory of `file` (pathlib: Path(file).parent / name).
inline std::string sibling_path(std::string_view file, std::string_view name) {
    const std::string norm = normalize_path(file);
    const auto slash = norm.rfind('/');
    if (slash == std::string::npos) return std::string(name);
    if (slash == 0) return "/" + std::string(name);
    return norm.substr(0, slash) + "/" + std::string(name);
}

// The newest ./outputs/*/chip_swimlane_records.json, if any.
inline std::optional<std::string> newest_records_file() {
    namespace fs = std::filesystem;
    std::error_code ec;
    std::optional<std::string> best;
    fs::file_time_type best_time{};
    for (fs::directory_iterator it("outputs", ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path candidate = it->path() / schema::records_file;
        std::error_code ec2;
        if (!fs::is_regular_file(candidate, ec2)) continue;
        const auto t = fs::last_write_time(candidate, ec2);
        if (ec2) continue;
        if (!best || t > best_time) {
            best = candidate.string();
            best_time = t;
        }
    }
    return best;
}

}  // namespace dfx::convert::swimlane
