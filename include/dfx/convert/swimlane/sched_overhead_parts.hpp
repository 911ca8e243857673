// sched_overhead_parts: the numbers behind `dfx sched-overhead` (spec
// chip-swimlane.md §5), one result struct and one compute function per part
// of the report; sched_overhead.hpp prints them.
//
//   Part 1    overhead_verdict     per engine, time a core of that type is idle
//                                  while a ready task of that type waits
//   Part 2    switch_stats         per-core gaps where the next task was
//                                  already dispatched before the previous ended
//   Part 3/4  head_tail            head / tail overhead per task
//   Part 5    loop_breakdown       scheduler loop phases per thread (level >= 3
//                                  records), fan-out / fan-in from deps.json
//   Part 6    critical_path_share  compute vs scheduler-injected time on the path
//
//   const sched_overhead_report r = compute_sched_overhead(pd, deps);  // tasks not empty
//   ... compute_sched_overhead(pd, std::move(deps));  // the graph freed once read
//
// Everything is O(n log n) in the number of task rows and phase records (the
// reference's switch split and dispatch vote are quadratic); every sum is
// taken in the reference's order, so the printed numbers match it digit for
// digit.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "dfx/convert/common/json_value.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/overhead_model.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/sweep_breakpoints.hpp"

namespace dfx::convert::swimlane {

// First start -> last end over all task rows.
struct task_window {
    double w0 = 0, w1 = 0;
    [[nodiscard]] double length() const { return w1 - w0; }
};

// Task rows per core, cores in order of first appearance (the reference's
// dict order), rows by start (stably).
struct rows_per_core {
    std::vector<std::uint32_t> cores;
    std::vector<std::vector<std::uint32_t>> rows;
};

struct overhead_verdict {                   // Part 1
    std::vector<std::uint16_t> present;     // swept core types, by name
    std::vector<double> overhead_by_type;   // per present type: time in overhead
    double all_overhead = 0.0;              // every engine blocked
    double has_overhead = 0.0;              // every working engine starved
    // The sweep's sorted events, kept for Part 2 (any_ready_at and the
    // breakpoints inside a switch gap); empty unless asked for.
    sweep_breakpoints steps;

    [[nodiscard]] bool any_ready_at(std::size_t slot, double t) const { return steps.any_ready_at(slot, t); }
};

// Part 1's verdict from has_overhead as a share of the makespan: the
// reference's thresholds (25 % and 8 %), named once so `dfx sched-overhead`
// and `dfx report` cannot disagree on what "scheduler-bound" means.
enum class overhead_class { scheduler_bound, partially_scheduler_limited, compute_or_dependency_bound };

inline constexpr double scheduler_bound_pct = 25.0;
inline constexpr double partially_limited_pct = 8.0;

constexpr overhead_class classify_overhead(double has_overhead_pct) noexcept {
    if (has_overhead_pct >= scheduler_bound_pct) return overhead_class::scheduler_bound;
    if (has_overhead_pct >= partially_limited_pct) return overhead_class::partially_scheduler_limited;
    return overhead_class::compute_or_dependency_bound;
}
static_assert(classify_overhead(25.0) == overhead_class::scheduler_bound &&
              classify_overhead(7.99) == overhead_class::compute_or_dependency_bound);

struct switch_stats {  // Part 2
    struct core_switch {
        std::uint32_t core;
        std::uint16_t type;
        double total;
    };
    std::vector<core_switch> per_core;
    std::vector<std::vector<double>> events;       // per core type: each switch gap
    std::vector<std::pair<double, double>> split;  // per core type: (during overhead, independent)
};

// Part 2 as printed: per present core type, its cores' switch totals and
// events summed up, and the makespan bound. Computed once for the text and
// the json/csv outputs (summarise_switches).
struct switch_summary {
    struct engine {
        std::uint16_t type;
        std::size_t cores, events;
        double min_per_core, mean_per_core, max_per_core, mean_per_event;
        double during_overhead, independent;  // summed switch time of each kind
    };
    std::vector<engine> engines;  // present types with at least one core, in `present` order
    double bound_lower = 0.0;     // min over all cores
    double bound_upper = 0.0;     // sum of the per-engine minima
};

struct head_tail {  // Parts 3 and 4
    std::vector<double> heads, tails;
};

// One scheduler thread's loop (Part 5). Sums of recorded counters are
// 128-bit: any int64 a file holds adds up without overflow, to the exact
// total the reference (Python ints) prints.
struct thread_loop {
    std::int64_t thread = 0;
    double complete_us = 0, async_poll_us = 0, dispatch_us = 0, idle_us = 0;
    double total_us = 0;
    int128 finishes = 0;
    std::int64_t loops = 0;
    int128 pop_hit = 0, pop_miss = 0;
    int128 completed = 0;  // logical tasks attributed to this thread
    std::int64_t fanout_edges = 0, fanout_max = 0, fanin_edges = 0, fanin_max = 0;
};

struct loop_breakdown {  // Part 5; empty `threads`: no phase records
    std::vector<thread_loop> threads;
    // Over all threads, in thread order.
    double total_us = 0.0;
    int128 total_completed = 0, total_loops = 0, total_finishes = 0;
    double complete_us = 0, async_poll_us = 0, dispatch_us = 0, idle_us = 0;
    std::int64_t fanout_edges = 0, fanout_max = 0, fanin_edges = 0, fanin_max = 0;
    int128 pop_hit = 0, pop_miss = 0;

