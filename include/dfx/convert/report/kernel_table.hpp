// kernel_table: the top-N kernels by total execution time (what `nsys
// stats` users expect first): per kernel, the task rows, total, mean,
// median, min and max of end - start, its share of all kernels' summed
// execution time, and its per-core busy share: its total over (the cores it
// ran on x the makespan), i.e. how much of those cores' time it held; at
// level >= 2 also the latency (dispatch -> finish: head overhead + exec +
// tail overhead, as the swimlane statistics define it). The makespan is
// core_utilisation's: first start -> last end over all task rows.
//
//   const auto rows = kernel_table(pd, names, task_makespan_us(pd));  // all kernels, by total desc
//   for (const kernel_row& k : top_kernels(rows, top)) ...           // top 0: all
//
// kernel_table_render.hpp prints the table (text, HTML, JSON, CSV) for
// `dfx report` and `dfx swimlane --stats`.
//
// A kernel is a resolved func id (swimlane/func_ids.hpp ran first) named
// through the name map as the swimlane statistics name it; -1 is "unknown".
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dfx/convert/report/duration_stats.hpp"
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
    double share_pct = 0.0;     // total / (every kernel's total)
};

// First start -> last end over the task rows (core_utilisation's makespan).
inline double task_makespan_us(const swimlane::perf_data& pd) {
    if (pd.tasks.empty()) return 0.0;
    double w0 = pd.tasks.front().start_us, w1 = pd.tasks.front().end_us;
    for (const auto& t : pd.tasks) {
        w0 = std::min(w0, t.start_us);
        w1 = std::max(w1, t.end_us);
    }
    return w1 - w0;
}

// The first `top` rows (top 0: all of them).
inline std::vector<kernel_row> top_kernels(const std::vector<kernel_row>& rows, std::size_t top) {
    const std::size_t n = top == 0 ? rows.size() : std::min(top, rows.size());
    return {rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n)};
}

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
    double all_total = 0.0;
    for (auto& [id, d] : durations) {
        kernel_row r;
        r.func_id = id;
        r.name = id < 0 ? std::string("unknown") : swimlane::func_name(id, names);
        r.exec = stats_of(std::move(d));
        if (auto l = latencies.find(id); l != latencies.end()) r.latency = stats_of(std::move(l->second));
        r.cores = cores[id].size();
        const double capacity = static_cast<double>(r.cores) * makespan_us;
        r.core_busy_pct = capacity > 0 ? r.exec.total / capacity * 100 : 0.0;
        all_total += r.exec.total;
        rows.push_back(std::move(r));
    }
    for (auto& r : rows) r.share_pct = all_total > 0 ? r.exec.total / all_total * 100 : 0.0;
    std::stable_sort(rows.begin(), rows.end(),
                     [](const kernel_row& a, const kernel_row& b) { return a.exec.total > b.exec.total; });
    return rows;
}

}  // namespace dfx::convert::report
