// sched_overhead: `dfx sched-overhead`, the scheduler-overhead deep dive of the
// reference `sched_overhead_analysis` (spec chip-swimlane.md §5): the report's
// text, one print function per part, from the numbers sched_overhead_parts.hpp
// computes.
//
//   Part 1  overhead verdict: per engine, % of the makespan where a core of
//           that type is idle while a ready task of that type waits for dispatch;
//   Part 2  aicore switch: per-core gaps where the next task was already
//           dispatched before the previous one ended;
//   Part 3/4 head / tail overhead distributions;
//   Part 5  scheduler loop breakdown from the level >= 3 phase records,
//           with fan-out / fan-in from deps.json;
//   Part 6  critical path: compute vs scheduler-injected time.
//
//   const int rc = print_sched_overhead(stdout, stderr, pd, deps);
//
// The printed text is the reference's, number for number.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/json_value.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/labels.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/sched_overhead_parts.hpp"

namespace dfx::convert::swimlane {

struct sched_overhead_inputs {
    std::string records_path;  // as printed
    std::string deps_path;     // as printed
};

namespace detail {

inline const std::string rule90(90, '=');

inline double pct(double x, double denom) { return denom > 0 ? x / denom * 100 : 0.0; }

inline std::string engine_label(std::string_view type) {
    if (type == "aic") return "C (AIC)";
    if (type == "aiv") return "V (AIV)";
    if (type == "mix") return "MIX";
    return upper(type);
}

inline void print_distribution(std::FILE* out, std::string_view label, std::vector<double> vals) {
    std::sort(vals.begin(), vals.end());
    const std::size_t n = vals.size();
    if (n == 0) {
        fmt::print(out, "  {}: (no tasks)\n", label);
        return;
    }
    fmt::print(out, "  {} distribution (N={}):\n", label, n);
    for (const int p : {10, 25, 50, 75, 90, 95, 99}) {
        const std::size_t idx = std::min(n * static_cast<std::size_t>(p) / 100, n - 1);
        fmt::print(out, "    P{:<4} {:>8.2f} us\n", p, vals[idx]);
    }
    double sum = 0.0;
    for (const double v : vals) sum += v;  // the reference sums the sorted list
    fmt::print(out, "    Max:  {:>8.2f} us\n", vals.back());
    fmt::print(out, "    Mean: {:>8.2f} us   Total: {:>10.1f} us\n", sum / static_cast<double>(n), sum);
}

// Python pads by code points, fmt by display width: pad by hand for labels
// with multi-byte characters.
inline std::string pad_code_points(std::string_view s, std::size_t width) {
    std::size_t cps = 0;
    for (const char c : s) cps += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return std::string(s) + std::string(cps < width ? width - cps : 0, ' ');
}

// Part 5's phase rows: work phases first (the dominant one is among them),
// then idle.
struct phase_row {
    const char* label;
    double total;
};
inline std::vector<phase_row> loop_phases(const loop_breakdown& b) {
    return {
        {"Complete (poll handshake, resolve deps)", b.complete_us},
        {"AsyncPoll (async-wait completion: SDMA/RoCE/URMA/CCU)", b.async_poll_us},
        {"Dispatch (pop queue, build payload, flush)", b.dispatch_us},
        {"Idle (spinning, no progress — reconstructed from gaps)", b.idle_us},
    };
}

}  // namespace detail

inline void print_overhead_verdict(std::FILE* out, const perf_data& pd, const sched_overhead_report& r) {
    using namespace detail;
    const double window = r.window.length();
    const overhead_verdict& v = r.verdict;
    const double all_pct = pct(v.all_overhead, window);
    const double has_pct = pct(v.has_overhead, window);
    std::string verdict;
    const overhead_class cls = classify_overhead(has_pct);
    if (cls == overhead_class::scheduler_bound) {
        verdict = "SCHEDULER-BOUND — a free core has ready, undispatched work for much of the makespan.";
    } else if (cls == overhead_class::partially_scheduler_limited) {
        verdict = fmt::format("PARTIALLY SCHEDULER-LIMITED — overhead {:.0f}% of the makespan; the rest is compute + "
                              "dependency-limited parallelism.",
                              has_pct);
    } else {
        verdict = "COMPUTE/DEPENDENCY-BOUND — little reducible scheduler overhead.";
    }
    fmt::print(out, "\n{0}\nPart 1: Overhead verdict  (idle core + ready, undispatched work — share of makespan)\n{0}\n",
               rule90);
    fmt::print(out, "  Total tasks: {}   window: {:.1f} us  (first start -> last end)\n", pd.tasks.size(), window);
    std::string per_engine;
    for (std::size_t i = 0; i < v.present.size(); ++i) {
        if (i) per_engine += "  ";
        per_engine += fmt::format("{} {:.1f}%", engine_label(pd.core_type_names[v.present[i]]),
                                  pct(v.overhead_by_type[i], window));
    }
    fmt::print(out, "  Per-engine overhead: {}\n", per_engine);
    fmt::print(out,
               "  System: all_overhead {:.1f}% (every engine blocked)  |  has_overhead {:.1f}% (every working engine "
               "starved)\n",
               all_pct, has_pct);
    fmt::print(out, "  overhead(T) = idle T-core AND a ready, undispatched T-task (a MIX task counts for both).\n");
    fmt::print(out, "  An engine with no ready work is NOT overhead — its idle is dependency-mandated progress.\n");
    fmt::print(out, "  -> {}\n\n", verdict);
}

inline void print_switches(std::FILE* out, const perf_data& pd, const sched_overhead_report& r) {
    using namespace detail;
    const switch_stats& s = r.switches;
    const auto& present = r.verdict.present;
    fmt::print(out, "{0}\nPart 2: aicore switch  (gap [prev_end, start] when dispatch < prev_end; PER CORE)\n{0}\n", rule90);
    fmt::print(out,
               "  Each switch is the core picking up an already-dispatched task (~sub-us). Reported\n"
               "  per core (NOT summed over cores — switches overlap). A switch is 'overhead' when the\n"
               "  engine has other ready work that instant, else 'independent'. makespan bound:\n"
               "  lower = min over all cores, upper = sum of per-engine minima.\n\n");
    constexpr auto s_fmt = "  {:<10} {:>6} {:>10} {:>10} {:>10} {:>9} {:>9}\n";
    fmt::print(out, s_fmt, "Engine", "Cores", "min/core", "mean/core", "max/core", "n events", "us/event");
    fmt::print(out, "  {}\n", std::string(74, '-'));
    const switch_summary sum = summarise_switches(s, present);
    for (const auto& e : sum.engines) {
        fmt::print(out, s_fmt, engine_label(pd.core_type_names[e.type]), e.cores, fmt::format("{:.1f}us", e.min_per_core),
                   fmt::format("{:.1f}us", e.mean_per_core), fmt::format("{:.1f}us", e.max_per_core), e.events,
                   fmt::format("{:.2f}us", e.mean_per_event));
    }
    fmt::print(out, "\n");
    for (const auto ty : present) {
        const auto [ov, ind] = s.split[ty];
        const double tot = ov + ind;
        if (tot > 0) {
            fmt::print(out, "    {} switch split: {:.0f}% during overhead, {:.0f}% independent\n",
                       engine_label(pd.core_type_names[ty]), pct(ov, tot), pct(ind, tot));
        }
    }
    const double lower = sum.bound_lower, upper = sum.bound_upper;
    const double window = r.window.length();
    fmt::print(out, "  makespan switch bound: [{:.2f}, {:.2f}] us  ({:.2f}% .. {:.2f}% of makespan)\n\n", lower, upper,
               pct(lower, window), pct(upper, window));
}

inline void print_head_tail(std::FILE* out, const sched_overhead_report& r) {
    using namespace detail;
    fmt::print(out, "{0}\nPart 3: Head OH statistics & distribution\n{0}\n", rule90);
    fmt::print(out, "  head = min(start - dispatch, start - last_task_end) per task (clamped at 0)\n\n");
    print_distribution(out, "Head OH", r.head_tail_oh.heads);
    fmt::print(out, "\n{0}\nPart 4: Tail OH distribution\n{0}\n", rule90);
    fmt::print(out, "  tail = finish - end per task\n\n");
    print_distribution(out, "Tail OH", r.head_tail_oh.tails);
    fmt::print(out, "\n");
}

// Part 5, first half: the per-thread loop table and the phase shares.
inline void print_loop_tables(std::FILE* out, const loop_breakdown& b) {
    using namespace detail;
    fmt::print(out, "{0}\nPart 5: AICPU scheduler loop breakdown\n  {1} scheduler threads\n{0}\n\n", rule90,
               b.threads.size());
    constexpr auto fmt2 = "  {:<10} {:>7} {:>10} {:>12} {:>11}\n";
    fmt::print(out, fmt2, "Thread", "Loops", "Tasks", "ns/loop", "Total (us)");
    fmt::print(out, "  {}\n", std::string(54, '-'));
    for (const auto& t : b.threads) {
        const double ns = t.loops ? t.total_us * 1000 / static_cast<double>(t.loops) : 0.0;
        fmt::print(out, fmt2, fmt::format("T{}", t.thread), t.loops, to_decimal(t.completed), fmt::format("{:.0f}", ns),
                   fmt::format("{:.1f}", t.total_us));
    }
    fmt::print(out, fmt2, "SUM", to_decimal(b.total_loops), to_decimal(b.total_completed),
               fmt::format("{:.0f}", b.avg_loop_us() * 1000), fmt::format("{:.1f}", b.total_us));
    fmt::print(out, "  FINs observed (Complete phase): {}\n\n", to_decimal(b.total_finishes));

    const std::string header = fmt::format("  {} {:>11} {:>10} {:>14}", pad_code_points("Phase (summed over threads)", 55),
                                           "Total (us)", "% of total", "Avg/task (us)");
    fmt::print(out, "{}\n  {}\n", header, std::string(header.size() - 2, '-'));
    for (const auto& p : loop_phases(b)) {
        fmt::print(out, "  {} {:>11} {:>10} {:>14}\n", pad_code_points(p.label, 55), fmt::format("{:.1f}", p.total),
                   fmt::format("{:.1f}%", pct(p.total, b.total_us)), fmt::format("{:.2f}", b.per_completed(p.total)));
    }
    fmt::print(out, "\n");
}

// Part 5, second half: fan degrees, pops, detection latency, the verdict.
inline void print_loop_insight(std::FILE* out, const loop_breakdown& b, const std::vector<double>& tails) {
    using namespace detail;
    const double fanout_avg = b.per_completed(static_cast<double>(b.fanout_edges));
    const double fanin_avg = b.per_completed(static_cast<double>(b.fanin_edges));
    fmt::print(out, "  Fanout (notify consumers): total edges={}, max_degree={}, avg_degree={:.1f}\n", b.fanout_edges,
               b.fanout_max, fanout_avg);
    fmt::print(out, "  Fanin  (release producers): total edges={}, max_degree={}, avg_degree={:.1f}\n\n", b.fanin_edges,
               b.fanin_max, fanin_avg);
    const double pop_rate = pct(static_cast<double>(b.pop_hit), static_cast<double>(b.pop_hit + b.pop_miss));
    fmt::print(out, "  Pop: hit={}, miss={}, hit_rate={:.1f}%\n\n", to_decimal(b.pop_hit), to_decimal(b.pop_miss),
               pop_rate);

    double tail_sum = 0.0;
    for (const double v : tails) tail_sum += v;
    const double avg_tail = tail_sum / static_cast<double>(tails.size());
    const double avg_loop_us = b.avg_loop_us();
    const double avg_loop_ns = avg_loop_us * 1000;
    const double loop_ratio = avg_loop_us > 0 ? avg_tail / avg_loop_us : 0.0;
    fmt::print(out, "  Avg scheduler loop iteration: {:.0f} ns (approx avg polling interval per loop)\n\n", avg_loop_ns);
    fmt::print(out, "  Avg Tail OH = {:.1f} us ~= {:.1f} x avg loop iteration ({:.0f} ns)\n", avg_tail, loop_ratio,
               avg_loop_ns);
    fmt::print(out, "  -> On average, a completed task waits ~{:.1f} loop iterations before being detected\n\n",
               loop_ratio);

    // Dominant work phase (idle is not work); the first of equal maxima wins.
    const auto phases = loop_phases(b);
    std::size_t dominant = 0;
    for (std::size_t i = 1; i < 3; ++i) {
        if (phases[i].total > phases[dominant].total) dominant = i;
    }
    const std::string_view dom_label = phases[dominant].label;
    fmt::print(out, "  Key insight: {} phase consumes ~{:.0f}% of scheduler CPU.\n", dom_label.substr(0, dom_label.find(" (")),
               pct(phases[dominant].total, b.total_us));
    if (dominant == 2) {
        fmt::print(out, "  Pop hit_rate={:.1f}%: {}.\n", pop_rate,
                   pop_rate < 50 ? "low hit rate suggests ready queue often empty" : "good hit rate");
        fmt::print(out, "  Cache flush (dc cvac + dsb sy) is the dominant non-pop cost.\n");
    } else if (dominant == 0) {
        fmt::print(out, "  Fanout: avg_degree={:.1f}, max_degree={}.\n", fanout_avg, b.fanout_max);
        fmt::print(out, "  Fanin:  avg_degree={:.1f}, max_degree={}.\n", fanin_avg, b.fanin_max);
        std::fputs(b.fanin_edges > b.fanout_edges
                       ? "  Fanin traversal (release_producer + check_consumed) dominates the complete phase.\n"
                       : "  Fanout traversal and atomic ops dominate the complete phase.\n",
                   out);
    }
    fmt::print(out, "{}\n", rule90);
}

inline void print_critical_path(std::FILE* out, const critical_path_share& p) {
    using namespace detail;
    fmt::print(out, "\n{0}\nPart 6: Critical-path latency attribution\n{0}\n", rule90);
    if (p.span > 0) {
        fmt::print(out, "  Makespan-determining path: {} hops, span {:.1f} us\n", p.hops, p.span);
        fmt::print(out, "    Compute (exec) on path : {:.1f} us ({:.1f}%)\n", p.exec, p.exec / p.span * 100);
        fmt::print(out, "    Scheduler injected     : {:.1f} us ({:.1f}%)\n", p.sched, p.sched / p.span * 100);
        fmt::print(out, "    Other (dep wait on path): {:.1f} us\n", std::max(0.0, p.span - p.exec - p.sched));
        fmt::print(out, "  -> scheduler adds ~{:.1f}% to the critical path's end-to-end latency.\n",
                   p.sched / p.span * 100);
    } else {
        fmt::print(out, "  (could not resolve a critical path from the DAG)\n");
    }
    fmt::print(out, "{}\n", detail::rule90);
}

// The report of compute_sched_overhead(pd, ...) as text; returns the exit
// code (errors go to `err` as "Error: ..." lines, as the reference prints
// them, after the parts already printed).
inline int print_sched_overhead_report(std::FILE* out, std::FILE* err, const perf_data& pd,
                                       const sched_overhead_report& r) {
    print_overhead_verdict(out, pd, r);
    print_switches(out, pd, r);
    print_head_tail(out, r);
    if (r.loops.threads.empty()) {
        std::fflush(out);
        fmt::print(err,
                   "Error: No JSON phase data found (aicpu_scheduler_phases) — rerun with --enable-chip-swimlane at "
                   "level >= 3 so the scheduler phases are captured.\n");
        return 1;
    }
    print_loop_tables(out, r.loops);
    print_loop_insight(out, r.loops, r.head_tail_oh.tails);
    print_critical_path(out, r.path);
    return 0;
}

// Computes and prints the report for already-loaded inputs (the same exit
// code). `loops`: thread_loops(pd), when taken before pd.loop was freed.
inline int print_sched_overhead(std::FILE* out, std::FILE* err, const perf_data& pd, const deps_graph& deps,
                                const std::vector<thread_loop>* loops = nullptr) {
    if (pd.tasks.empty()) {
        fmt::print(err, "Error: No tasks found in perf data\n");
        return 1;
    }
    return print_sched_overhead_report(out, err, pd, compute_sched_overhead(pd, deps, loops));
}

}  // namespace dfx::convert::swimlane
