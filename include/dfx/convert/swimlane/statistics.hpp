// statistics: the "Task Statistics by Function" table the converter prints
// after writing the trace (spec chip-swimlane.md §4.10), grouped by the
// resolved func id. Column layout, number formats and the sums (accumulated in
// task order, as the reference does) are the reference's, so the text matches
// line for line.
//
//   resolve_func_ids(pd, deps);                // func_ids.hpp: the table groups by them
//   print_task_statistics(stdout, pd, names);
//   const task_statistics st = compute_task_statistics(pd, names);  // the numbers alone
//                                              // (statistics_output.hpp: JSON / CSV)
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
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

// One func id's sums, accumulated in task order as the reference does.
struct function_stats {
    std::int64_t func_id = -1;
    std::string name;  // func_name(): the name map's, else func_<letters>
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

    [[nodiscard]] double avg_exec() const { return sum_duration / static_cast<double>(count); }
    [[nodiscard]] double avg_latency() const { return total_latency / static_cast<double>(count); }
    [[nodiscard]] double avg_head() const { return n_aicpu ? sum_head / static_cast<double>(n_aicpu) : 0.0; }
    [[nodiscard]] double avg_tail() const { return n_aicpu ? sum_tail / static_cast<double>(n_aicpu) : 0.0; }
    [[nodiscard]] double exec_pct() const { return total_latency > 0 ? total_exec / total_latency * 100 : 0.0; }
    [[nodiscard]] double avg_local() const { return sum_local / static_cast<double>(count); }
};

// The table's numbers (statistics_output.hpp writes them as JSON / CSV).
struct task_statistics {
    int level = 0;
    bool aicpu_timing = false;              // level >= 2: latency, head / tail overhead
    std::vector<function_stats> functions;  // by func id
    std::size_t total_count = 0;
    double total_duration = 0.0;            // summed in func id order
    double total_latency = 0.0;             // summed in first-appearance order
    std::optional<double> test_time_us;     // level >= 2: earliest dispatch -> latest finish
    std::optional<double> aicore_span_us;   // level 1: earliest receive -> latest end
};

