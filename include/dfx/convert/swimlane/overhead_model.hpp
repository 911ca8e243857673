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
#include <optional>
#include <vector>

#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/sweep_breakpoints.hpp"

namespace dfx::convert::swimlane {

// One task id's rows folded: earliest dispatch and start, latest end and
// finish. Tasks are sorted by id, so an id's rows are a run of equal task_id.
struct task_id_timing {
    std::uint64_t id = 0;
    std::uint32_t first_row = 0;
    std::uint32_t rows = 0;
    double dispatch = 0.0;  // min over rows
    double start = 0.0;     // min over rows
    double end = 0.0;       // max over rows
    double finish = 0.0;    // max over rows
};

// The distinct task ids of a table sorted by id (perf_data::tasks), each
// folded from its rows when asked for. It keeps where each id's run starts,
// 4 bytes an id, where a table of the folds took 48: at 10^7 tasks 40 MB
// against 480 MB, which sat beside the tasks and the graph at
// sched-overhead's peak. An id has a few rows side by side, so a fold on
// demand costs little. It reads the table it was built from, which must
// outlive it unchanged.
//
//   const task_id_index ids(pd.tasks);
//   for (const task_id_timing& f : ids) use(f.id, f.end);
//   if (auto p = ids.find(pred)) use(p->end);
class task_id_index {
public:
    explicit task_id_index(const std::vector<task>& tasks) : tasks_(&tasks) {
        std::size_t distinct = 0;  // reserved exactly: growth by doubling held two copies
        for (std::size_t i = 0; i < tasks.size(); ++i) distinct += i == 0 || tasks[i].task_id != tasks[i - 1].task_id;
        starts_.reserve(distinct + 1);
        for (std::uint32_t i = 0; i < tasks.size(); ++i) {
            if (i == 0 || tasks[i].task_id != tasks[i - 1].task_id) starts_.push_back(i);
        }
        starts_.push_back(static_cast<std::uint32_t>(tasks.size()));  // the last run's end
    }
    // Not from a temporary table: the index reads the table it was built from.
    explicit task_id_index(std::vector<task>&&) = delete;

    // (Moved from, an index is empty.)
    [[nodiscard]] std::size_t size() const noexcept { return starts_.empty() ? 0 : starts_.size() - 1; }
    [[nodiscard]] bool empty() const noexcept { return size() == 0; }

    // The `i`-th id (in id order), folded.
    [[nodiscard]] task_id_timing operator[](std::size_t i) const noexcept {
        const std::vector<task>& tasks = *tasks_;
        const std::uint32_t first = starts_[i], last = starts_[i + 1];
        const task& t0 = tasks[first];
        task_id_timing f{t0.task_id, first, last - first, t0.dispatch_us, t0.start_us, t0.end_us, t0.finish_us};
        for (std::uint32_t r = first + 1; r < last; ++r) {
            const task& t = tasks[r];
            f.dispatch = std::min(f.dispatch, t.dispatch_us);
            f.start = std::min(f.start, t.start_us);
            f.end = std::max(f.end, t.end_us);
            f.finish = std::max(f.finish, t.finish_us);
        }
        return f;
    }

    // The id `id` folded, if the table has rows of it.
    [[nodiscard]] std::optional<task_id_timing> find(std::uint64_t id) const noexcept {
        if (empty()) return std::nullopt;
        const std::vector<task>& tasks = *tasks_;
        const auto last = starts_.end() - 1;
        auto it = std::lower_bound(starts_.begin(), last, id,
                                   [&](std::uint32_t row, std::uint64_t v) { return tasks[row].task_id < v; });
        if (it == last || tasks[*it].task_id != id) return std::nullopt;
        return (*this)[static_cast<std::size_t>(it - starts_.begin())];
    }

    // Visits the ids in order, each folded (a value, not a reference).
    class iterator {
    public:
        iterator(const task_id_index* ids, std::size_t i) noexcept : ids_(ids), i_(i) {}
        task_id_timing operator*() const noexcept { return (*ids_)[i_]; }
        iterator& operator++() noexcept {
            ++i_;
            return *this;
        }
        bool operator==(const iterator& o) const noexcept { return i_ == o.i_; }