    [[nodiscard]] double avg_loop_us() const {
        return total_loops > 0 ? total_us / static_cast<double>(total_loops) : 0.0;
    }
    [[nodiscard]] double per_completed(double x) const {
        return total_completed > 0 ? x / static_cast<double>(total_completed) : 0.0;
    }
};

struct critical_path_share {  // Part 6
    std::size_t hops = 0;
    double span = 0.0;   // makespan end - path start
    double exec = 0.0;   // compute on the path
    double sched = 0.0;  // scheduler-injected waits on the path
};

struct sched_overhead_report {
    task_window window;
    overhead_verdict verdict;
    switch_stats switches;
    head_tail head_tail_oh;
    loop_breakdown loops;
    critical_path_share path;
};

namespace sched_overhead_detail {

inline task_window window_of(const std::vector<task>& tasks) {
    task_window w{tasks.front().start_us, tasks.front().end_us};
    for (const task& t : tasks) {
        w.w0 = std::min(w.w0, t.start_us);
        w.w1 = std::max(w.w1, t.end_us);
    }
    return w;
}

inline rows_per_core rows_by_core(const std::vector<task>& tasks) {
    rows_per_core out;
    std::vector<std::uint32_t> seen;  // sorted
    for (const task& t : tasks) {
        auto it = std::lower_bound(seen.begin(), seen.end(), t.core_id);
        if (it != seen.end() && *it == t.core_id) continue;
        seen.insert(it, t.core_id);
        out.cores.push_back(t.core_id);
    }
    out.rows.resize(out.cores.size());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> slot;  // (core, index in cores)
    for (std::uint32_t i = 0; i < out.cores.size(); ++i) slot.emplace_back(out.cores[i], i);
    std::sort(slot.begin(), slot.end());
    auto index_of = [&](const task& t) {
        return std::lower_bound(slot.begin(), slot.end(), std::make_pair(t.core_id, std::uint32_t{0}))->second;
    };
    // Each core's list reserved exactly (counted first): no doubling's
    // second copy (4 bytes a row, 92 MB at 10^7 tasks).
    std::vector<std::size_t> counts(out.cores.size(), 0);
    for (const task& t : tasks) ++counts[index_of(t)];
    for (std::size_t c = 0; c < counts.size(); ++c) out.rows[c].reserve(counts[c]);
    for (std::uint32_t r = 0; r < tasks.size(); ++r) out.rows[index_of(tasks[r])].push_back(r);
    for (auto& rows : out.rows) {
        std::stable_sort(rows.begin(), rows.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return tasks[a].start_us < tasks[b].start_us; });
    }
    return out;
}

// head = min(start - dispatch, start - previous end on the core), tail =
// finish - end; both clamped at 0.
inline head_tail head_tail_of(const std::vector<task>& tasks, const rows_per_core& by_core) {
    head_tail out;
    out.heads.reserve(tasks.size());  // a value per row (each row is on one core): no doubling
    out.tails.reserve(tasks.size());
    for (const auto& rows : by_core.rows) {
        std::optional<double> last_end;
        for (const std::uint32_t r : rows) {
            const task& t = tasks[r];
            double head = t.start_us - t.dispatch_us;
            if (last_end) head = std::min(head, t.start_us - *last_end);
            out.heads.push_back(std::max(0.0, head));
            out.tails.push_back(std::max(0.0, t.finish_us - t.end_us));
            last_end = t.end_us;
        }
    }
    return out;
}

// Part 1 with the sweep's events from `events(sweep)`.
template <class Events>
overhead_verdict verdict_of(const perf_data& pd, const task_window& w, bool keep_steps, Events&& events) {
    const std::vector<task>& tasks = pd.tasks;
    overhead_verdict v;
    for (std::uint16_t i = 0; i < pd.core_type_names.size(); ++i) {
        if (!pd.core_type_names[i].empty() &&
            std::any_of(tasks.begin(), tasks.end(), [&](const task& t) { return t.core_type == i; })) {
            v.present.push_back(i);
        }
    }
    std::sort(v.present.begin(), v.present.end(),
              [&](std::uint16_t a, std::uint16_t b) { return pd.core_type_names[a] < pd.core_type_names[b]; });
    overhead_sweep sweep;
    const auto k_all = cores_per_type(pd);
    sweep.types = v.present;
    for (const auto ty : v.present) sweep.k.push_back(k_all[ty]);
    sweep.w0 = w.w0;
    sweep.w1 = w.w1;
    v.overhead_by_type.assign(v.present.size(), 0.0);
    auto segment = [&](double a, double b, const auto& running, const auto& ready) {
        const double length = b - a;
        if (length <= 0) return;
        bool all = !v.present.empty(), any_work = false, work_idle = true;
        for (std::size_t i = 0; i < v.present.size(); ++i) {
            const bool idle = sweep.k[i] - running[i] > 0;
            const bool ov = idle && ready[i] > 0;
            if (ov) v.overhead_by_type[i] += length;
            all = all && ov;
            if (ready[i] > 0) {
                any_work = true;
                work_idle = work_idle && idle;
            }
        }
        if (all) v.all_overhead += length;
        if (any_work && work_idle) v.has_overhead += length;
    };
    if (!keep_steps) {
        events(sweep).walk(segment);
        return v;
    }
    v.steps = events(sweep);
    v.steps.walk(segment);
    return v;
}

}  // namespace sched_overhead_detail

