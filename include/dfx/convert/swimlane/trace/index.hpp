// index: what every section of the swimlane trace looks up, computed once
// from the parsed capture before any event is written, and read-only while
// the sections format events on two threads: task rows grouped by task id
// (SPMD or not), the distinct cores, Scheduler View ranks and sub-lanes, the
// event ids of each slice, the row a (task id, core) pair's arrows bind to,
// each scheduler thread's complete phases, and the label stems.
//
//   const trace_index index(pd, deps, names);   // func ids already resolved
//   if (const id_group* g = index.group(task_id)) ...;
//   index.row_anchors_of(task_id, view::worker, anchors);
//
// Binding rule reproduced from the reference (visible in Perfetto): slices
// are looked up by (task id, core id), and when one task runs several times
// on one core the last dispatch of that pair is the one arrows bind to.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "dfx/convert/common/id_index.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/name_map.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/trace/layout.hpp"
#include "dfx/convert/swimlane/trace/task_labels.hpp"

namespace dfx::convert::swimlane::trace {

inline constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

// The two task-slice views (pid 4 and pid 3).
enum class view { worker, scheduler };

// One end of a dependency / complete arrow: a task row or an AICPU-lane slice.
struct anchor {
    std::uint32_t row = none;  // task row, or none for a marker / alloc slice
    double slice_start = 0.0;  // Worker View slice start
    double end = 0.0;
    std::int64_t tid = 0;      // markers / alloc bars only
    std::int64_t event_id = -1;
    std::uint32_t core = 0;
};

// The rows of one task id (tasks are sorted by id).
struct id_group {
    std::uint64_t id;
    std::uint32_t first;
    std::uint32_t count;
    bool spmd;
    // Arrow ends the id has (row_anchors_of): all of them, those whose row
    // is in the Scheduler View, those whose row has a finish time.
    std::uint32_t anchors = 0;
    std::uint32_t scheduler_anchors = 0;
    std::uint32_t finished_anchors = 0;
};

inline bool in_scheduler_view(const task& t) { return t.dispatch_us >= 0 && t.finish_us > 0; }

class trace_index {
public:
    trace_index(const perf_data& pd, const deps_graph& deps, const name_map& names)
        : pd(pd), tasks(pd.tasks), deps(deps), names(names) {
        group_rows();
        collect_cores();
        has_aicpu_data = std::any_of(tasks.begin(), tasks.end(), [](const task& t) { return in_scheduler_view(t); });
        count_scheduler_threads();
        assign_scheduler_lanes();
        bind_pairs_to_rows();
        count_anchors_and_stems();
        order_complete_phases();
    }

    const perf_data& pd;
    const std::vector<task>& tasks;
    const deps_graph& deps;
    const name_map& names;

    std::vector<id_group> groups;
    std::vector<std::uint32_t> cores;  // distinct core ids, sorted
    bool has_aicpu_data = false;       // some row is in the Scheduler View
    std::int64_t sched_thread_count = 0;
    std::vector<std::uint32_t> sched_rank;  // per row: rank among Scheduler View slices, or none
    std::vector<std::int64_t> sched_tids_used;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> core_first_sched_row;  // (core, first row by dispatch)
    // Event ids: Worker View slices, then Scheduler View slices, then markers
    // and alloc bars from first_free_event_id on.
    std::int64_t worker_event_base = 0;
    std::int64_t sched_event_base = 0;
    std::int64_t first_free_event_id = 0;
    std::vector<std::vector<std::uint32_t>> completes;  // per scheduler thread: complete phases by start
    std::vector<std::vector<double>> complete_starts;   // their starts, µs (searched per task finish)
    std::vector<std::vector<double>> complete_ends;     // and ends (read per task finish: the phases are delta-coded)
    label_stems stems;

    const id_group* group(std::uint64_t id) const {
        const std::uint32_t i = group_of_.find(id);
        return i == id_index::npos ? nullptr : &groups[i];
    }
    // Index of an id's group in `groups`, or id_index::npos.
    std::uint32_t group_index(std::uint64_t id) const { return group_of_.find(id); }
    bool is_spmd(std::uint64_t id) const {
        if (const id_group* g = group(id)) return g->spmd;
        const auto* b = deps.block(id);
        return b && b->block_num > 1;
    }
    // Logical subtask count for dependency metadata.
    std::int64_t fan_count(std::uint64_t id) const {
        if (!is_spmd(id)) return 1;
        if (const auto* b = deps.block(id)) return b->block_num;
        const id_group* g = group(id);
        return g ? g->count : 0;
    }
    std::string_view type_name(const task& t) const { return pd.core_type_name(t); }

