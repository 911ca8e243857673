// sched_overhead: `dfx sched-overhead`, the scheduler-overhead deep dive of the
// reference `sched_overhead_analysis` (spec chip-swimlane.md §5).
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
// Everything is O(n log n) in the number of task rows and phase records (the
// reference's switch split and dispatch vote are quadratic); the printed text
// is the reference's, number for number.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/json_value.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/labels.hpp"
#include "dfx/convert/swimlane/overhead_model.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"

namespace dfx::convert::swimlane {

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

// Cores in order of first appearance in the task list (the reference's dict order).
inline std::vector<std::uint32_t> cores_in_first_seen_order(const std::vector<task>& tasks) {
    std::vector<std::uint32_t> order;
    std::vector<std::uint32_t> seen;  // sorted
    for (const task& t : tasks) {
        auto it = std::lower_bound(seen.begin(), seen.end(), t.core_id);
        if (it != seen.end() && *it == t.core_id) continue;
        seen.insert(it, t.core_id);
        order.push_back(t.core_id);
    }
    return order;
}

// Per scheduler thread (Part 5).
struct thread_loop {
    std::int64_t thread = 0;
    double complete_us = 0, async_poll_us = 0, dispatch_us = 0, idle_us = 0;
    double total_us = 0;
    // Sums of recorded counters are 128-bit: any int64 a file holds adds up
    // without overflow, to the exact total the reference (Python ints) prints.
    int128 finishes = 0;
    std::int64_t loops = 0;
    int128 pop_hit = 0, pop_miss = 0;
    int128 completed = 0;  // logical tasks attributed to this thread
    std::int64_t fanout_edges = 0, fanout_max = 0, fanin_edges = 0, fanin_max = 0;
};

}  // namespace detail

struct sched_overhead_inputs {
    std::string records_path;  // as printed
    std::string deps_path;     // as printed
};