    private:
        const task_id_index* ids_;
        std::size_t i_;
    };
    [[nodiscard]] iterator begin() const noexcept { return {this, 0}; }
    [[nodiscard]] iterator end() const noexcept { return {this, size()}; }

private:
    const std::vector<task>* tasks_;
    std::vector<std::uint32_t> starts_;  // each id's first row, then tasks.size()
};

// When each id (in `ids`' order) became ready: the latest end of its
// producers present in the perf set, else its own (earliest) dispatch. All
// the sweep reads of the task DAG, so that a caller can free the graph
// before the sweep (8 bytes an id against about 22 an edge).
inline std::vector<double> ready_times(const deps_graph& deps, const task_id_index& ids) {
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
                if (const std::optional<task_id_timing> pt = ids.find(pred)) {
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
        run(pd, deps, task_id_index(pd.tasks), seg);
    }

    // The same with the tasks' task_id_index, when the caller has it.
    template <class Segment>
    void run(const perf_data& pd, const deps_graph& deps, const task_id_index& ids, Segment&& seg) const {
        breakpoints(pd, ids, ready_times(deps, ids)).walk(seg);
    }

    // The sweep's events, sorted (sweep_breakpoints.hpp): `dfx sched-overhead`
    // keeps them to ask, in Part 2, whether a type had ready work at a time.
    // `ready`: ready_times(deps, ids).
    [[nodiscard]] sweep_breakpoints breakpoints(const perf_data& pd, const task_id_index& ids,
                                                const std::vector<double>& ready) const {
        sweep_breakpoints out = reserved_breakpoints(pd, ids);
        add_ready_events(out, pd, ids, ready);
        add_run_events(out, pd);
        out.sort();
        return out;
    }

    // The same, freeing the ids and their ready times once their events are
    // in, before the task rows' (at 10^7 tasks 120 MB less at the peak of
    // `dfx sched-overhead`, where the rows' events are 350 MB).
    [[nodiscard]] sweep_breakpoints breakpoints(const perf_data& pd, task_id_index&& ids,
                                                std::vector<double>&& ready) const {
        sweep_breakpoints out = reserved_breakpoints(pd, ids);
        add_ready_events(out, pd, ids, ready);
        {
            const task_id_index spent_ids = std::move(ids);
            const std::vector<double> spent_ready = std::move(ready);
        }
        add_run_events(out, pd);
        out.sort();
        return out;
    }

private:
    [[nodiscard]] int slot_of(std::uint16_t type) const {
        for (std::size_t i = 0; i < types.size(); ++i) {
            if (types[i] == type) return static_cast<int>(i);
        }
        return -1;
    }
    [[nodiscard]] double clamp(double x) const { return std::max(w0, std::min(x, w1)); }

    // Reserved exactly (runs) or to a bound (ready: an id with a row of the
    // type; bare: an id with no tracked row), so that no array grows by
    // doubling: two copies of one at once were the sweep's peak. (A
    // reservation takes no memory until it is written.)
    [[nodiscard]] sweep_breakpoints reserved_breakpoints(const perf_data& pd, const task_id_index& ids) const {
        const std::vector<task>& tasks = pd.tasks;
        sweep_breakpoints out(w0, w1, types.size());
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
        return out;
    }

    // Each id ready before its dispatch: ready work for each tracked type
    // it has rows of, or else two bare breakpoints.
    void add_ready_events(sweep_breakpoints& out, const perf_data& pd, const task_id_index& ids,
                          const std::vector<double>& ready) const {
        std::vector<int> id_slots;
        for (std::size_t k = 0; k < ids.size(); ++k) {
            const task_id_timing f = ids[k];
            const double r = clamp(ready[k]);
            const double dd = clamp(f.dispatch);
            if (!(dd > r)) continue;
            id_slots.clear();
            for (std::uint32_t i = f.first_row; i < f.first_row + f.rows; ++i) {
                const int slot = slot_of(pd.tasks[i].core_type);
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
    }

    // Each task row of a tracked type executing (clamped to the window).
    void add_run_events(sweep_breakpoints& out, const perf_data& pd) const {
        for (const task& t : pd.tasks) {
            const int slot = slot_of(t.core_type);
            if (slot < 0) continue;
            const double s = clamp(t.start_us);
            const double e = clamp(t.end_us);
            if (e > s) out.add_run(static_cast<std::size_t>(slot), s, e);
        }
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