    // Event ids / lanes of a (task, core) pair, as the reference looks them up.
    std::int64_t worker_event_of(std::uint32_t row) const {
        return worker_event_base + static_cast<std::int64_t>(key_worker_row_[row]);
    }
    std::int64_t sched_event_of(std::uint32_t row) const {
        const std::uint32_t r = key_sched_row_[row];
        return r == none ? -1 : sched_event_base + static_cast<std::int64_t>(sched_rank[r]);
    }
    std::int64_t sched_tid_of(std::uint32_t row) const {
        const std::uint32_t r = key_tid_row_[row];
        const std::int64_t base = layout::core_tid(tasks[row].core_id);
        return r == none ? base : base + static_cast<std::int64_t>(sched_lane_[r]);
    }

    // Arrow ends of an id with rows (spec §4.7): every row, or (SPMD) per func
    // id the earliest visible slice of `v` (core id breaks ties), func groups
    // in order of first appearance. Empty for an id without rows.
    void row_anchors_of(std::uint64_t id, view v, std::vector<anchor>& out) const {
        out.clear();
        const id_group* g = group(id);
        if (!g) return;
        auto start_of = [&](const task& t) { return v == view::worker ? t.receive_us : scheduler_slice_start(t); };
        auto row_anchor = [&](std::uint32_t r) {
            const task& t = tasks[r];
            return anchor{r, t.receive_us, t.end_us, 0, -1, t.core_id};
        };
        if (!g->spmd) {
            for (std::uint32_t r = g->first; r < g->first + g->count; ++r) out.push_back(row_anchor(r));
            return;
        }
        std::vector<std::pair<std::int64_t, std::uint32_t>> best;
        for (std::uint32_t r = g->first; r < g->first + g->count; ++r) {
            const task& t = tasks[r];
            auto it = std::find_if(best.begin(), best.end(), [&](const auto& b) { return b.first == t.func_id; });
            if (it == best.end()) {
                best.emplace_back(t.func_id, r);
                continue;
            }
            const task& p = tasks[it->second];
            const double ts = start_of(t), ps = start_of(p);
            if (ts < ps || (ts == ps && t.core_id < p.core_id)) it->second = r;
        }
        for (const auto& b : best) out.push_back(row_anchor(b.second));
    }

    // The complete phase of `thread` containing `finish`, else the next one
    // to start, else none: its rank in completes[thread] (its index into
    // pd.sched[thread] is completes[thread][rank]).
    std::optional<std::uint32_t> complete_for(std::size_t thread, double finish) const {
        const auto& cs = completes[thread];
        const auto& starts = complete_starts[thread];
        if (cs.empty()) return std::nullopt;
        const auto idx = static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), finish) - starts.begin());
        if (idx > 0 && starts[idx - 1] <= finish && finish <= complete_ends[thread][idx - 1]) {
            return static_cast<std::uint32_t>(idx - 1);
        }
        if (idx < cs.size()) return static_cast<std::uint32_t>(idx);
        return std::nullopt;
    }
    // core_to_thread of a core, or -1.
    std::int64_t thread_of_core(std::uint32_t core) const {
        return core < pd.core_to_thread.size() ? pd.core_to_thread[core] : -1;
    }