// Prints the report for already-loaded inputs; returns the exit code (errors
// go to `err` as "Error: ..." lines, as the reference prints them).
inline int print_sched_overhead(std::FILE* out, std::FILE* err, const perf_data& pd, const deps_graph& deps) {
    using namespace detail;
    const std::vector<task>& tasks = pd.tasks;
    if (tasks.empty()) {
        fmt::print(err, "Error: No tasks found in perf data\n");
        return 1;
    }
    double w0 = tasks.front().start_us, w1 = tasks.front().end_us;
    for (const task& t : tasks) {
        w0 = std::min(w0, t.start_us);
        w1 = std::max(w1, t.end_us);
    }
    const double window = w1 - w0;
    const auto ids = fold_task_ids(tasks);

    // ---- head / tail, per core in start order ----
    const auto core_order = cores_in_first_seen_order(tasks);
    std::vector<std::vector<std::uint32_t>> rows_by_core(core_order.size());
    {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> slot;  // (core, index in core_order)
        for (std::uint32_t i = 0; i < core_order.size(); ++i) slot.emplace_back(core_order[i], i);
        std::sort(slot.begin(), slot.end());
        for (std::uint32_t r = 0; r < tasks.size(); ++r) {
            auto it = std::lower_bound(slot.begin(), slot.end(), std::make_pair(tasks[r].core_id, std::uint32_t{0}));
            rows_by_core[it->second].push_back(r);
        }
        for (auto& rows : rows_by_core) {
            std::stable_sort(rows.begin(), rows.end(),
                             [&](std::uint32_t a, std::uint32_t b) { return tasks[a].start_us < tasks[b].start_us; });
        }
    }
    std::vector<double> heads, tails;
    for (const auto& rows : rows_by_core) {
        std::optional<double> last_end;
        for (const std::uint32_t r : rows) {
            const task& t = tasks[r];
            double head = t.start_us - t.dispatch_us;
            if (last_end) head = std::min(head, t.start_us - *last_end);
            heads.push_back(std::max(0.0, head));
            tails.push_back(std::max(0.0, t.finish_us - t.end_us));
            last_end = t.end_us;
        }
    }

    // ---- Part 1: overhead sweep over the present core types (sorted) ----
    std::vector<std::uint16_t> present;
    for (std::uint16_t i = 0; i < pd.core_type_names.size(); ++i) {
        if (!pd.core_type_names[i].empty() &&
            std::any_of(tasks.begin(), tasks.end(), [&](const task& t) { return t.core_type == i; })) {
            present.push_back(i);
        }
    }
    std::sort(present.begin(), present.end(),
              [&](std::uint16_t a, std::uint16_t b) { return pd.core_type_names[a] < pd.core_type_names[b]; });
    overhead_sweep sweep;
    const auto k_all = cores_per_type(pd);
    sweep.types = present;
    for (const auto ty : present) sweep.k.push_back(k_all[ty]);
    sweep.w0 = w0;
    sweep.w1 = w1;
    std::vector<double> overhead_by_type(present.size(), 0.0);
    double all_overhead = 0.0, has_overhead = 0.0;
    std::vector<double> step_times;                        // ready step function: breakpoints ...
    std::vector<std::vector<std::int64_t>> step_ready(present.size());  // ... and ready counts per type
    sweep.run(pd, deps, [&](double a, double b, const auto& running, const auto& ready) {
        step_times.push_back(a);
        for (std::size_t i = 0; i < present.size(); ++i) step_ready[i].push_back(ready[i]);
        const double length = b - a;
        if (length <= 0) return;
        bool all = !present.empty(), any_work = false, work_idle = true;
        for (std::size_t i = 0; i < present.size(); ++i) {
            const bool idle = sweep.k[i] - running[i] > 0;
            const bool ov = idle && ready[i] > 0;
            if (ov) overhead_by_type[i] += length;
            all = all && ov;
            if (ready[i] > 0) {
                any_work = true;
                work_idle = work_idle && idle;
            }
        }
        if (all) all_overhead += length;
        if (any_work && work_idle) has_overhead += length;
    });
    auto ready_at = [&](std::size_t slot, double t) -> std::int64_t {
        if (step_times.empty() || t < step_times.front()) return 0;
        const auto idx = std::upper_bound(step_times.begin(), step_times.end(), t) - step_times.begin() - 1;
        return step_ready[slot][static_cast<std::size_t>(idx)];
    };

    // ---- Part 2: aicore switch per core ----
    struct core_switch {
        std::uint32_t core;
        std::uint16_t type;
        double total;
    };
    std::vector<core_switch> per_core;
    std::vector<std::vector<double>> events(pd.core_type_names.size());
    std::vector<std::pair<double, double>> split(pd.core_type_names.size(), {0.0, 0.0});
    for (std::size_t c = 0; c < core_order.size(); ++c) {
        std::vector<std::uint32_t> rows = rows_by_core[c];
        // (start, end, dispatch) tuple order.
        std::sort(rows.begin(), rows.end(), [&](std::uint32_t a, std::uint32_t b) {
            const task& x = tasks[a];
            const task& y = tasks[b];
            if (x.start_us != y.start_us) return x.start_us < y.start_us;
            if (x.end_us != y.end_us) return x.end_us < y.end_us;
            return x.dispatch_us < y.dispatch_us;
        });
        const auto first_row = std::find_if(tasks.begin(), tasks.end(), [&](const task& t) { return t.core_id == core_order[c]; });
        const std::uint16_t ty = first_row->core_type;
        const auto slot_it = std::find(present.begin(), present.end(), ty);
        double total = 0.0;
        for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
            const double a_end = tasks[rows[i]].end_us;
            const double b_start = tasks[rows[i + 1]].start_us;
            const double b_disp = tasks[rows[i + 1]].dispatch_us;
            const double gap = std::min(b_start, w1) - std::max(a_end, w0);
            if (gap <= 0 || !(b_disp < a_end)) continue;
            total += gap;
            events[ty].push_back(gap);
            const double ga = std::max(a_end, w0), gb = std::min(b_start, w1);
            if (slot_it == present.end()) {  // untracked type: never "during overhead"
                split[ty].second += gb - ga;
                continue;
            }
            const auto slot = static_cast<std::size_t>(slot_it - present.begin());
            std::vector<double> pts{ga};
            for (auto it = std::upper_bound(step_times.begin(), step_times.end(), ga);
                 it != step_times.end() && *it < gb; ++it) {
                pts.push_back(*it);
            }
            pts.push_back(gb);
            for (std::size_t j = 0; j + 1 < pts.size(); ++j) {
                if (ready_at(slot, pts[j]) > 0) {
                    split[ty].first += pts[j + 1] - pts[j];
                } else {
                    split[ty].second += pts[j + 1] - pts[j];
                }
            }
        }
        per_core.push_back({core_order[c], ty, total});
    }

    // ---- print Parts 1-4 ----
    const double all_pct = pct(all_overhead, window);
    const double has_pct = pct(has_overhead, window);
    std::string verdict;
    if (has_pct >= 25) {
        verdict = "SCHEDULER-BOUND — a free core has ready, undispatched work for much of the makespan.";
    } else if (has_pct >= 8) {
        verdict = fmt::format("PARTIALLY SCHEDULER-LIMITED — overhead {:.0f}% of the makespan; the rest is compute + "
                              "dependency-limited parallelism.",
                              has_pct);
    } else {
        verdict = "COMPUTE/DEPENDENCY-BOUND — little reducible scheduler overhead.";
    }
    fmt::print(out, "\n{0}\nPart 1: Overhead verdict  (idle core + ready, undispatched work — share of makespan)\n{0}\n",
               rule90);
    fmt::print(out, "  Total tasks: {}   window: {:.1f} us  (first start -> last end)\n", tasks.size(), window);
    std::string per_engine;
    for (std::size_t i = 0; i < present.size(); ++i) {
        if (i) per_engine += "  ";
        per_engine += fmt::format("{} {:.1f}%", engine_label(pd.core_type_names[present[i]]),
                                  pct(overhead_by_type[i], window));
    }
    fmt::print(out, "  Per-engine overhead: {}\n", per_engine);
    fmt::print(out,
               "  System: all_overhead {:.1f}% (every engine blocked)  |  has_overhead {:.1f}% (every working engine "
               "starved)\n",
               all_pct, has_pct);
    fmt::print(out, "  overhead(T) = idle T-core AND a ready, undispatched T-task (a MIX task counts for both).\n");
    fmt::print(out, "  An engine with no ready work is NOT overhead — its idle is dependency-mandated progress.\n");
    fmt::print(out, "  -> {}\n\n", verdict);

    fmt::print(out, "{0}\nPart 2: aicore switch  (gap [prev_end, start] when dispatch < prev_end; PER CORE)\n{0}\n", rule90);
    fmt::print(out,
               "  Each switch is the core picking up an already-dispatched task (~sub-us). Reported\n"
               "  per core (NOT summed over cores — switches overlap). A switch is 'overhead' when the\n"
               "  engine has other ready work that instant, else 'independent'. makespan bound:\n"
               "  lower = min over all cores, upper = sum of per-engine minima.\n\n");
    constexpr auto s_fmt = "  {:<10} {:>6} {:>10} {:>10} {:>10} {:>9} {:>9}\n";
    fmt::print(out, s_fmt, "Engine", "Cores", "min/core", "mean/core", "max/core", "n events", "us/event");
    fmt::print(out, "  {}\n", std::string(74, '-'));
    std::vector<double> type_min;
    for (const auto ty : present) {
        std::vector<double> pcs;
        for (const auto& c : per_core) {
            if (c.type == ty) pcs.push_back(c.total);
        }
        if (pcs.empty()) continue;
        const auto& evs = events[ty];
        double sum = 0.0, ev_sum = 0.0;
        for (const double v : pcs) sum += v;
        for (const double v : evs) ev_sum += v;
        const double mn = *std::min_element(pcs.begin(), pcs.end());
        const double mx = *std::max_element(pcs.begin(), pcs.end());
        type_min.push_back(mn);
        fmt::print(out, s_fmt, engine_label(pd.core_type_names[ty]), pcs.size(), fmt::format("{:.1f}us", mn),
                   fmt::format("{:.1f}us", sum / static_cast<double>(pcs.size())), fmt::format("{:.1f}us", mx),
                   evs.size(), fmt::format("{:.2f}us", evs.empty() ? 0.0 : ev_sum / static_cast<double>(evs.size())));
    }
    fmt::print(out, "\n");
    for (const auto ty : present) {
        const auto [ov, ind] = split[ty];
        const double tot = ov + ind;
        if (tot > 0) {
            fmt::print(out, "    {} switch split: {:.0f}% during overhead, {:.0f}% independent\n",
                       engine_label(pd.core_type_names[ty]), pct(ov, tot), pct(ind, tot));
        }
    }
    double lower = 0.0;
    if (!per_core.empty()) {
        lower = per_core.front().total;
        for (const auto& c : per_core) lower = std::min(lower, c.total);
    }
    double upper = 0.0;
    for (const double v : type_min) upper += v;
    fmt::print(out, "  makespan switch bound: [{:.2f}, {:.2f}] us  ({:.2f}% .. {:.2f}% of makespan)\n\n", lower, upper,
               pct(lower, window), pct(upper, window));

    fmt::print(out, "{0}\nPart 3: Head OH statistics & distribution\n{0}\n", rule90);
    fmt::print(out, "  head = min(start - dispatch, start - last_task_end) per task (clamped at 0)\n\n");
    print_distribution(out, "Head OH", heads);
    fmt::print(out, "\n{0}\nPart 4: Tail OH distribution\n{0}\n", rule90);
    fmt::print(out, "  tail = finish - end per task\n\n");
    print_distribution(out, "Tail OH", tails);
    fmt::print(out, "\n");

    // ---- Part 5: scheduler loop breakdown ----
    std::vector<thread_loop> threads;
    {
        // Logical tasks: each id goes to the thread owning the core of its
        // latest-finish row.
        std::map<std::int64_t, std::int64_t> logical_by_thread;
        bool any_attributed = false;
        for (const task_id_timing& f : ids) {
            std::optional<std::pair<double, std::int64_t>> best;
            for (std::uint32_t r = f.first_row; r < f.first_row + f.rows; ++r) {
                const task& t = tasks[r];
                if (t.core_id >= pd.core_to_thread.size() || pd.core_to_thread[t.core_id] < 0) continue;
                if (!best || t.finish_us > best->first) best = {t.finish_us, pd.core_to_thread[t.core_id]};
            }
            if (best) {
                ++logical_by_thread[best->second];
                any_attributed = true;
            }
        }
        for (std::size_t th = 0; th < pd.sched.size(); ++th) {
            std::vector<const sched_record*> work;
            for (const auto& r : pd.sched[th]) {
                if (r.kind == phase_kind::complete || r.kind == phase_kind::async_poll || r.kind == phase_kind::dispatch) {
                    work.push_back(&r);
                }
            }
            if (work.empty()) continue;
            std::stable_sort(work.begin(), work.end(),
                             [](const sched_record* a, const sched_record* b) { return a->start_us < b->start_us; });
            thread_loop t;
            t.thread = static_cast<std::int64_t>(th);
            std::optional<double> prev_end;
            for (const sched_record* r : work) {
                if (prev_end && r->start_us > *prev_end) t.idle_us += r->start_us - *prev_end;
                const double dur = r->end_us - r->start_us;
                if (dur > 0) {
                    (r->kind == phase_kind::complete     ? t.complete_us
                     : r->kind == phase_kind::async_poll ? t.async_poll_us
                                                         : t.dispatch_us) += dur;
                }
                if (r->kind == phase_kind::complete) t.finishes += r->tasks_processed;
                if (r->kind == phase_kind::dispatch) {
                    t.pop_hit += r->pop_hit;
                    t.pop_miss += r->pop_miss;
                }
                t.loops = std::max(t.loops, r->loop_iter);
                if (!prev_end || r->end_us > *prev_end) prev_end = r->end_us;
            }
            t.total_us = t.complete_us + t.async_poll_us + t.dispatch_us + t.idle_us;
            t.completed = any_attributed ? logical_by_thread[t.thread] : t.finishes;
            threads.push_back(t);
        }
    }
    if (threads.empty()) {
        std::fflush(out);
        fmt::print(err,
                   "Error: No JSON phase data found (aicpu_scheduler_phases) — rerun with --enable-chip-swimlane at "
                   "level >= 3 so the scheduler phases are captured.\n");
        return 1;
    }
    // Fan-out / fan-in: unique edges, billed per unique task id (first row)
    // to the thread owning its core.
    {
        std::vector<std::uint64_t> seen;
        for (const task_id_timing& f : ids) {
            const task& t = tasks[f.first_row];
            if (t.core_id >= pd.core_to_thread.size() || pd.core_to_thread[t.core_id] < 0) continue;
            const std::int64_t th = pd.core_to_thread[t.core_id];
            auto it = std::find_if(threads.begin(), threads.end(), [&](const thread_loop& x) { return x.thread == th; });
            if (it == threads.end()) continue;
            auto [slo, shi] = deps.succs(f.id);
            auto [plo, phi] = deps.preds(f.id);
            const auto out_count = static_cast<std::int64_t>(shi - slo);
            const auto in_count = static_cast<std::int64_t>(phi - plo);
            it->fanout_edges += out_count;
            it->fanout_max = std::max(it->fanout_max, out_count);
            it->fanin_edges += in_count;
            it->fanin_max = std::max(it->fanin_max, in_count);
        }
    }
    double total_us = 0.0;
    int128 total_completed = 0, total_loops = 0, total_finishes = 0;
    for (const auto& t : threads) {
        total_us += t.total_us;
        total_completed += t.completed;
        total_loops += t.loops;
        total_finishes += t.finishes;
    }
    fmt::print(out, "{0}\nPart 5: AICPU scheduler loop breakdown\n  {1} scheduler threads\n{0}\n\n", rule90,
               threads.size());
    constexpr auto fmt2 = "  {:<10} {:>7} {:>10} {:>12} {:>11}\n";
    fmt::print(out, fmt2, "Thread", "Loops", "Tasks", "ns/loop", "Total (us)");
    fmt::print(out, "  {}\n", std::string(54, '-'));
    for (const auto& t : threads) {
        const double ns = t.loops ? t.total_us * 1000 / static_cast<double>(t.loops) : 0.0;
        fmt::print(out, fmt2, fmt::format("T{}", t.thread), t.loops, to_decimal(t.completed), fmt::format("{:.0f}", ns),
                   fmt::format("{:.1f}", t.total_us));
    }
    const double avg_loop_us = total_loops > 0 ? total_us / static_cast<double>(total_loops) : 0.0;
    fmt::print(out, fmt2, "SUM", to_decimal(total_loops), to_decimal(total_completed), fmt::format("{:.0f}", avg_loop_us * 1000),
               fmt::format("{:.1f}", total_us));
    fmt::print(out, "  FINs observed (Complete phase): {}\n\n", to_decimal(total_finishes));

    struct phase_row {
        const char* label;
        double total;
    };
    auto sum_of = [&](double thread_loop::*m) {
        double s = 0.0;
        for (const auto& t : threads) s += t.*m;
        return s;
    };
    const phase_row phases[] = {
        {"Complete (poll handshake, resolve deps)", sum_of(&thread_loop::complete_us)},
        {"AsyncPoll (async-wait completion: SDMA/RoCE/URMA/CCU)", sum_of(&thread_loop::async_poll_us)},
        {"Dispatch (pop queue, build payload, flush)", sum_of(&thread_loop::dispatch_us)},
        {"Idle (spinning, no progress — reconstructed from gaps)", sum_of(&thread_loop::idle_us)},
    };
    // Python pads by code points, fmt by display width: pad by hand for the
    // labels with multi-byte characters.
    auto pad = [](std::string_view s, std::size_t width) {
        std::size_t cps = 0;
        for (const char c : s) cps += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        return std::string(s) + std::string(cps < width ? width - cps : 0, ' ');
    };
    const std::string header = fmt::format("  {} {:>11} {:>10} {:>14}", pad("Phase (summed over threads)", 55),
                                           "Total (us)", "% of total", "Avg/task (us)");
    fmt::print(out, "{}\n  {}\n", header, std::string(header.size() - 2, '-'));
    for (const auto& p : phases) {
        fmt::print(out, "  {} {:>11} {:>10} {:>14}\n", pad(p.label, 55), fmt::format("{:.1f}", p.total),
                   fmt::format("{:.1f}%", pct(p.total, total_us)),
                   fmt::format("{:.2f}", total_completed > 0 ? p.total / static_cast<double>(total_completed) : 0.0));
    }
    fmt::print(out, "\n");
    std::int64_t fanout_edges = 0, fanout_max = 0, fanin_edges = 0, fanin_max = 0;
    int128 pop_hit = 0, pop_miss = 0;
    for (const auto& t : threads) {
        fanout_edges += t.fanout_edges;
        fanout_max = std::max(fanout_max, t.fanout_max);
        fanin_edges += t.fanin_edges;
        fanin_max = std::max(fanin_max, t.fanin_max);
        pop_hit += t.pop_hit;
        pop_miss += t.pop_miss;
    }
    const double fanout_avg = total_completed > 0 ? static_cast<double>(fanout_edges) / static_cast<double>(total_completed) : 0.0;
    const double fanin_avg = total_completed > 0 ? static_cast<double>(fanin_edges) / static_cast<double>(total_completed) : 0.0;
    fmt::print(out, "  Fanout (notify consumers): total edges={}, max_degree={}, avg_degree={:.1f}\n", fanout_edges,
               fanout_max, fanout_avg);
    fmt::print(out, "  Fanin  (release producers): total edges={}, max_degree={}, avg_degree={:.1f}\n\n", fanin_edges,
               fanin_max, fanin_avg);
    const double pop_rate = pct(static_cast<double>(pop_hit), static_cast<double>(pop_hit + pop_miss));
    fmt::print(out, "  Pop: hit={}, miss={}, hit_rate={:.1f}%\n\n", to_decimal(pop_hit), to_decimal(pop_miss), pop_rate);

    double tail_sum = 0.0;
    for (const double v : tails) tail_sum += v;
    const double avg_tail = tail_sum / static_cast<double>(tails.size());
    const double avg_loop_ns = avg_loop_us * 1000;
    const double loop_ratio = avg_loop_us > 0 ? avg_tail / avg_loop_us : 0.0;
    fmt::print(out, "  Avg scheduler loop iteration: {:.0f} ns (approx avg polling interval per loop)\n\n", avg_loop_ns);
    fmt::print(out, "  Avg Tail OH = {:.1f} us ~= {:.1f} x avg loop iteration ({:.0f} ns)\n", avg_tail, loop_ratio,
               avg_loop_ns);
    fmt::print(out, "  -> On average, a completed task waits ~{:.1f} loop iterations before being detected\n\n",
               loop_ratio);

    // Dominant work phase (idle is not work); the first of equal maxima wins.
    std::size_t dominant = 0;
    for (std::size_t i = 1; i < 3; ++i) {
        if (phases[i].total > phases[dominant].total) dominant = i;
    }
    const std::string_view dom_label = phases[dominant].label;
    fmt::print(out, "  Key insight: {} phase consumes ~{:.0f}% of scheduler CPU.\n", dom_label.substr(0, dom_label.find(" (")),
               pct(phases[dominant].total, total_us));
    if (dominant == 2) {
        fmt::print(out, "  Pop hit_rate={:.1f}%: {}.\n", pop_rate,
                   pop_rate < 50 ? "low hit rate suggests ready queue often empty" : "good hit rate");
        fmt::print(out, "  Cache flush (dc cvac + dsb sy) is the dominant non-pop cost.\n");
    } else if (dominant == 0) {
        fmt::print(out, "  Fanout: avg_degree={:.1f}, max_degree={}.\n", fanout_avg, fanout_max);
        fmt::print(out, "  Fanin:  avg_degree={:.1f}, max_degree={}.\n", fanin_avg, fanin_max);
        std::fputs(fanin_edges > fanout_edges
                       ? "  Fanin traversal (release_producer + check_consumed) dominates the complete phase.\n"
                       : "  Fanout traversal and atomic ops dominate the complete phase.\n",
                   out);
    }
    fmt::print(out, "{}\n", rule90);

    // ---- Part 6: critical path ----
    // Start at the id with the latest finish; step to the producer with the
    // latest (end, id). A malformed graph with a cycle must not loop forever:
    // the walk stops after visiting every id once.
    fmt::print(out, "\n{0}\nPart 6: Critical-path latency attribution\n{0}\n", rule90);
    const task_id_timing* cur = &ids.front();
    for (const auto& f : ids) {
        if (f.finish > cur->finish) cur = &f;
    }
    const double makespan_end = cur->finish;
    double sched = 0.0, exec = 0.0;
    std::size_t hops = 0;
    double path_start = cur->start;
    for (std::size_t guard = 0; guard <= ids.size(); ++guard) {
        const task_id_timing* best = nullptr;
        auto [plo, phi] = deps.preds(cur->id);
        for (auto p = plo; p != phi; ++p) {
            const std::uint64_t pred = deps.edges[*p].pred;
            if (pred == cur->id) continue;
            const task_id_timing* pt = find_id(ids, pred);
            if (!pt) continue;
            if (!best || pt->end > best->end || (pt->end == best->end && pt->id > best->id)) best = pt;
        }
        exec += std::max(0.0, cur->end - cur->start);
        if (!best) {
            sched += std::max(0.0, cur->start - cur->dispatch);
            break;
        }
        sched += std::max(0.0, cur->start - best->end);
        ++hops;
        cur = best;
        path_start = std::min(path_start, cur->start);
    }
    const double span = makespan_end - path_start;
    if (span > 0) {
        fmt::print(out, "  Makespan-determining path: {} hops, span {:.1f} us\n", hops, span);
        fmt::print(out, "    Compute (exec) on path : {:.1f} us ({:.1f}%)\n", exec, exec / span * 100);
        fmt::print(out, "    Scheduler injected     : {:.1f} us ({:.1f}%)\n", sched, sched / span * 100);
        fmt::print(out, "    Other (dep wait on path): {:.1f} us\n", std::max(0.0, span - exec - sched));
        fmt::print(out, "  -> scheduler adds ~{:.1f}% to the critical path's end-to-end latency.\n", sched / span * 100);
    } else {
        fmt::print(out, "  (could not resolve a critical path from the DAG)\n");
    }
    fmt::print(out, "{}\n", rule90);
    return 0;
}

}  // namespace dfx::convert::swimlane