// Part 1: the overhead sweep over the core types present (sorted by name).
// `keep_steps`: also keep the sweep's events (Part 2 reads them through
// any_ready_at); `dfx report` needs the totals only, and the events are two
// 8-byte times per task row and per ready task and type (about 65 MB at
// 10^6 tasks). `ids` and `ready`: task_id_index(pd.tasks) and
// ready_times(deps, ids) (overhead_model.hpp), all the sweep reads of the
// graph.
inline overhead_verdict compute_overhead_verdict(const perf_data& pd, const task_id_index& ids,
                                                 const std::vector<double>& ready, const task_window& w,
                                                 bool keep_steps = true) {
    return sched_overhead_detail::verdict_of(pd, w, keep_steps, [&](const overhead_sweep& sweep) {
        return sweep.breakpoints(pd, ids, ready);
    });
}

// The same, freeing `ids` and `ready` as soon as the sweep has read them
// (overhead_sweep::breakpoints): `dfx sched-overhead`'s.
inline overhead_verdict compute_overhead_verdict(const perf_data& pd, task_id_index&& ids, std::vector<double>&& ready,
                                                 const task_window& w, bool keep_steps = true) {
    return sched_overhead_detail::verdict_of(pd, w, keep_steps, [&](const overhead_sweep& sweep) {
        return sweep.breakpoints(pd, std::move(ids), std::move(ready));
    });
}

// The same from the graph.
inline overhead_verdict compute_overhead_verdict(const perf_data& pd, const deps_graph& deps, const task_window& w,
                                                 bool keep_steps = true) {
    const task_id_index ids(pd.tasks);
    return compute_overhead_verdict(pd, ids, ready_times(deps, ids), w, keep_steps);
}

