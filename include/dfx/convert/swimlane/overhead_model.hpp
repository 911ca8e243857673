// overhead_model: the scheduler-overhead sweep (docs/dfx/sched-overhead-model.md
// of the reference; spec chip-swimlane.md §5), shared by the trace's
// --overhead counter tracks and `dfx sched-overhead`.
//
// For each core type T (k_T distinct cores), at every instant:
//   running_T = tasks of type T executing ([start, end));
//   ready_T   = tasks of type T whose producers have ended but that are not
//               yet dispatched ([ready, dispatch)); a task with rows on
//               several types (MIX) is ready work for each of them;
//   overhead_T <=> k_T - running_T > 0 and ready_T > 0.
// ready(T) = max end of its producers present in the perf set, else its own
// (earliest) dispatch. Everything is clamped to the window [first start,
// last end]. The sweep visits the sorted distinct breakpoints and calls back
// once per segment [a, b) with the counts in force: O(n log n). The events
// are 8-byte times in sorted arrays (sweep_breakpoints.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/sweep_breakpoints.hpp"

namespace dfx::convert::swimlane {

// Per task id: earliest dispatch, latest end, the core types of its rows and
// the latest end of its producers present in the perf set. Tasks are sorted
// by id, so ids are the runs of equal task_id.
struct task_id_timing {
    std::uint64_t id = 0;
    std::uint32_t first_row = 0;
    std::uint32_t rows = 0;
    double dispatch = 0.0;  // min over rows
    double start = 0.0;     // min over rows
    double end = 0.0;       // max over rows
    double finish = 0.0;    // max over rows
};

inline std::vector<task_id_timing> fold_task_ids(const std::vector<task>& tasks) {
    std::vector<task_id_timing> out;
    std::size_t distinct = 0;  // reserved exactly: growth by doubling held two copies at the peak
    for (std::size_t i = 0; i < tasks.size(); ++i) distinct += i == 0 || tasks[i].task_id != tasks[i - 1].task_id;
    out.reserve(distinct);
    for (std::uint32_t i = 0; i < tasks.size(); ++i) {
        const task& t = tasks[i];
        if (out.empty() || out.back().id != t.task_id) {
            out.push_back({t.task_id, i, 0, t.dispatch_us, t.start_us, t.end_us, t.finish_us});
        }
        task_id_timing& f = out.back();
        ++f.rows;
        f.dispatch = std::min(f.dispatch, t.dispatch_us);
        f.start = std::min(f.start, t.start_us);
        f.end = std::max(f.end, t.end_us);
        f.finish = std::max(f.finish, t.finish_us);
    }
    return out;
}

inline const task_id_timing* find_id(const std::vector<task_id_timing>& ids, std::uint64_t id) {
    auto it = std::lower_bound(ids.begin(), ids.end(), id,
                               [](const task_id_timing& t, std::uint64_t v) { return t.id < v; });
    return it != ids.end() && it->id == id ? &*it : nullptr;
}

// When each id (in `ids`' order) became ready: the latest end of its
// producers present in the perf set, else its own (earliest) dispatch. All
// the sweep reads of the task DAG, so that a caller can free the graph
// before the sweep (8 bytes an id against about 36 an edge).
inline std::vector<double> ready_times(const deps_graph& deps, const std::vector<task_id_timing>& ids) {
    std::vector<double> out;
    out.reserve(ids.size());
    for (const task_id_timing& f : ids) {
        bool any = false;
        double ready = 0.0;
        if (deps.edges_usable) {
            auto [lo, hi] = deps.preds(f.id);
            for (auto p = lo; p != hi; ++p) {
                const std::uint64_t pred = deps.edges[*p].pred;
                if (pred == f.id) continue;
                if (const task_id_timing* pt = find_id(ids, pred)) {
                    ready = any ? std::max(ready, pt->end) : pt->end;
                    any = true;
                }
            }
        }
        out.push_back(any ? ready : f.dispatch);
    }
    return out;
}

struct overhead_sweep {
    // Tracked core types (indices into perf_data::core_type_names), in output order.
    std::vector<std::uint16_t> types;
    std::vector<std::int64_t> k;  // distinct cores per tracked type
    double w0 = 0.0;
    double w1 = 0.0;

    // Calls seg(a, b, running, ready) for every consecutive pair of distinct
    // breakpoints a < b; running/ready are indexed like `types`.
    template <class Segment>
    void run(const perf_data& pd, const deps_graph& deps, Segment&& seg) const {
        run(pd, deps, fold_task_ids(pd.tasks), seg);
    }

