// artefacts: which of the four observation artefacts a run directory holds,
// and, for each one missing, the flag that produces it (dfx-sim and the
// reference run config spell them as below; docs/report.md):
//
//   deps.json                    --enable-dep-gen        enable_dep_gen=True
//   chip_swimlane_records.json   --enable-chip-swimlane  enable_chip_swimlane=True
//   scope_stats/scope_stats.jsonl --enable-scope-stats   enable_scope_stats=True
//   pmu.csv                      --enable-pmu 2          enable_pmu=2
//
//   const run_artefacts a = find_artefacts(dir);
//   if (!a.deps) ... a.missing() lists {file, flag, what it answers}
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "dfx/schema/artefact_names.hpp"

namespace dfx::convert::report {

struct missing_artefact {
    std::string file;
    std::string flag;       // dfx-sim / dfxkit CLI flag
    std::string config;     // the reference RunConfig spelling
    std::string question;   // what stays unanswered
};

inline const missing_artefact deps_missing{std::string(schema::deps_file), "--enable-dep-gen", "enable_dep_gen=True",
                                           "the graph's shape and its critical path"};
inline const missing_artefact records_missing{std::string(schema::records_file), "--enable-chip-swimlane",
                                              "enable_chip_swimlane=True", "utilisation, idle gaps and kernel times"};
inline const missing_artefact scope_stats_missing{std::string(schema::scope_stats_path), "--enable-scope-stats",
                                                  "enable_scope_stats=True", "ring peaks against capacity"};
inline const missing_artefact pmu_missing{std::string(schema::pmu_csv_file), "--enable-pmu 2", "enable_pmu=2",
                                          "the limiting pipe per kernel"};

struct run_artefacts {
    std::optional<std::string> records, deps, scope_stats, pmu;

    [[nodiscard]] bool any() const { return records || deps || scope_stats || pmu; }
    [[nodiscard]] std::vector<missing_artefact> missing() const {
        std::vector<missing_artefact> m;
        if (!deps) m.push_back(deps_missing);
        if (!records) m.push_back(records_missing);
        if (!scope_stats) m.push_back(scope_stats_missing);
        if (!pmu) m.push_back(pmu_missing);
        return m;
    }
};

inline run_artefacts find_artefacts(const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    const auto at = [&](std::string_view name) -> std::optional<std::string> {
        std::error_code ec, link_ec;
        const fs::path p = dir / name;
        // A dangling symlink is an artefact that is there and broken: reading it names the problem.
        if (fs::exists(p, ec) || fs::is_symlink(p, link_ec)) return p.string();
        return std::nullopt;
    };
    run_artefacts a;
    a.records = at(schema::records_file);
    if (!a.records) a.records = at(schema::legacy_records_file);
    a.deps = at(schema::deps_file);
    a.scope_stats = at(schema::scope_stats_path);
    a.pmu = at(schema::pmu_csv_file);
    return a;
}

}  // namespace dfx::convert::report