private:
    static double scheduler_slice_start(const task& t) {
        return in_scheduler_view(t) ? t.dispatch_us : std::numeric_limits<double>::infinity();
    }

    bool spmd_by_rows(const id_group& g) const {
        if (const auto* b = deps.block(g.id)) return b->block_num > 1;
        if (g.count <= 1) return false;
        for (std::uint32_t i = g.first + 1; i < g.first + g.count; ++i) {
            if (tasks[i].core_type != tasks[g.first].core_type) return false;
        }
        return true;
    }

    void group_rows() {
        std::size_t ids = 0;  // (the rows are by id: counted first, the groups take no doubled capacity)
        for (std::uint32_t i = 0; i < tasks.size(); ++i) ids += i == 0 || tasks[i].task_id != tasks[i - 1].task_id;
        groups.reserve(ids);
        for (std::uint32_t i = 0; i < tasks.size(); ++i) {
            if (groups.empty() || groups.back().id != tasks[i].task_id) groups.push_back({tasks[i].task_id, i, 0, false});
            ++groups.back().count;
        }
        for (id_group& g : groups) g.spmd = spmd_by_rows(g);
        // Task ids are dense runs (ring << 32 | a counter): an array of 4
        // bytes an id then, where a hashed table takes 32-64 (id_index::over).
        group_of_ = id_index::over([&](auto&& add_id) {
            for (const id_group& g : groups) add_id(g.id);
        });
        for (std::uint32_t i = 0; i < groups.size(); ++i) group_of_.insert(groups[i].id, i);
    }

    // Distinct cores: few, so a sorted list with a binary search per row
    // (consecutive rows often share a core) beats sorting every row.
    void collect_cores() {
        for (const task& t : tasks) {
            if (!cores.empty() && cores.back() == t.core_id) continue;
            const auto it = std::lower_bound(cores.begin(), cores.end(), t.core_id);
            if (it == cores.end() || *it != t.core_id) cores.insert(it, t.core_id);
        }
    }

    // AICPU worker lanes: scheduler threads first, then orchestrator lanes.
    void count_scheduler_threads() {
        std::int64_t max_thread = -1;
        for (const std::int64_t t : pd.core_to_thread) max_thread = std::max(max_thread, t);
        for (std::size_t i = 0; i < pd.sched.size(); ++i) {
            if (!pd.sched[i].empty()) max_thread = std::max(max_thread, static_cast<std::int64_t>(i));
        }
        sched_thread_count = max_thread >= 0 ? max_thread + 1 : static_cast<std::int64_t>(pd.sched.size());
    }

    // Scheduler View ranks and greedy sub-lanes per core: by dispatch time,
    // ties in row order (the reference's stable sort), a slice goes to the
    // first sub-lane free at its dispatch.
    void assign_scheduler_lanes() {
        const std::size_t n = tasks.size();
        sched_rank.assign(n, none);
        sched_lane_.assign(n, 0);
        std::uint32_t rank = 0;
        std::vector<std::vector<std::pair<double, std::uint32_t>>> by_core(cores.size());  // (dispatch, row)
        for (std::uint32_t i = 0; i < n; ++i) {
            if (!in_scheduler_view(tasks[i])) continue;
            sched_rank[i] = rank++;
            const auto core = std::lower_bound(cores.begin(), cores.end(), tasks[i].core_id) - cores.begin();
            by_core[static_cast<std::size_t>(core)].emplace_back(tasks[i].dispatch_us, i);
        }
        for (auto& rows : by_core) {
            if (rows.empty()) continue;
            if (!std::is_sorted(rows.begin(), rows.end())) std::sort(rows.begin(), rows.end());
            const std::uint32_t core = tasks[rows.front().second].core_id;
            core_first_sched_row.emplace_back(core, rows.front().second);
            std::vector<double> lane_finish{0.0};
            for (const auto& [dispatch, row] : rows) {
                std::size_t lane = 0;
                while (lane < lane_finish.size() && !(lane_finish[lane] <= dispatch)) ++lane;
                if (lane == lane_finish.size()) lane_finish.push_back(0.0);
                lane_finish[lane] = tasks[row].finish_us;
                sched_lane_[row] = static_cast<std::uint32_t>(lane);
            }
            for (std::size_t lane = 0; lane < lane_finish.size(); ++lane) {
                sched_tids_used.push_back(layout::core_tid(core) + static_cast<std::int64_t>(lane));
            }
        }
        std::sort(sched_tids_used.begin(), sched_tids_used.end());
        sched_tids_used.erase(std::unique(sched_tids_used.begin(), sched_tids_used.end()), sched_tids_used.end());
        worker_event_base = 0;
        sched_event_base = static_cast<std::int64_t>(n);
        first_free_event_id = sched_event_base + rank;
    }

    // Which row of a (task, core) pair arrows bind to: the last one written
    // in each view, and the Scheduler View row that gives the pair its lane.
    void bind_pairs_to_rows() {
        const std::size_t n = tasks.size();
        key_worker_row_.assign(n, none);
        key_sched_row_.assign(n, none);
        key_tid_row_.assign(n, none);
        std::vector<std::uint32_t> idx;
        for (const id_group& g : groups) {
            idx.clear();
            // Rows by core, stably (an insertion sort: groups are small).
            for (std::uint32_t i = g.first; i < g.first + g.count; ++i) {
                auto at = idx.end();
                while (at != idx.begin() && tasks[*std::prev(at)].core_id > tasks[i].core_id) --at;
                idx.insert(at, i);
            }
            for (std::size_t a = 0; a < idx.size();) {
                std::size_t b = a;
                std::uint32_t last = none, last_sched = none, tid_row = none;
                for (; b < idx.size() && tasks[idx[b]].core_id == tasks[idx[a]].core_id; ++b) {
                    const std::uint32_t r = idx[b];
                    last = r;
                    if (sched_rank[r] == none) continue;
                    last_sched = r;
                    if (tid_row == none || !(tasks[r].dispatch_us < tasks[tid_row].dispatch_us)) tid_row = r;
                }
                for (std::size_t c = a; c < b; ++c) {
                    key_worker_row_[idx[c]] = last;
                    key_sched_row_[idx[c]] = last_sched;
                    key_tid_row_[idx[c]] = tid_row;
                }
                a = b;
            }
        }
    }

    void count_anchors_and_stems() {
        std::vector<anchor> ends;
        for (id_group& g : groups) {
            for (std::uint32_t r = g.first; r < g.first + g.count; ++r) {
                if (r == g.first || tasks[r].func_id != tasks[r - 1].func_id) stems.add(tasks[r].func_id, g.spmd, names);
            }
            // Arrow ends: every row, or (SPMD) one per function.
            const auto count_end = [&](std::uint32_t r) {
                ++g.anchors;
                g.scheduler_anchors += in_scheduler_view(tasks[r]) ? 1 : 0;
                g.finished_anchors += tasks[r].finish_us > 0 ? 1 : 0;
            };
            if (g.spmd) {
                row_anchors_of(g.id, view::scheduler, ends);
                for (const anchor& a : ends) count_end(a.row);
            } else {
                for (std::uint32_t r = g.first; r < g.first + g.count; ++r) count_end(r);
            }
        }
    }

    // Complete phases per scheduler thread, in start order (records usually
    // are already).
    void order_complete_phases() {
        completes.resize(pd.sched.size());
        complete_starts.resize(pd.sched.size());
        complete_ends.resize(pd.sched.size());
        for (std::size_t th = 0; th < pd.sched.size(); ++th) {
            const auto& recs = pd.sched[th];
            auto& cs = completes[th];
            auto& starts = complete_starts[th];
            auto& ends = complete_ends[th];
            std::size_t count = 0;  // (counted first, by their kind bytes: no doubled capacity)
            for (std::size_t i = 0; i < recs.phases.size(); ++i) count += recs.phases.kind(i) == phase_kind::complete;
            cs.reserve(count);
            starts.reserve(count);
            ends.reserve(count);
            recs.phases.for_each_where(kind_is(phase_kind::complete), [&](std::size_t i, const sched_record& r) {
                cs.push_back(static_cast<std::uint32_t>(i));
                starts.push_back(pd.start_us(r));
                ends.push_back(pd.end_us(r));
            });
            if (std::is_sorted(starts.begin(), starts.end())) continue;
            std::vector<std::uint32_t> order(cs.size());
            for (std::uint32_t k = 0; k < order.size(); ++k) order[k] = k;
            std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return starts[a] < starts[b]; });
            std::vector<std::uint32_t> sorted(cs.size());
            std::vector<double> sorted_starts(cs.size()), sorted_ends(cs.size());
            for (std::size_t k = 0; k < order.size(); ++k) {
                sorted[k] = cs[order[k]];
                sorted_starts[k] = starts[order[k]];
                sorted_ends[k] = ends[order[k]];
            }
            cs = std::move(sorted);
            starts = std::move(sorted_starts);
            ends = std::move(sorted_ends);
        }
    }

    id_index group_of_;  // task id -> index in groups
    std::vector<std::uint32_t> sched_lane_;  // per row: Scheduler View sub-lane
    std::vector<std::uint32_t> key_worker_row_, key_sched_row_, key_tid_row_;
};

}  // namespace dfx::convert::swimlane::trace