    // The same with the tasks' fold_task_ids(pd.tasks), when the caller has it.
    template <class Segment>
    void run(const perf_data& pd, const deps_graph& deps, const std::vector<task_id_timing>& ids, Segment&& seg) const {
        breakpoints(pd, ids, ready_times(deps, ids)).walk(seg);
    }

    // The sweep's events, sorted (sweep_breakpoints.hpp): `dfx sched-overhead`
    // keeps them to ask, in Part 2, whether a type had ready work at a time.
    // `ready`: ready_times(deps, ids).
    [[nodiscard]] sweep_breakpoints breakpoints(const perf_data& pd, const std::vector<task_id_timing>& ids,
                                                const std::vector<double>& ready) const {
        const std::vector<task>& tasks = pd.tasks;
        auto slot_of = [&](std::uint16_t type) -> int {
            for (std::size_t i = 0; i < types.size(); ++i) {
                if (types[i] == type) return static_cast<int>(i);
            }
            return -1;
        };
        auto clamp = [&](double x) { return std::max(w0, std::min(x, w1)); };
        sweep_breakpoints out(w0, w1, types.size());
        // Reserved exactly (runs) or to a bound (ready: an id with a row of
        // the type; bare: an id with no tracked row), so that no array grows
        // by doubling: two copies of one at once were the sweep's peak.
        {
            std::vector<std::size_t> runs(types.size(), 0), readies(types.size(), 0);
            std::size_t bare = 0;
            for (const task& t : tasks) {
                const int slot = slot_of(t.core_type);
                if (slot >= 0 && clamp(t.end_us) > clamp(t.start_us)) ++runs[static_cast<std::size_t>(slot)];
            }
            std::vector<char> seen(types.size());
            for (const task_id_timing& f : ids) {
                std::fill(seen.begin(), seen.end(), 0);
                bool any = false;
                for (std::uint32_t i = f.first_row; i < f.first_row + f.rows; ++i) {
                    const int slot = slot_of(tasks[i].core_type);
                    if (slot >= 0 && !seen[static_cast<std::size_t>(slot)]) {
                        seen[static_cast<std::size_t>(slot)] = 1;
                        ++readies[static_cast<std::size_t>(slot)];
                        any = true;
                    }
                }
                bare += any ? 0 : 1;
            }
            for (std::size_t i = 0; i < types.size(); ++i) {
                out.reserve_run(i, runs[i]);
                out.reserve_ready(i, readies[i]);
            }
            out.reserve_bare(2 * bare);
        }
        for (const task& t : tasks) {
            const int slot = slot_of(t.core_type);
            if (slot < 0) continue;
            const double s = clamp(t.start_us);
            const double e = clamp(t.end_us);
            if (e > s) out.add_run(static_cast<std::size_t>(slot), s, e);
        }
        std::vector<int> id_slots;
        for (std::size_t k = 0; k < ids.size(); ++k) {
            const task_id_timing& f = ids[k];
            const double r = clamp(ready[k]);
            const double dd = clamp(f.dispatch);
            if (!(dd > r)) continue;
            id_slots.clear();
            for (std::uint32_t i = f.first_row; i < f.first_row + f.rows; ++i) {
                const int slot = slot_of(tasks[i].core_type);
                if (slot >= 0 && std::find(id_slots.begin(), id_slots.end(), slot) == id_slots.end()) {
                    id_slots.push_back(slot);
                }
            }
            for (const int slot : id_slots) out.add_ready(static_cast<std::size_t>(slot), r, dd);
            if (id_slots.empty()) {  // still breakpoints of the sweep
                out.add_bare(r);
                out.add_bare(dd);
            }
        }
        out.sort();
        return out;
    }
};

// Distinct cores per core type index.
inline std::vector<std::int64_t> cores_per_type(const perf_data& pd) {
    // (type, core) pairs, deduplicated whenever they outgrow twice what the
    // last pass kept: a few thousand entries at most, where a list of every
    // row's core was 4 bytes a row (and its doublings).
    std::vector<std::uint64_t> pairs;
    std::size_t kept = 0;
    auto dedupe = [&] {
        std::sort(pairs.begin(), pairs.end());
        pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
        kept = pairs.size();
    };
    for (const task& t : pd.tasks) {
        const std::uint64_t pair = std::uint64_t{t.core_type} << 32 | t.core_id;
        if (!pairs.empty() && pairs.back() == pair) continue;
        pairs.push_back(pair);
        if (pairs.size() >= 2 * std::max<std::size_t>(kept, 4096)) dedupe();
    }
    dedupe();
    std::vector<std::int64_t> k(pd.core_type_names.size(), 0);
    for (const std::uint64_t pair : pairs) ++k[pair >> 32];
    return k;
}

}  // namespace dfx::convert::swimlane
