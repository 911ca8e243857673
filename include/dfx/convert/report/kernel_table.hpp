// kernel_table: the top-N kernels by total execution time (what `nsys
// stats` users expect first): per kernel, the task rows, total, mean,
// median, min and max of end - start, and its per-core busy share: its
// total over (the cores it ran on x the makespan), i.e. how much of those
// cores' time it held; at level >= 2 also the latency (dispatch -> finish:
// head overhead + exec + tail overhead, as the swimlane statistics define it).
//
//   const auto rows = kernel_table(pd, names, u.makespan_us);  // all kernels, by total desc
//   rows.resize(std::min(rows.size(), top));
//
// A kernel is a resolved func id (swimlane/func_ids.hpp ran first) named
// through the name map as the swimlane statistics name it; -1 is "unknown".
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dfx/convert/report/scheduling.hpp"
#include "dfx/convert/swimlane/labels.hpp"
#include "dfx/convert/swimlane/name_map.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"

namespace dfx::convert::report {

struct kernel_row {
    std::int64_t func_id = -1;
    std::string name;
    duration_stats exec;        // us
    std::optional<duration_stats> latency;  // us, level >= 2 (rows with an AICPU row)
    std::size_t cores = 0;      // distinct cores it ran on
    double core_busy_pct = 0.0; // total / (cores x makespan)
};

inline std::vector<kernel_row> kernel_table(const swimlane::perf_data& pd, const swimlane::name_map& names,
                                            double makespan_us) {
    std::map<std::int64_t, std::vector<double>> durations, latencies;
    std::map<std::int64_t, std::set<std::uint32_t>> cores;
    for (const auto& t : pd.tasks) {
        durations[t.func_id].push_back(std::max(0.0, t.duration_us()));
        cores[t.func_id].insert(t.core_id);
        if (pd.level >= 2 && t.joined) latencies[t.func_id].push_back(std::max(0.0, t.finish_us - t.dispatch_us));
    }
    std::vector<kernel_row> rows;
    for (auto& [id, d] : durations) {
        kernel_row r;
        r.func_id = id;
        r.name = id < 0 ? std::string("unknown") : swimlane::func_name(id, names);
        r.exec = stats_of(std::move(d));
        if (auto l = latencies.find(id); l != latencies.end()) r.latency = stats_of(std::move(l->second));
        r.cores = cores[id].size();
        const double capacity = static_cast<double>(r.cores) * makespan_us;
        r.core_busy_pct = capacity > 0 ? r.exec.total / capacity * 100 : 0.0;
        rows.push_back(std::move(r));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const kernel_row& a, const kernel_row& b) { return a.exec.total > b.exec.total; });
    return rows;
}

}  // namespace dfx::convert::report
