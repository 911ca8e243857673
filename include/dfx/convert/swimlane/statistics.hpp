// statistics: the "Task Statistics by Function" table the converter prints
// after writing the trace (spec chip-swimlane.md §4.10), grouped by the
// resolved func id. Column layout, number formats and the sums (accumulated in
// task order, as the reference does) are the reference's, so the text matches
// line for line.
//
//   resolve_func_ids(pd, deps);                // func_ids.hpp: the table groups by them
//   print_task_statistics(stdout, pd, names);
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/swimlane/labels.hpp"
#include "dfx/convert/swimlane/name_map.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"

namespace dfx::convert::swimlane {

inline const char* level_description(int level) {
    switch (level) {
        case 1: return "AICore timing only";
        case 2: return "AICore + AICPU timing";
        case 3: return "AICore + AICPU timing + scheduler phases";
        case 4: return "full collection with orchestrator phases";
        default: return "unknown";
    }
}

inline void print_task_statistics(std::FILE* out, const perf_data& pd, const name_map& names) {
    const bool aicpu_timing = pd.level >= 2;
    struct func_stats {
        std::size_t count = 0;
        double sum_duration = 0.0;
        double sum_head = 0.0;
        double sum_tail = 0.0;
        double sum_prop = 0.0;
        std::size_t n_prop = 0;
        double sum_local = 0.0;
        double total_exec = 0.0;
        double total_latency = 0.0;
        std::size_t n_aicpu = 0;
        std::size_t first_seen = 0;  // order of first appearance (the reference's dict order)
    };
    std::map<std::int64_t, func_stats> by_func;
    double min_dispatch = std::numeric_limits<double>::infinity();
    double max_finish = -std::numeric_limits<double>::infinity();
    double min_aicore = std::numeric_limits<double>::infinity();
    double max_aicore = -std::numeric_limits<double>::infinity();
    for (const task& t : pd.tasks) {
        auto [it, fresh] = by_func.try_emplace(t.func_id);
        func_stats& s = it->second;
        if (fresh) s.first_seen = by_func.size();
        const double duration = t.duration_us();
        ++s.count;
        s.sum_duration += duration;
        min_aicore = std::min(min_aicore, t.receive_us);
        max_aicore = std::max(max_aicore, t.end_us);
        s.sum_local += t.local_setup_us();
        if (aicpu_timing) {
            s.sum_head += t.start_us - t.dispatch_us;
            s.sum_tail += t.finish_us - t.end_us;
            if (t.joined) {
                s.sum_prop += t.propagation_us();
                ++s.n_prop;
            }
            const double latency = t.finish_us - t.dispatch_us;
            s.total_exec += duration;
            s.total_latency += latency;
            ++s.n_aicpu;
            min_dispatch = std::min(min_dispatch, t.dispatch_us);
            max_finish = std::max(max_finish, t.finish_us);
        }
    }

    const std::string wide(140, '='), dash(140, '-');
    fmt::print(out, "\n{}\nTask Statistics by Function\n", wide);
    fmt::print(out, "  Source chip_swimlane_level: {} ({}; recorded in chip_swimlane_records.json)\n", pd.level,
               level_description(pd.level));
    fmt::print(out, "  Exec = kernel time on AICore; Latency = dispatch->finish (incl. head OH + Exec + tail OH)\n");
    fmt::print(out,
               "  Head OH split (v3): Prop = NoC propagation (dispatch_ts→AICore receive); Local = dcci+ack "
               "(receive→start)\n");
    fmt::print(out, "{}\n", wide);
    fmt::print(out, "{:<8} {:<12} {:>5}   {:>12}  {:>15}  {:>6}   {:>15}  {:>15}  {:>12}  {:>13}\n", "Func_ID",
               "Func_Name", "Count", "Avg Exec(us)", "Avg Latency(us)", "Exec%", "Avg Head OH(us)", "Avg Tail OH(us)",
               "Avg Prop(us)", "Avg Local(us)");
    fmt::print(out, "{}\n", dash);

    std::size_t total_count = 0;
    double total_duration = 0.0;
    for (const auto& [func_id, s] : by_func) {
        total_count += s.count;
        total_duration += s.sum_duration;
        const double avg_duration = s.sum_duration / static_cast<double>(s.count);
        const double avg_head = s.n_aicpu ? s.sum_head / static_cast<double>(s.n_aicpu) : 0.0;
        const double avg_tail = s.n_aicpu ? s.sum_tail / static_cast<double>(s.n_aicpu) : 0.0;
        const double avg_latency = s.total_latency / static_cast<double>(s.count);
        const double exec_ratio = s.total_latency > 0 ? s.total_exec / s.total_latency * 100 : 0.0;
        const std::string latency = aicpu_timing ? fmt::format("{:.2f}", avg_latency) : "-";
        const std::string ratio = aicpu_timing ? fmt::format("{:.1f}%", exec_ratio) : "-";
        const std::string head = aicpu_timing ? fmt::format("{:.2f}", avg_head) : "-";
        const std::string tail = aicpu_timing ? fmt::format("{:.2f}", avg_tail) : "-";
        const std::string prop =
            s.n_prop ? fmt::format("{:>12.2f}", s.sum_prop / static_cast<double>(s.n_prop)) : fmt::format("{:>12}", "-");
        const std::string local = fmt::format("{:>13.2f}", s.sum_local / static_cast<double>(s.count));
        fmt::print(out, "{:<8} {:<12} {:>5}   {:>12.2f}  {:>15}  {:>6}   {:>15}  {:>15}  {}  {}\n", func_id,
                   func_name(func_id, names), s.count, avg_duration, latency, ratio, head, tail, prop, local);
    }
    fmt::print(out, "{}\n", dash);
    // Summed in first-appearance order, like the reference's dict.
    std::vector<const func_stats*> seen_order;
    for (const auto& entry : by_func) seen_order.push_back(&entry.second);
    std::sort(seen_order.begin(), seen_order.end(),
              [](const func_stats* a, const func_stats* b) { return a->first_seen < b->first_seen; });
    double total_latency = 0.0;
    for (const func_stats* s : seen_order) total_latency += s->total_latency;
    fmt::print(out, "{:<21} {:>5}   {:>12.2f}  {:>15}\n", "TOTAL", total_count, total_duration,
               aicpu_timing ? fmt::format("{:.2f}", total_latency) : "-");

    if (aicpu_timing && min_dispatch != std::numeric_limits<double>::infinity()) {
        fmt::print(out, "\nTotal Test Time: {:.2f} us (from earliest dispatch to latest finish)\n",
                   max_finish - min_dispatch);
    } else if (pd.level == 1 && min_aicore != std::numeric_limits<double>::infinity()) {
        fmt::print(out,
                   "\nAICore Observed Span: {:.2f} us (from earliest AICore receive to latest AICore end)\n",
                   max_aicore - min_aicore);
    }
    if (aicpu_timing && total_count > 0 && total_latency > 0) {
        const double avg_exec = total_duration / static_cast<double>(total_count);
        const double avg_latency = total_latency / static_cast<double>(total_count);
        fmt::print(out, "\n--- Task execution vs Scheduler overhead ---\n");
        fmt::print(out,
                   "  Per-task (all):  Avg Exec = {:.2f} us,  Avg Latency (dispatch->finish) = {:.2f} us,  "
                   "Exec/Latency = {:.2f}%\n",
                   avg_exec, avg_latency, total_duration / total_latency * 100);
        fmt::print(out, "  (Latency = dispatch→finish; Exec = AICore kernel time per task)\n");
    }
    fmt::print(out, "{}\n", std::string(110, '='));
}

}  // namespace dfx::convert::swimlane
