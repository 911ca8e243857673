// run_units: the directories one report covers: a dfx_outputs directory,
// and in an L3 tree every rank<r>/d<k> dispatch below it (schema/l3_layout.hpp),
// ranks in name order, dispatches in numeric order: the same walk as `dfx
// all` (tools/dfx/cmd_all.cpp), so both tools see the same sections.
//
//   for (const run_unit& u : run_units_of(root)) ...  // u.label: "." or "rank0/d1"
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "dfx/schema/l3_layout.hpp"

namespace dfx::convert::report {

struct run_unit {
    std::filesystem::path dir;
    std::string label;  // "." for the tree itself, else "rank<r>/d<k>"
};

inline std::vector<run_unit> run_units_of(const std::filesystem::path& root) {
    namespace fs = std::filesystem;
    std::vector<run_unit> units{{root, "."}};
    std::error_code ec;
    std::vector<fs::path> ranks;
    for (const auto& e : fs::directory_iterator(root, ec))
        if (e.is_directory() && schema::is_rank_dir_name(e.path().filename().string())) ranks.push_back(e.path());
    std::sort(ranks.begin(), ranks.end());
    for (const auto& rank : ranks) {
        std::vector<fs::path> dispatches;
        for (const auto& e : fs::directory_iterator(rank, ec))
            if (e.is_directory() && schema::is_dispatch_dir_name(e.path().filename().string())) dispatches.push_back(e.path());
        std::sort(dispatches.begin(), dispatches.end(), [](const fs::path& a, const fs::path& b) {
            return schema::dispatch_index(a.filename().string()) < schema::dispatch_index(b.filename().string());
        });
        for (const auto& d : dispatches)
            units.push_back({d, rank.filename().string() + "/" + d.filename().string()});
    }
    return units;
}

}  // namespace dfx::convert::report