// Part 2: per core, the gaps [previous end, start] (clipped to the window)
// where the next task was dispatched before the previous one ended; each
// gap split by whether its engine had other ready work at the time.
inline switch_stats compute_switches(const perf_data& pd, const rows_per_core& by_core, const task_window& w,
                                     const overhead_verdict& v) {
    const std::vector<task>& tasks = pd.tasks;
    switch_stats s;
    s.events.resize(pd.core_type_names.size());
    s.split.assign(pd.core_type_names.size(), {0.0, 0.0});
    std::vector<double> pts;  // a gap's pieces: its ends and the breakpoints inside
    for (std::size_t c = 0; c < by_core.cores.size(); ++c) {
        std::vector<std::uint32_t> rows = by_core.rows[c];
        // (start, end, dispatch) tuple order.
        std::sort(rows.begin(), rows.end(), [&](std::uint32_t a, std::uint32_t b) {
            const task& x = tasks[a];
            const task& y = tasks[b];
            if (x.start_us != y.start_us) return x.start_us < y.start_us;
            if (x.end_us != y.end_us) return x.end_us < y.end_us;
            return x.dispatch_us < y.dispatch_us;
        });
        const auto first_row =
            std::find_if(tasks.begin(), tasks.end(), [&](const task& t) { return t.core_id == by_core.cores[c]; });
        const std::uint16_t ty = first_row->core_type;
        const auto slot_it = std::find(v.present.begin(), v.present.end(), ty);
        double total = 0.0;
        for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
            const double a_end = tasks[rows[i]].end_us;
            const double b_start = tasks[rows[i + 1]].start_us;
            const double b_disp = tasks[rows[i + 1]].dispatch_us;
            const double gap = std::min(b_start, w.w1) - std::max(a_end, w.w0);
            if (gap <= 0 || !(b_disp < a_end)) continue;
            total += gap;
            s.events[ty].push_back(gap);
            const double ga = std::max(a_end, w.w0), gb = std::min(b_start, w.w1);
            if (slot_it == v.present.end()) {  // untracked type: never "during overhead"
                s.split[ty].second += gb - ga;
                continue;
            }
            const auto slot = static_cast<std::size_t>(slot_it - v.present.begin());
            pts.assign(1, ga);
            v.steps.breakpoints_between(ga, gb, pts);
            pts.push_back(gb);
            for (std::size_t j = 0; j + 1 < pts.size(); ++j) {
                (v.any_ready_at(slot, pts[j]) ? s.split[ty].first : s.split[ty].second) += pts[j + 1] - pts[j];
            }
        }
        s.per_core.push_back({by_core.cores[c], ty, total});
    }
    return s;
}

inline switch_summary summarise_switches(const switch_stats& s, const std::vector<std::uint16_t>& present) {
    switch_summary out;
    for (const auto ty : present) {
        std::vector<double> pcs;
        for (const auto& c : s.per_core)
            if (c.type == ty) pcs.push_back(c.total);
        if (pcs.empty()) continue;
        const auto& evs = s.events[ty];
        double sum = 0.0, ev_sum = 0.0;
        for (const double x : pcs) sum += x;
        for (const double x : evs) ev_sum += x;
        const double mn = *std::min_element(pcs.begin(), pcs.end());
        out.engines.push_back({ty, pcs.size(), evs.size(), mn, sum / static_cast<double>(pcs.size()),
                               *std::max_element(pcs.begin(), pcs.end()),
                               evs.empty() ? 0.0 : ev_sum / static_cast<double>(evs.size()), s.split[ty].first,
                               s.split[ty].second});
        out.bound_upper += mn;
    }
    if (!s.per_core.empty()) {
        out.bound_lower = s.per_core.front().total;
        for (const auto& c : s.per_core) out.bound_lower = std::min(out.bound_lower, c.total);
    }
    return out;
}