inline task_statistics compute_task_statistics(const perf_data& pd, const name_map& names) {
    task_statistics st;
    st.level = pd.level;
    st.aicpu_timing = pd.level >= 2;
    std::map<std::int64_t, function_stats> by_func;
    double min_dispatch = std::numeric_limits<double>::infinity();
    double max_finish = -std::numeric_limits<double>::infinity();
    double min_aicore = std::numeric_limits<double>::infinity();
    double max_aicore = -std::numeric_limits<double>::infinity();
    for (const task& t : pd.tasks) {
        auto [it, fresh] = by_func.try_emplace(t.func_id);
        function_stats& s = it->second;
        if (fresh) s.first_seen = by_func.size();
        const double duration = t.duration_us();
        ++s.count;
        s.sum_duration += duration;
        min_aicore = std::min(min_aicore, t.receive_us);
        max_aicore = std::max(max_aicore, t.end_us);
        s.sum_local += t.local_setup_us();
        if (st.aicpu_timing) {
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
    for (auto& [func_id, s] : by_func) {
        s.func_id = func_id;
        s.name = func_name(func_id, names);
        st.total_count += s.count;
        st.total_duration += s.sum_duration;
        st.functions.push_back(std::move(s));
    }
    // Summed in first-appearance order, like the reference's dict.
    std::vector<const function_stats*> seen_order;
    for (const auto& f : st.functions) seen_order.push_back(&f);
    std::sort(seen_order.begin(), seen_order.end(),
              [](const function_stats* a, const function_stats* b) { return a->first_seen < b->first_seen; });
    for (const function_stats* s : seen_order) st.total_latency += s->total_latency;
    if (st.aicpu_timing && min_dispatch != std::numeric_limits<double>::infinity()) {
        st.test_time_us = max_finish - min_dispatch;
    } else if (pd.level == 1 && min_aicore != std::numeric_limits<double>::infinity()) {
        st.aicore_span_us = max_aicore - min_aicore;
    }
    return st;
}

inline void print_task_statistics(std::FILE* out, const task_statistics& st) {
    const bool aicpu_timing = st.aicpu_timing;
    const std::string wide(140, '='), dash(140, '-');
    fmt::print(out, "\n{}\nTask Statistics by Function\n", wide);
    fmt::print(out, "  Source chip_swimlane_level: {} ({}; recorded in chip_swimlane_records.json)\n", st.level,
               level_description(st.level));
    fmt::print(out, "  Exec = kernel time on AICore; Latency = dispatch->finish (incl. head OH + Exec + tail OH)\n");
    fmt::print(out,
               "  Head OH split (v3): Prop = NoC propagation (dispatch_ts→AICore receive); Local = dcci+ack "
               "(receive→start)\n");
    fmt::print(out, "{}\n", wide);
    fmt::print(out, "{:<8} {:<12} {:>5}   {:>12}  {:>15}  {:>6}   {:>15}  {:>15}  {:>12}  {:>13}\n", "Func_ID",
               "Func_Name", "Count", "Avg Exec(us)", "Avg Latency(us)", "Exec%", "Avg Head OH(us)", "Avg Tail OH(us)",
               "Avg Prop(us)", "Avg Local(us)");
    fmt::print(out, "{}\n", dash);

    for (const function_stats& s : st.functions) {
        const std::string latency = aicpu_timing ? fmt::format("{:.2f}", s.avg_latency()) : "-";
        const std::string ratio = aicpu_timing ? fmt::format("{:.1f}%", s.exec_pct()) : "-";
        const std::string head = aicpu_timing ? fmt::format("{:.2f}", s.avg_head()) : "-";
        const std::string tail = aicpu_timing ? fmt::format("{:.2f}", s.avg_tail()) : "-";
        const std::string prop =
            s.n_prop ? fmt::format("{:>12.2f}", s.sum_prop / static_cast<double>(s.n_prop)) : fmt::format("{:>12}", "-");
        const std::string local = fmt::format("{:>13.2f}", s.avg_local());
        fmt::print(out, "{:<8} {:<12} {:>5}   {:>12.2f}  {:>15}  {:>6}   {:>15}  {:>15}  {}  {}\n", s.func_id, s.name,
                   s.count, s.avg_exec(), latency, ratio, head, tail, prop, local);
    }
    fmt::print(out, "{}\n", dash);
    fmt::print(out, "{:<21} {:>5}   {:>12.2f}  {:>15}\n", "TOTAL", st.total_count, st.total_duration,
               aicpu_timing ? fmt::format("{:.2f}", st.total_latency) : "-");

    if (st.test_time_us) {
        fmt::print(out, "\nTotal Test Time: {:.2f} us (from earliest dispatch to latest finish)\n", *st.test_time_us);
    } else if (st.aicore_span_us) {
        fmt::print(out,
                   "\nAICore Observed Span: {:.2f} us (from earliest AICore receive to latest AICore end)\n",
                   *st.aicore_span_us);
    }
    if (aicpu_timing && st.total_count > 0 && st.total_latency > 0) {
        const double avg_exec = st.total_duration / static_cast<double>(st.total_count);
        const double avg_latency = st.total_latency / static_cast<double>(st.total_count);
        fmt::print(out, "\n--- Task execution vs Scheduler overhead ---\n");
        fmt::print(out,
                   "  Per-task (all):  Avg Exec = {:.2f} us,  Avg Latency (dispatch->finish) = {:.2f} us,  "
                   "Exec/Latency = {:.2f}%\n",
                   avg_exec, avg_latency, st.total_duration / st.total_latency * 100);
        fmt::print(out, "  (Latency = dispatch→finish; Exec = AICore kernel time per task)\n");
    }
    fmt::print(out, "{}\n", std::string(110, '='));
}

inline void print_task_statistics(std::FILE* out, const perf_data& pd, const name_map& names) {
    print_task_statistics(out, compute_task_statistics(pd, names));
}

}  // namespace dfx::convert::swimlane