namespace sched_overhead_detail {

// Logical tasks per scheduler thread: each id goes to the thread owning the
// core of its latest-finish row. Empty when no row's core has a thread.
inline std::map<std::int64_t, std::int64_t> logical_tasks_by_thread(const perf_data& pd,
                                                                     const task_id_index& ids) {
    std::map<std::int64_t, std::int64_t> by_thread;
    for (const task_id_timing& f : ids) {
        std::optional<std::pair<double, std::int64_t>> best;
        for (std::uint32_t r = f.first_row; r < f.first_row + f.rows; ++r) {
            const task& t = pd.tasks[r];
            if (t.core_id >= pd.core_to_thread.size() || pd.core_to_thread[t.core_id] < 0) continue;
            if (!best || t.finish_us > best->first) best = {t.finish_us, pd.core_to_thread[t.core_id]};
        }
        if (best) ++by_thread[best->second];
    }
    return by_thread;
}

// One thread's complete / async-poll / dispatch phases by start; idle is the
// gaps between them (sum_work_phases, perf_data.hpp: load_perf_data summed a
// compact lane already). The counters were summed as the lane was read.
inline std::optional<thread_loop> loop_of_thread(loop_lane lane, const device_clock& clock, std::size_t th) {
    if (!lane.sums && lane.phases.empty()) return std::nullopt;
    const loop_sums sums = lane.sums ? *lane.sums : sum_work_phases(lane.phases, clock);
    thread_loop t;
    t.thread = static_cast<std::int64_t>(th);
    t.complete_us = sums.complete_us;
    t.async_poll_us = sums.async_poll_us;
    t.dispatch_us = sums.dispatch_us;
    t.idle_us = sums.idle_us;
    t.finishes = lane.finishes;
    t.pop_hit = lane.pop_hit;
    t.pop_miss = lane.pop_miss;
    t.loops = lane.loops;
    t.total_us = t.complete_us + t.async_poll_us + t.dispatch_us + t.idle_us;
    return t;
}

// Fan-out / fan-in: unique edges, billed per unique task id (first row) to
// the thread owning its core.
inline void add_fan_degrees(const perf_data& pd, const deps_graph& deps, const task_id_index& ids,
                            std::vector<thread_loop>& threads) {
    for (const task_id_timing& f : ids) {
        const task& t = pd.tasks[f.first_row];
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

inline void add_totals(loop_breakdown& b) {
    for (const auto& t : b.threads) {
        b.total_us += t.total_us;
        b.total_completed += t.completed;
        b.total_loops += t.loops;
        b.total_finishes += t.finishes;
    }
    for (const auto& t : b.threads) b.complete_us += t.complete_us;
    for (const auto& t : b.threads) b.async_poll_us += t.async_poll_us;
    for (const auto& t : b.threads) b.dispatch_us += t.dispatch_us;
    for (const auto& t : b.threads) b.idle_us += t.idle_us;
    for (const auto& t : b.threads) {
        b.fanout_edges += t.fanout_edges;
        b.fanout_max = std::max(b.fanout_max, t.fanout_max);
        b.fanin_edges += t.fanin_edges;
        b.fanin_max = std::max(b.fanin_max, t.fanin_max);
        b.pop_hit += t.pop_hit;
        b.pop_miss += t.pop_miss;
    }
}

}  // namespace sched_overhead_detail

// Part 5's loop of every scheduler thread with phase records, before the
// tasks are attributed to them: `dfx sched-overhead` takes it right after
// reading and frees the phases (pd.loop), which would otherwise sit beside
// the sweep at its peak.
inline std::vector<thread_loop> thread_loops(const perf_data& pd) {
    using namespace sched_overhead_detail;
    std::vector<thread_loop> out;
    // The lanes as read with phase_records::loop, or else built from the full records.
    const std::size_t lanes = pd.loop.empty() ? pd.sched.size() : pd.loop.size();
    for (std::size_t th = 0; th < lanes; ++th) {
        std::optional<thread_loop> t;
        if (!pd.loop.empty()) {
            t = loop_of_thread(pd.loop[th], pd.clock, th);
        } else {
            t = loop_of_thread(pd.sched[th].loop(), pd.clock, th);
        }
        if (t) out.push_back(*t);
    }
    return out;
}

// Part 5: the scheduler loop per thread with phase records. A thread's
// completed tasks are the logical tasks attributed to it, or without any
// attribution the finishes its complete phases counted. `loops`:
// thread_loops(pd) when taken already.
inline loop_breakdown compute_loop_breakdown(const perf_data& pd, const deps_graph& deps,
                                             const task_id_index& ids,
                                             const std::vector<thread_loop>* loops = nullptr) {
    using namespace sched_overhead_detail;
    loop_breakdown b;
    auto logical = logical_tasks_by_thread(pd, ids);
    const bool any_attributed = !logical.empty();
    b.threads = loops ? *loops : thread_loops(pd);
    for (thread_loop& t : b.threads) t.completed = any_attributed ? logical[t.thread] : t.finishes;
    if (b.threads.empty()) return b;
    add_fan_degrees(pd, deps, ids, b.threads);
    add_totals(b);
    return b;
}

// Part 6: start at the id with the latest finish; step to the producer with
// the latest (end, id). A malformed graph with a cycle must not loop
// forever: the walk stops after visiting every id once.
inline critical_path_share compute_critical_path(const deps_graph& deps, const task_id_index& ids) {
    critical_path_share p;
    if (ids.empty()) return p;
    task_id_timing cur = ids[0];
    for (const task_id_timing& f : ids) {
        if (f.finish > cur.finish) cur = f;
    }
    const double makespan_end = cur.finish;
    double path_start = cur.start;
    for (std::size_t guard = 0; guard <= ids.size(); ++guard) {
        std::optional<task_id_timing> best;
        auto [plo, phi] = deps.preds(cur.id);
        for (auto e = plo; e != phi; ++e) {
            const std::uint64_t pred = deps.edges[*e].pred;
            if (pred == cur.id) continue;
            const std::optional<task_id_timing> pt = ids.find(pred);
            if (!pt) continue;
            if (!best || pt->end > best->end || (pt->end == best->end && pt->id > best->id)) best = pt;
        }
        p.exec += std::max(0.0, cur.end - cur.start);
        if (!best) {
            p.sched += std::max(0.0, cur.start - cur.dispatch);
            break;
        }
        p.sched += std::max(0.0, cur.start - best->end);
        ++p.hops;
        cur = *best;
        path_start = std::min(path_start, cur.start);
    }
    p.span = makespan_end - path_start;
    return p;
}

namespace sched_overhead_detail {

// `spent`: the graph `deps` itself, to free once it has been read (before
// the sweep, the analysis's peak), or nullptr to leave it.
inline sched_overhead_report compute_all(const perf_data& pd, const deps_graph& deps, deps_graph* spent,
                                         const std::vector<thread_loop>* loops) {
    sched_overhead_report r;
    r.window = window_of(pd.tasks);
    {
        task_id_index ids(pd.tasks);
        // What the graph says first: Part 5's fan degrees, Part 6's path and
        // each id's ready time. At 10^7 tasks the graph is 440 MB (20
        // million edges and both indexes) and the ready times 80 MB.
        r.loops = compute_loop_breakdown(pd, deps, ids, loops);
        r.path = compute_critical_path(deps, ids);
        std::vector<double> ready = ready_times(deps, ids);
        if (spent != nullptr) *spent = deps_graph{};  // (`deps` is not read again)
        // Then in the order that holds least at once: the sweep's events
        // (about 24 bytes a task row) live from Part 1 to Part 2, the rows
        // per core from Part 2 to Parts 3/4, whose head / tail values (16
        // bytes a row) come last.
        r.verdict = compute_overhead_verdict(pd, std::move(ids), std::move(ready), r.window, true);
    }
    const rows_per_core by_core = rows_by_core(pd.tasks);
    r.switches = compute_switches(pd, by_core, r.window, r.verdict);
    r.verdict.steps = sweep_breakpoints{};  // Part 2 was their last reader
    r.head_tail_oh = head_tail_of(pd.tasks, by_core);
    return r;
}

}  // namespace sched_overhead_detail

// Every part's numbers; `pd.tasks` must not be empty. `loops`:
// thread_loops(pd), when taken before pd.loop was freed.
inline sched_overhead_report compute_sched_overhead(const perf_data& pd, const deps_graph& deps,
                                                    const std::vector<thread_loop>* loops = nullptr) {
    return sched_overhead_detail::compute_all(pd, deps, nullptr, loops);
}

// The same, freeing the graph as soon as it has been read: `dfx
// sched-overhead`'s (it needs the graph for nothing else).
inline sched_overhead_report compute_sched_overhead(const perf_data& pd, deps_graph&& deps,
                                                    const std::vector<thread_loop>* loops = nullptr) {
    return sched_overhead_detail::compute_all(pd, deps, &deps, loops);
}

}  // namespace dfx::convert::swimlane
