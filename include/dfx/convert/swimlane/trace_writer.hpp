// trace_writer: the merged Perfetto / Chrome trace of a swimlane capture
// (spec chip-swimlane.md §4): the same processes, threads, slices, counters
// and flow arrows as the reference converter, streamed to the output file as
// they are produced (nothing is kept per event).
//
// Processes: 5 Graph Execution, 1 orchestrator (AICPU or host) + H2D lane,
// 2 AICPU Scheduler (phases, shared ready-queue counter, --overhead tracks),
// 3 Scheduler View (dispatch -> finish per core, greedy sub-lanes),
// 4 Worker View (receive -> end per core, AICPU_<k> lanes for dummy /
// predicated-skip markers and alloc bars).
// Flows: dependency / hb_violation (Worker and Scheduler View), complete,
// complete->ready, dispatch, submit->dispatch.
//
// Binding rules reproduced from the reference (they are visible in Perfetto):
// slices are looked up by (task id, core id), and when one task runs several
// times on one core the last dispatch of that pair is the one arrows bind to.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/common/ordered_chunks.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/common/id_index.hpp"
#include "dfx/convert/swimlane/labels.hpp"
#include "dfx/convert/swimlane/name_map.hpp"
#include "dfx/convert/swimlane/overhead_model.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"

namespace dfx::convert::swimlane {

struct trace_options {
    bool overhead = false;  // add the 8 --overhead counter tracks
    std::FILE* verbose = nullptr;  // progress / diagnostics (-v), or null
    std::FILE* warnings = stderr;
    // Items (tasks, records, edges) per chunk of a section formatted on two
    // threads: each chunk's events take well under an output block (a few
    // hundred bytes per item), and a section has many chunks to share. The
    // output does not depend on it (tests use tiny chunks).
    std::size_t chunk_items = 1024;
};

struct trace_summary {
    std::size_t events = 0;
    std::size_t flows = 0;  // flow ids used
    std::size_t dependency_flows = 0;
    std::size_t hb_violations = 0;
    std::size_t overhead_points = 0;
};

// Resolves func ids from deps.json kernel ids (spec §4.3); mutates the tasks,
// as the reference does, so the statistics printed afterwards use them too.
inline void resolve_func_ids(perf_data& pd, const deps_graph& deps) {
    if (deps.kernels.empty()) return;
    for (task& t : pd.tasks) {
        if (t.func_id >= 0) continue;
        const auto* k = deps.kernel_ids(t.task_id);
        if (!k) continue;
        if (pd.core_type_name(t) == "aic") {
            if (k->ids[0] >= 0) t.func_id = k->ids[0];
        } else if (k->ids[1] >= 0) {
            t.func_id = k->ids[1];
        } else if (k->ids[2] >= 0) {
            t.func_id = k->ids[2];
        }
    }
}

namespace detail {

inline constexpr double flow_epsilon_us = 0.01;
inline constexpr double marker_min_dur_us = 0.02;
inline constexpr std::int64_t aicpu_tid_base = 19000;
inline constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

inline std::int64_t core_tid(std::uint32_t core) { return 10000 + static_cast<std::int64_t>(core) * 10; }
inline std::int64_t sched_lane_tid(std::int64_t thread, int lane = 0) { return 30000 + thread * 10 + lane; }

// One end of a dependency / complete arrow: a task row or an AICPU-lane slice.
struct anchor {
    std::uint32_t row = none;  // task row, or none for a marker / alloc slice
    double slice_start = 0.0;  // Worker View slice start
    double end = 0.0;
    std::int64_t tid = 0;      // markers / alloc bars only
    std::int64_t event_id = -1;
    std::uint32_t core = 0;
};

// A dummy_task / predicated_skip marker or an alloc bar, usable as a
// dependency anchor for ids without task rows.
struct marker_anchor {
    std::uint64_t task_id;
    double start;
    double end;
    std::int64_t tid;
    std::int64_t event_id;
};

// The event stream: "{"traceEvents": [" ... "]}", or a part of it formatted
// on another thread (every event of a part follows an earlier one).
class event_sink {
public:
    struct part_t {};
    static constexpr part_t part{};
    explicit event_sink(json_buffer& w) : w_(w) { w_.append("{\"traceEvents\": [\n"); }
    event_sink(json_buffer& w, part_t) : w_(w), comma_(true) {}
    json_buffer& next() {
        if (comma_) w_.append(",\n");
        comma_ = true;
        ++count_;
        return w_;
    }
    [[nodiscard]] std::size_t count() const noexcept { return count_; }
    void add_count(std::size_t events) noexcept { count_ += events; }
    void close(std::string_view metadata_json) {
        w_.append("\n]");
        if (!metadata_json.empty()) {
            w_.append(", \"metadata\": ");
            w_.append(metadata_json);
        }
        w_.append("}\n");
    }

    // ---- common event shapes ----
    void process_name(int pid, std::string_view name) {
        auto& o = next();
        o.append(R"({"args": {"name": )");
        o.append_string(name);
        o.append(R"(}, "cat": "__metadata", "name": "process_name", "ph": "M", "pid": )");
        o.append_int(pid);
        o.push_back('}');
    }
    void process_sort(int pid, int index) {
        auto& o = next();
        o.append(R"({"args": {"sort_index": )");
        o.append_int(index);
        o.append(R"(}, "cat": "__metadata", "name": "process_sort_index", "ph": "M", "pid": )");
        o.append_int(pid);
        o.push_back('}');
    }
    void thread_name(int pid, std::int64_t tid, std::string_view name) {
        auto& o = next();
        o.append(R"({"args": {"name": )");
        o.append_string(name);
        o.append(R"(}, "cat": "__metadata", "name": "thread_name", "ph": "M", "pid": )");
        o.append_int(pid);
        o.append(R"(, "tid": )");
        o.append_int(tid);
        o.push_back('}');
    }
    void thread_sort(int pid, std::int64_t tid, int index) {
        auto& o = next();
        o.append(R"({"args": {"sort_index": )");
        o.append_int(index);
        o.append(R"(}, "cat": "__metadata", "name": "thread_sort_index", "ph": "M", "pid": )");
        o.append_int(pid);
        o.append(R"(, "tid": )");
        o.append_int(tid);
        o.push_back('}');
    }
    // A flow endpoint. bind_id < 0: none; counts < 0: not written.
    void flow(std::int64_t id, std::string_view name, char ph, int pid, std::int64_t tid, double ts,
              std::int64_t bind_id = -1, std::int64_t input_count = -1, std::int64_t output_count = -1) {
        auto& o = next();
        o.append(R"({"cat": "flow", "id": )");
        o.append_int(id);
        o.append(R"(, "name": ")");
        o.append(name);  // flow names are fixed ASCII / UTF-8 without quotes
        o.append(ph == 's' ? R"(", "ph": "s", "pid": )" : R"(", "ph": "f", "pid": )");
        o.append_int(pid);
        o.append(R"(, "tid": )");
        o.append_int(tid);
        o.append(R"(, "ts": )");
        o.append_us(ts);
        if (ph == 'f') o.append(R"(, "bp": "e")");
        if (input_count >= 0) {
            o.append(R"(, "input_task_count": )");
            o.append_int(input_count);
            o.append(R"(, "output_task_count": )");
            o.append_int(output_count);
        }
        if (bind_id >= 0) {
            o.append(R"(, "bind_id": )");
            o.append_int(bind_id);
        }
        o.push_back('}');
    }

private:
    json_buffer& w_;
    bool comma_ = false;
    std::size_t count_ = 0;
};

}  // namespace detail

class trace_writer {
public:
    trace_writer(perf_data& pd, const deps_graph& deps, const name_map& names, trace_options opt)
        : pd_(pd), tasks_(pd.tasks), deps_(deps), names_(names), opt_(opt) {}

    trace_summary write(json_file_writer& file) {
        detail::event_sink ev(file);
        ev_ = &ev;
        file_ = &file;
        resolve_func_ids(pd_, deps_);
        prepare();
        if (opt_.verbose) {
            fmt::print(opt_.verbose, "Generating Chrome Trace JSON...\n  Tasks: {}\n", tasks_.size());
            if (!names_.empty()) fmt::print(opt_.verbose, "  Function names: {} entries\n", names_.names.size());
            fmt::print(opt_.verbose, "  Unique cores: {}\n", cores_.size());
        }
        write_graph_envelopes();
        write_worker_view();
        write_scheduler_view();
        write_scheduler_phases();
        write_host_uploads();
        write_orchestrator();
        write_dependency_flows();
        write_complete_flows();
        write_dispatch_flows();
        write_submit_flows();
        if (opt_.verbose) {
            fmt::print(opt_.verbose, "  Total events: {}\n  Flow events: {}\n", ev.count(), flow_id_);
        }
        if (opt_.overhead) write_overhead_counters();
        ev.close(pd_.timeline_metadata_json);
        summary_.events = ev.count();
        summary_.flows = static_cast<std::size_t>(flow_id_);
        return summary_;
    }

private:
    // ------------------------------------------------- parallel sections
    struct part_stats {
        std::size_t events = 0;
        std::size_t hb_violations = 0;
        part_stats& operator+=(const part_stats& o) {
            events += o.events;
            hb_violations += o.hb_violations;
            return *this;
        }
    };
    // What one chunk's items share: counters and scratch space.
    struct part_state {
        std::size_t hb_violations = 0;
        std::vector<detail::anchor> preds, succs;
    };

    // Writes items [0, n) of a section in chunks on two threads
    // (ordered_chunks.hpp). `numbers_of(i)`: how many numbers item i draws
    // from `counter` (flow ids, event ids); `body(ev, i, number, part)`
    // writes item i's events, drawing `number++`. Everything a body reads
    // must stay unchanged while the section runs.
    template <class NumbersOf, class Body>
    void in_chunks(std::size_t n, std::int64_t& counter, NumbersOf&& numbers_of, Body&& body) {
        const auto stats = format_in_order<part_stats>(
            *file_, n, std::max<std::size_t>(opt_.chunk_items, 1), counter, numbers_of, [&](const item_chunk& c, json_buffer& out, std::int64_t& number) {
                detail::event_sink ev(out, detail::event_sink::part);
                part_state state;
                for (std::size_t i = c.begin; i < c.end; ++i) body(ev, i, number, state);
                return part_stats{ev.count(), state.hb_violations};
            });
        ev_->add_count(stats.events);
        summary_.hb_violations += stats.hb_violations;
    }
    // A section that draws no numbers.
    template <class Body>
    void in_chunks(std::size_t n, Body&& body) {
        std::int64_t unused = 0;
        in_chunks(n, unused, [](std::size_t) { return 0; },
                  [&](detail::event_sink& ev, std::size_t i, std::int64_t&, part_state&) { body(ev, i); });
    }

    // ---------------------------------------------------------------- setup
    struct id_group {
        std::uint64_t id;
        std::uint32_t first;
        std::uint32_t count;
        bool spmd;
        // Arrow ends the id has (anchors_of): all of them, those whose row
        // is in the Scheduler View, those whose row has a finish time.
        std::uint32_t anchors = 0;
        std::uint32_t scheduler_anchors = 0;
        std::uint32_t finished_anchors = 0;
    };

    void prepare() {
        const std::size_t n = tasks_.size();
        // Task-id groups (tasks are sorted by id).
        for (std::uint32_t i = 0; i < n; ++i) {
            if (groups_.empty() || groups_.back().id != tasks_[i].task_id) {
                groups_.push_back({tasks_[i].task_id, i, 0, false});
            }
            ++groups_.back().count;
        }
        for (id_group& g : groups_) g.spmd = spmd_by_rows(g);
        group_of_ = id_index(groups_.size());
        for (std::uint32_t i = 0; i < groups_.size(); ++i) group_of_.insert(groups_[i].id, i);

        // Distinct cores: few, so a sorted list with a binary search per row
        // (consecutive rows often share a core) beats sorting every row.
        for (const task& t : tasks_) {
            if (!cores_.empty() && cores_.back() == t.core_id) continue;
            const auto it = std::lower_bound(cores_.begin(), cores_.end(), t.core_id);
            if (it == cores_.end() || *it != t.core_id) cores_.insert(it, t.core_id);
        }

        has_aicpu_data_ = std::any_of(tasks_.begin(), tasks_.end(), [](const task& t) { return in_scheduler_view(t); });

        // AICPU worker lanes: scheduler threads first, then orchestrator lanes.
        std::int64_t max_thread = -1;
        for (const std::int64_t t : pd_.core_to_thread) max_thread = std::max(max_thread, t);
        for (std::size_t i = 0; i < pd_.sched.size(); ++i) {
            if (!pd_.sched[i].empty()) max_thread = std::max(max_thread, static_cast<std::int64_t>(i));
        }
        sched_thread_count_ = max_thread >= 0 ? max_thread + 1 : static_cast<std::int64_t>(pd_.sched.size());

        // Scheduler View ids and sub-lanes, and which row of a (task, core)
        // pair the arrows bind to (the last one written, as in the reference).
        sched_rank_.assign(n, detail::none);
        sched_lane_.assign(n, 0);
        std::uint32_t rank = 0;
        std::vector<std::vector<std::pair<double, std::uint32_t>>> by_core(cores_.size());  // (dispatch, row)
        for (std::uint32_t i = 0; i < n; ++i) {
            if (!in_scheduler_view(tasks_[i])) continue;
            sched_rank_[i] = rank++;
            const auto core = std::lower_bound(cores_.begin(), cores_.end(), tasks_[i].core_id) - cores_.begin();
            by_core[static_cast<std::size_t>(core)].emplace_back(tasks_[i].dispatch_us, i);
        }
        core_first_sched_row_.clear();
        for (auto& rows : by_core) {
            if (rows.empty()) continue;
            // By dispatch time, ties in row order: the reference's stable sort.
            if (!std::is_sorted(rows.begin(), rows.end())) std::sort(rows.begin(), rows.end());
            const std::uint32_t core = tasks_[rows.front().second].core_id;
            core_first_sched_row_.emplace_back(core, rows.front().second);
            std::vector<double> lane_finish{0.0};
            for (const auto& [dispatch, row] : rows) {
                std::size_t lane = 0;
                while (lane < lane_finish.size() && !(lane_finish[lane] <= dispatch)) ++lane;
                if (lane == lane_finish.size()) lane_finish.push_back(0.0);
                lane_finish[lane] = tasks_[row].finish_us;
                sched_lane_[row] = static_cast<std::uint32_t>(lane);
            }
            for (std::size_t lane = 0; lane < lane_finish.size(); ++lane) {
                sched_tids_used_.push_back(detail::core_tid(core) + static_cast<std::int64_t>(lane));
            }
        }
        std::sort(sched_tids_used_.begin(), sched_tids_used_.end());
        sched_tids_used_.erase(std::unique(sched_tids_used_.begin(), sched_tids_used_.end()), sched_tids_used_.end());

        key_worker_row_.assign(n, detail::none);
        key_sched_row_.assign(n, detail::none);
        key_tid_row_.assign(n, detail::none);
        std::vector<std::uint32_t> idx;
        for (const id_group& g : groups_) {
            idx.clear();
            // Rows by core, stably (an insertion sort: groups are small).
            for (std::uint32_t i = g.first; i < g.first + g.count; ++i) {
                auto at = idx.end();
                while (at != idx.begin() && tasks_[*std::prev(at)].core_id > tasks_[i].core_id) --at;
                idx.insert(at, i);
            }
            for (std::size_t a = 0; a < idx.size();) {
                std::size_t b = a;
                std::uint32_t last = detail::none, last_sched = detail::none, tid_row = detail::none;
                for (; b < idx.size() && tasks_[idx[b]].core_id == tasks_[idx[a]].core_id; ++b) {
                    const std::uint32_t r = idx[b];
                    last = r;
                    if (sched_rank_[r] == detail::none) continue;
                    last_sched = r;
                    if (tid_row == detail::none || !(tasks_[r].dispatch_us < tasks_[tid_row].dispatch_us)) tid_row = r;
                }
                for (std::size_t c = a; c < b; ++c) {
                    key_worker_row_[idx[c]] = last;
                    key_sched_row_[idx[c]] = last_sched;
                    key_tid_row_[idx[c]] = tid_row;
                }
                a = b;
            }
        }
        worker_event_base_ = 0;
        sched_event_base_ = static_cast<std::int64_t>(n);
        next_event_id_ = sched_event_base_ + rank;

        std::vector<detail::anchor> ends;
        for (id_group& g : groups_) {
            for (std::uint32_t r = g.first; r < g.first + g.count; ++r) {
                if (r == g.first || tasks_[r].func_id != tasks_[r - 1].func_id) add_stem(tasks_[r].func_id, g.spmd);
            }
            // Arrow ends: every row, or (SPMD) one per function.
            const auto count_end = [&](std::uint32_t r) {
                ++g.anchors;
                g.scheduler_anchors += in_scheduler_view(tasks_[r]) ? 1 : 0;
                g.finished_anchors += tasks_[r].finish_us > 0 ? 1 : 0;
            };
            if (g.spmd) {
                anchors_of(g.id, view::scheduler, false, ends);
                for (const detail::anchor& a : ends) count_end(a.row);
            } else {
                for (std::uint32_t r = g.first; r < g.first + g.count; ++r) count_end(r);
            }
        }

        // Complete phases per scheduler thread, in start order (records
        // usually are already).
        completes_.resize(pd_.sched.size());
        for (std::size_t th = 0; th < pd_.sched.size(); ++th) {
            const auto& recs = pd_.sched[th];
            for (std::uint32_t i = 0; i < recs.size(); ++i) {
                if (recs[i].kind == phase_kind::complete) completes_[th].push_back(i);
            }
            const auto by_start = [&](std::uint32_t a, std::uint32_t b) { return recs[a].start_us < recs[b].start_us; };
            if (!std::is_sorted(completes_[th].begin(), completes_[th].end(), by_start)) {
                std::stable_sort(completes_[th].begin(), completes_[th].end(), by_start);
            }
        }
    }

    static bool in_scheduler_view(const task& t) { return t.dispatch_us >= 0 && t.finish_us > 0; }

    bool spmd_by_rows(const id_group& g) const {
        if (const auto* b = deps_.block(g.id)) return b->block_num > 1;
        if (g.count <= 1) return false;
        for (std::uint32_t i = g.first + 1; i < g.first + g.count; ++i) {
            if (tasks_[i].core_type != tasks_[g.first].core_type) return false;
        }
        return true;
    }
    const id_group* group(std::uint64_t id) const {
        const std::uint32_t i = group_of_.find(id);
        return i == id_index::npos ? nullptr : &groups_[i];
    }
    bool is_spmd(std::uint64_t id) const {
        if (const id_group* g = group(id)) return g->spmd;
        const auto* b = deps_.block(id);
        return b && b->block_num > 1;
    }
    // Logical subtask count for dependency metadata.
    std::int64_t fan_count(std::uint64_t id) const {
        if (!is_spmd(id)) return 1;
        if (const auto* b = deps_.block(id)) return b->block_num;
        const id_group* g = group(id);
        return g ? g->count : 0;
    }

    // ---- direct writers for the per-event hot path (no temporary strings) ----
    static void put_display(json_buffer& o, std::uint64_t id) {
        const std::uint64_t ring = (id >> 32) & 0xFF;
        if (ring != 0) {
            o.push_back('r');
            o.append_int(ring);
        }
        o.push_back('t');
        o.append_int(id & 0xFFFFFFFFu);
    }
    // The label text before "(<disp>)", JSON-escaped, per (func id, SPMD):
    // made for every task by prepare(), only read while sections run.
    auto stem_slot(std::int64_t func_id, bool spmd) const {
        return std::lower_bound(stems_.begin(), stems_.end(), std::make_pair(func_id, spmd),
                                [](const stem& a, const std::pair<std::int64_t, bool>& k) {
                                    return a.func_id != k.first ? a.func_id < k.first : a.spmd < k.second;
                                });
    }
    void add_stem(std::int64_t func_id, bool spmd) {
        const auto it = stem_slot(func_id, spmd);
        if (it != stems_.end() && it->func_id == func_id && it->spmd == spmd) return;
        // task_label with an empty display ends in "()": the stem is the rest.
        std::string full = task_label(func_id, names_, "", spmd);
        full.resize(full.size() - 2);
        std::string quoted;
        append_json_string(quoted, full);
        stems_.insert(it, stem{func_id, spmd, quoted.substr(1, quoted.size() - 2)});
    }
    const std::string& label_stem(std::int64_t func_id, bool spmd) const { return stem_slot(func_id, spmd)->text; }
    void put_label(json_buffer& o, std::int64_t func_id, std::uint64_t id, bool spmd) const {
        o.push_back('"');
        o.append(label_stem(func_id, spmd));
        o.push_back('(');
        put_display(o, id);
        o.append(")\"");
    }
    void put_task_hint(json_buffer& o, const task& t) const {
        o.append(R"("event-hint": "Task:)");
        put_display(o, t.task_id);
        o.append(", FuncId:");
        o.append_int(t.func_id);
        o.append(", CoreId:");
        o.append_int(t.core_id);
        o.push_back('"');
    }
    std::string_view type_name(const task& t) const { return pd_.core_type_name(t); }

    // Event ids / lanes of a (task, core) pair, as the reference looks them up.
    std::int64_t worker_event_of(std::uint32_t row) const {
        return worker_event_base_ + static_cast<std::int64_t>(key_worker_row_[row]);
    }
    std::int64_t sched_event_of(std::uint32_t row) const {
        const std::uint32_t r = key_sched_row_[row];
        return r == detail::none ? -1 : sched_event_base_ + static_cast<std::int64_t>(sched_rank_[r]);
    }
    std::int64_t sched_tid_of(std::uint32_t row) const {
        const std::uint32_t r = key_tid_row_[row];
        const std::int64_t base = detail::core_tid(tasks_[row].core_id);
        return r == detail::none ? base : base + static_cast<std::int64_t>(sched_lane_[r]);
    }

    // ------------------------------------------------------ anchors (§4.7)
    enum class view { worker, scheduler };

    static double scheduler_slice_start(const task& t) {
        return in_scheduler_view(t) ? t.dispatch_us : std::numeric_limits<double>::infinity();
    }

    void anchors_of(std::uint64_t id, view v, bool with_markers, std::vector<detail::anchor>& out) const {
        out.clear();
        const id_group* g = group(id);
        if (!g) {
            if (!with_markers) return;
            auto lo = std::lower_bound(markers_.begin(), markers_.end(), id,
                                       [](const detail::marker_anchor& m, std::uint64_t x) { return m.task_id < x; });
            for (; lo != markers_.end() && lo->task_id == id; ++lo) {
                out.push_back({detail::none, lo->start, lo->end, lo->tid, lo->event_id, 0});
            }
            return;
        }
        auto start_of = [&](const task& t) { return v == view::worker ? t.receive_us : scheduler_slice_start(t); };
        auto row_anchor = [&](std::uint32_t r) {
            const task& t = tasks_[r];
            return detail::anchor{r, t.receive_us, t.end_us, 0, -1, t.core_id};
        };
        if (!g->spmd) {
            for (std::uint32_t r = g->first; r < g->first + g->count; ++r) out.push_back(row_anchor(r));
            return;
        }
        // SPMD: per func id, the earliest visible slice (core id breaks ties),
        // func groups in order of first appearance.
        std::vector<std::pair<std::int64_t, std::uint32_t>> best;
        for (std::uint32_t r = g->first; r < g->first + g->count; ++r) {
            const task& t = tasks_[r];
            auto it = std::find_if(best.begin(), best.end(), [&](const auto& b) { return b.first == t.func_id; });
            if (it == best.end()) {
                best.emplace_back(t.func_id, r);
                continue;
            }
            const task& p = tasks_[it->second];
            const double ts = start_of(t), ps = start_of(p);
            if (ts < ps || (ts == ps && t.core_id < p.core_id)) it->second = r;
        }
        for (const auto& b : best) out.push_back(row_anchor(b.second));
    }

    // --------------------------------------------------------------- events
    void begin_x(json_buffer& o) const { o.append(R"({"args": {)"); }
    // Closes the args object and writes the slice fields; `name` writes the
    // (quoted) name. cat / cname are fixed ASCII names.
    template <class Name>
    void x_tail_with(json_buffer& o, std::string_view cat, std::string_view cname, std::int64_t id,
                     Name&& name, int pid, std::int64_t tid, double ts, double dur) const {
        o.append(R"(}, "cat": ")");
        o.append(cat);
        o.push_back('"');
        if (!cname.empty()) {
            o.append(R"(, "cname": ")");
            o.append(cname);
            o.push_back('"');
        }
        if (id >= 0) {
            o.append(R"(, "id": )");
            o.append_int(id);
        }
        o.append(R"(, "name": )");
        name();
        o.append(R"(, "ph": "X", "pid": )");
        o.append_int(pid);
        o.append(R"(, "tid": )");
        o.append_int(tid);
        o.append(R"(, "ts": )");
        o.append_us(ts);
        o.append(R"(, "dur": )");
        o.append_us(dur);
        o.push_back('}');
    }
    void x_tail(json_buffer& o, std::string_view cat, std::string_view cname, std::int64_t id,
                std::string_view name, int pid, std::int64_t tid, double ts, double dur) const {
        x_tail_with(o, cat, cname, id, [&] { o.append_string(name); }, pid, tid, ts, dur);
    }

    // ---- pid 5: graph execution envelopes (§4.8) ----
    void write_graph_envelopes() {
        struct instance {
            std::uint64_t outer;
            std::vector<std::uint32_t> nodes;
            double exec_start, exec_end, prep_start, prep_end, prep_dur;
            std::size_t prep_count;
            std::int64_t lane = 0;
        };
        auto decode = [](std::uint64_t id, std::uint64_t& outer, std::uint32_t& node) {
            if (((id >> 32) & 0xFFFFFFFFu) != 1) return false;
            const std::uint64_t local = id & 0xFFFFFFFFu;
            outer = local >> 10;
            node = static_cast<std::uint32_t>(local & 0x3FF);
            return true;
        };
        std::vector<instance> inst;
        auto find = [&](std::uint64_t outer) -> instance* {
            for (auto& i : inst) {
                if (i.outer == outer) return &i;
            }
            return nullptr;
        };
        for (const auto& lane : pd_.sched) {
            for (const auto& r : lane) {
                if (r.kind != phase_kind::graph_prepare || !r.has_task_id || (r.task_id >> 32) != 0) continue;
                instance* i = find(r.task_id);
                if (!i) {
                    inst.push_back({r.task_id, {}, 0, 0, r.start_us, r.end_us, 0.0, 0, 0});
                    i = &inst.back();
                }
                i->prep_start = std::min(i->prep_start, r.start_us);
                i->prep_end = std::max(i->prep_end, r.end_us);
                i->prep_dur += r.end_us - r.start_us;
                ++i->prep_count;
            }
        }
        if (inst.empty()) return;
        std::vector<bool> seen(inst.size(), false);
        auto add_point = [&](instance& i, std::size_t which, std::uint32_t node, double s, double e) {
            if (!seen[which]) {
                i.exec_start = s;
                i.exec_end = e;
                seen[which] = true;
            }
            i.exec_start = std::min(i.exec_start, s);
            i.exec_end = std::max(i.exec_end, e);
            i.nodes.push_back(node);
        };
        for (const task& t : tasks_) {
            std::uint64_t outer;
            std::uint32_t node;
            if (!decode(t.task_id, outer, node)) continue;
            if (instance* i = find(outer)) {
                const double s = t.dispatch_us >= 0 ? t.dispatch_us : t.receive_us;
                const double e = t.finish_us > 0 ? t.finish_us : t.end_us;
                add_point(*i, static_cast<std::size_t>(i - inst.data()), node, s, e);
            }
        }
        for (const auto& lane : pd_.sched) {
            for (const auto& r : lane) {
                std::uint64_t outer;
                std::uint32_t node;
                if (r.kind != phase_kind::dummy_task || !r.has_task_id || !decode(r.task_id, outer, node)) continue;
                if (instance* i = find(outer)) add_point(*i, static_cast<std::size_t>(i - inst.data()), node, r.start_us, r.end_us);
            }
        }
        std::vector<instance> kept;
        for (std::size_t i = 0; i < inst.size(); ++i) {
            if (seen[i]) kept.push_back(std::move(inst[i]));
        }
        if (kept.empty()) return;
        std::stable_sort(kept.begin(), kept.end(),
                         [](const instance& a, const instance& b) { return a.prep_start < b.prep_start; });
        std::vector<double> lane_finish;
        std::vector<std::int64_t> lanes;
        for (auto& i : kept) {
            std::size_t lane = 0;
            while (lane < lane_finish.size() && !(lane_finish[lane] <= i.prep_start)) ++lane;
            if (lane == lane_finish.size()) lane_finish.push_back(0.0);
            lane_finish[lane] = i.exec_end;
            i.lane = static_cast<std::int64_t>(lane);
            lanes.push_back(i.lane);
        }
        std::sort(lanes.begin(), lanes.end());
        lanes.erase(std::unique(lanes.begin(), lanes.end()), lanes.end());
        ev_->process_name(5, "Graph Execution");
        ev_->process_sort(5, 1);
        for (const auto l : lanes) ev_->thread_name(5, 5000 + l, fmt::format("Graph_{}", l));
        for (auto& i : kept) {
            std::sort(i.nodes.begin(), i.nodes.end());
            i.nodes.erase(std::unique(i.nodes.begin(), i.nodes.end()), i.nodes.end());
            auto& o = ev_->next();
            begin_x(o);
            o.append(R"("outer_task_id": )");
            o.append_int(i.outer);
            o.append(R"(, "visible_node_count": )");
            o.append_int(i.nodes.size());
            o.append(R"(, "visible_node_index_min": )");
            o.append_int(i.nodes.front());
            o.append(R"(, "visible_node_index_max": )");
            o.append_int(i.nodes.back());
            o.append(R"(, "prepare_slice_count": )");
            o.append_int(i.prep_count);
            o.append(R"(, "prepare_duration_us": )");
            o.append_us(i.prep_dur);
            o.append(R"(, "execution_start_us": )");
            o.append_us(i.exec_start);
            o.append(R"(, "execution_duration_us": )");
            o.append_us(i.exec_end - i.exec_start);
            o.append(R"(, "synthetic_id_layout": "ring1:(outer_task_id << 10) | node_index")");
            x_tail(o, "graph_execution", "rail_animation", -1,
                   fmt::format("GraphExecution({}, {} visible nodes)", format_task_display(i.outer), i.nodes.size()), 5,
                   5000 + i.lane, i.prep_start, i.exec_end - i.prep_start);
        }
    }

    // ---- pid 4 / pid 3 metadata and task slices ----
    void write_worker_view() {
        ev_->process_name(4, "Worker View");
        ev_->process_sort(4, 4);
        if (has_aicpu_data_) {
            ev_->process_name(3, "Scheduler View");
            ev_->process_sort(3, 3);
        }
        for (const std::uint32_t core : cores_) {
            auto it = std::find_if(tasks_.begin(), tasks_.end(), [&](const task& t) { return t.core_id == core; });
            ev_->thread_name(4, detail::core_tid(core), fmt::format("{}_{}", upper(type_name(*it)), core));
        }
        const std::int64_t lanes = sched_thread_count_ + static_cast<std::int64_t>(pd_.orch.size());
        for (std::int64_t k = 0; k < lanes; ++k) {
            ev_->thread_name(4, detail::aicpu_tid_base + k, fmt::format("AICPU_{}", k));
        }
        in_chunks(tasks_.size(), [&](detail::event_sink& ev, std::size_t i) {
            const task& t = tasks_[i];
            const double ts = t.receive_us;
            const double dur = t.end_us - ts;
            auto& o = ev.next();
            begin_x(o);
            put_task_hint(o, t);
            put_fan_hints(o, t.task_id);
            o.append(R"(, "duration-us": )");
            o.append_us(dur);
            o.append(R"(, "kernel-duration-us": )");
            o.append_us(t.duration_us());
            o.append(R"(, "local_setup_us": )");
            o.append_us(t.local_setup_us() != 0.0 ? t.local_setup_us() : 0.0);
            o.append(R"(, "taskId": )");
            o.append_int(t.task_id);
            x_tail_with(o, "event", "", worker_event_base_ + static_cast<std::int64_t>(i),
                        [&] { put_label(o, t.func_id, t.task_id, is_spmd(t.task_id)); }, 4, detail::core_tid(t.core_id),
                        ts, dur);
        });
    }

    // "fanout-hint" / "fanin-hint": "<n>: [disp, ...]" of the successors /
    // predecessors in deps.json.
    void put_fan_hints(json_buffer& o, std::uint64_t id) const {
        o.append(R"(, "fanout-hint": ")");
        if (deps_.edges_usable) {
            auto [lo, hi] = deps_.succs(id);
            o.append_int(hi - lo);
            o.append(": [");
            for (auto e = lo; e != hi; ++e) {
                if (e != lo) o.append(", ");
                put_display(o, e->succ);
            }
        } else {
            o.append("0: [");
        }
        o.append(R"(]", "fanin-hint": ")");
        if (deps_.edges_usable) {
            auto [plo, phi] = deps_.preds(id);
            o.append_int(phi - plo);
            o.append(": [");
            for (auto p = plo; p != phi; ++p) {
                if (p != plo) o.append(", ");
                put_display(o, deps_.edges[*p].pred);
            }
        } else {
            o.append("0: [");
        }
        o.append(R"(]")");
    }

    void write_scheduler_view() {
        if (!has_aicpu_data_) return;
        for (const std::uint32_t core : cores_) {
            const std::int64_t base = detail::core_tid(core);
            auto first = std::find_if(core_first_sched_row_.begin(), core_first_sched_row_.end(),
                                      [&](const auto& p) { return p.first == core; });
            const std::string type =
                first != core_first_sched_row_.end() ? upper(type_name(tasks_[first->second])) : std::string("unknown");
            const std::string name = fmt::format("{}_{}", type, core);
            auto used = [&](std::int64_t tid) {
                return std::binary_search(sched_tids_used_.begin(), sched_tids_used_.end(), tid);
            };
            if (used(base) || sched_tids_used_.empty()) ev_->thread_name(3, base, name);
            if (used(base + 1)) ev_->thread_name(3, base + 1, name);
        }
        in_chunks(tasks_.size(), [&](detail::event_sink& ev, std::size_t i) {
            if (sched_rank_[i] == detail::none) return;
            const task& t = tasks_[i];
            const double dur = t.finish_us - t.dispatch_us;
            auto& o = ev.next();
            begin_x(o);
            put_task_hint(o, t);
            o.append(R"(, "dispatch-time-us": )");
            o.append_us(t.dispatch_us);
            o.append(R"(, "finish-time-us": )");
            o.append_us(t.finish_us);
            o.append(R"(, "aicpu-duration-us": )");
            o.append_us(dur);
            o.append(R"(, "taskId": )");
            o.append_int(t.task_id);
            x_tail_with(o, "event", "", sched_event_base_ + sched_rank_[i],
                        [&] { put_label(o, t.func_id, t.task_id, is_spmd(t.task_id)); }, 3,
                        sched_tid_of(static_cast<std::uint32_t>(i)), t.dispatch_us, dur);
        });
    }

    // The complete phase of `thread` containing `finish`, else the next one
    // to start, else none (index into completes_[thread]).
    std::optional<std::uint32_t> complete_for(std::size_t thread, double finish) const {
        const auto& cs = completes_[thread];
        const auto& recs = pd_.sched[thread];
        if (cs.empty()) return std::nullopt;
        const auto it = std::upper_bound(cs.begin(), cs.end(), finish,
                                         [&](double f, std::uint32_t c) { return f < recs[c].start_us; });
        const auto idx = static_cast<std::size_t>(it - cs.begin());
        if (idx > 0) {
            const auto& prev = recs[cs[idx - 1]];
            if (prev.start_us <= finish && finish <= prev.end_us) return cs[idx - 1];
        }
        if (idx < cs.size()) return cs[idx];
        return std::nullopt;
    }
    // core_to_thread of a core, or -1.
    std::int64_t thread_of_core(std::uint32_t core) const {
        return core < pd_.core_to_thread.size() ? pd_.core_to_thread[core] : -1;
    }

    // ---- pid 2: scheduler phases, queue counter, pid-4 markers ----
    void write_scheduler_phases() {
        if (pd_.sched.empty()) return;
        ev_->process_name(2, "AICPU Scheduler");
        ev_->process_sort(2, 2);
        // finish_rows_attributed per complete phase.
        std::vector<std::vector<std::uint32_t>> attributed(pd_.sched.size());
        for (std::size_t th = 0; th < pd_.sched.size(); ++th) attributed[th].assign(pd_.sched[th].size(), 0);
        if (!pd_.core_to_thread.empty()) {
            for (const task& t : tasks_) {
                if (t.finish_us < 0) continue;
                const std::int64_t th = thread_of_core(t.core_id);
                if (th < 0 || th >= static_cast<std::int64_t>(pd_.sched.size())) continue;
                if (auto c = complete_for(static_cast<std::size_t>(th), t.finish_us)) ++attributed[th][*c];
            }
        }
        for (std::size_t th = 0; th < pd_.sched.size(); ++th) {
            const auto& recs = pd_.sched[th];
            const std::int64_t tid = detail::sched_lane_tid(static_cast<std::int64_t>(th), 0);
            ev_->thread_name(2, tid, fmt::format("Sched_{}", th));
            if (std::any_of(recs.begin(), recs.end(), [](const sched_record& r) { return r.kind == phase_kind::resolve; })) {
                ev_->thread_name(2, tid + 1, fmt::format("Sched_{}", th));
            }
            // Markers draw event ids in record order; they anchor arrows later.
            std::int64_t id = next_event_id_;
            for (const sched_record& r : recs) {
                if (!is_marker(r.kind)) continue;
                if (r.has_task_id) {
                    markers_.push_back({r.task_id, r.start_us, r.start_us + marker_duration(r), marker_tid(th), id});
                    (r.kind == phase_kind::dummy_task ? dummy_ids_ : skip_ids_).push_back(r.task_id);
                }
                ++id;
            }
            in_chunks(
                recs.size(), next_event_id_, [&](std::size_t i) { return is_marker(recs[i].kind) ? 1 : 0; },
                [&](detail::event_sink& ev, std::size_t i, std::int64_t& event_id, part_state&) {
                    write_phase(ev, recs[i], th, attributed[th][i], event_id);
                });
        }
        ev_->thread_name(2, 3999, "shared_ready_queue (global)");
        ev_->thread_sort(2, 3999, 100);
        std::stable_sort(markers_.begin(), markers_.end(),
                         [](const detail::marker_anchor& a, const detail::marker_anchor& b) { return a.task_id < b.task_id; });
    }

    static bool is_marker(phase_kind k) { return k == phase_kind::dummy_task || k == phase_kind::predicated_skip; }
    static double marker_duration(const sched_record& r) {
        return std::max(r.end_us - r.start_us, detail::marker_min_dur_us);
    }
    static std::int64_t marker_tid(std::size_t th) { return detail::aicpu_tid_base + static_cast<std::int64_t>(th); }

    void write_phase(detail::event_sink& ev, const sched_record& r, std::size_t th, std::uint32_t attributed,
                     std::int64_t& event_id) const {
        const phase_kind k = r.kind;
        if (is_marker(k)) {
            write_marker(ev, r, th, event_id++);
            return;
        }
        if (k == phase_kind::other) return;  // legacy / unknown kinds are not rendered
        // Indexed by phase_kind; the two markers never get here, and generic
        // takes the reference's fallback colour.
        static constexpr const char* colors[] = {
            "good",           "yellow",   "terrible",         "olive",
            "vsync_highlight_color", "rail_animation", "grey", "cq_build_running",
            "cq_build_attempt_runnable", "cq_build_attempt_passed", "rail_animation",
            "", "", "generic_work",
        };
        static_assert(std::size(colors) == static_cast<std::size_t>(phase_kind::other));
        std::int64_t processed = r.tasks_processed;
        if (k == phase_kind::complete && !r.has_tasks_processed) processed = attributed;
        const double dur = r.end_us - r.start_us;
        const std::int64_t tid = detail::sched_lane_tid(static_cast<std::int64_t>(th), k == phase_kind::resolve ? 1 : 0);
        auto& o = ev.next();
        begin_x(o);
        o.append(R"("phase": ")");
        o.append(name_of(k));
        o.push_back('"');
        o.append(R"(, "loop_iter": )");
        o.append_int(r.loop_iter);
        o.append(R"(, "tasks_processed": )");
        o.append_int(processed);
        if (r.depths_valid) {
            o.append(", \"shared_at_start (aic,aiv,mix)\": ");
            depth_list(o, r.depth_start);
            o.append(", \"shared_at_end (aic,aiv,mix)\": ");
            depth_list(o, r.depth_end);
        }
        if (k == phase_kind::complete) {
            o.append(R"(, "finishes_processed": )");
            o.append_int(r.has_tasks_processed ? r.tasks_processed : static_cast<std::int64_t>(attributed));
            if (r.has_tasks_processed) {
                o.append(R"(, "finish_rows_attributed": )");
                o.append_int(attributed);
            }
        }
        x_tail_with(o, "scheduler", colors[static_cast<int>(k)], -1,
                    [&] {
                        o.push_back('"');
                        o.append(name_of(k));
                        o.push_back('(');
                        o.append_int(processed);
                        o.append(")\"");
                    },
                    2, tid, r.start_us, dur);
        if ((k == phase_kind::complete || k == phase_kind::dispatch) && r.depths_valid) {
            auto& c = ev.next();
            c.append(R"({"args": {"AIC": )");
            c.append_int(r.depth_end[0]);
            c.append(R"(, "AIV": )");
            c.append_int(r.depth_end[1]);
            c.append(R"(, "MIX": )");
            c.append_int(r.depth_end[2]);
            c.append(R"(}, "cat": "queue", "name": "shared_ready_queue", "ph": "C", "pid": 2, "tid": 3999, "ts": )");
            c.append_us(r.end_us);
            c.push_back('}');
        }
    }
    static void depth_list(json_buffer& o, const std::int32_t (&d)[3]) {
        o.push_back('[');
        o.append_int(d[0]);
        o.append(", ");
        o.append_int(d[1]);
        o.append(", ");
        o.append_int(d[2]);
        o.push_back(']');
    }

    void write_marker(detail::event_sink& ev, const sched_record& r, std::size_t th, std::int64_t id) const {
        const bool dummy = r.kind == phase_kind::dummy_task;
        const double dur = marker_duration(r);
        const std::string disp = r.has_task_id ? format_task_display(r.task_id) : std::string("unknown");
        std::string name;
        if (dummy) {
            name = fmt::format("dummy({})", disp);
        } else {
            std::int64_t func = -1;
            if (r.has_task_id) {
                if (const auto* k = deps_.kernel_ids(r.task_id)) {
                    for (const auto id : k->ids) {
                        if (id >= 0) {
                            func = id;
                            break;
                        }
                    }
                }
            }
            name = task_label(func, names_, disp, r.has_task_id && is_spmd(r.task_id));
        }
        const std::int64_t tid = marker_tid(th);
        auto& o = ev.next();
        begin_x(o);
        o.append(R"("loop_iter": )");
        o.append_int(r.loop_iter);
        o.append(R"(, "task_id": )");
        if (r.has_task_id) {
            o.append_int(r.task_id);
        } else {
            o.append("null");
        }
        o.append(R"(, "event-hint": )");
        o.append_string(name);
        o.append(dummy ? R"(, "phase": "dummy_task")" : R"(, "predicated_pass": false)");
        x_tail(o, "event", "", id, name, 4, tid, r.start_us, dur);
    }

    // ---- pid 1: host uploads (H2D) and orchestrator bars; pid 4 alloc bars ----
    void write_host_uploads() {
        if (pd_.uploads.empty()) return;
        ev_->process_name(1, "Host Prepare");
        ev_->thread_name(1, 4100, "H2D");
        for (const host_upload& u : pd_.uploads) {
            auto& o = ev_->next();
            o.append(R"({"name": )");
            o.append_string(u.phase);
            o.append(R"(, "cat": "host_h2d", "ph": "X", "pid": 1, "tid": 4100, "ts": )");
            o.append_us(u.start_us);
            o.append(R"(, "dur": )");
            o.append_us(std::max(0.0, u.end_us - u.start_us));
            o.append(R"(, "cname": "thread_state_iowait", "args": {"bytes": )");
            o.append(u.detail_json);
            o.append("}}");
        }
    }

    void write_orchestrator() {
        if (pd_.orch.empty()) return;
        const bool host = pd_.orchestrator_source == "host";
        const std::string process = host                       ? std::string("Host Orchestrator")
                                    : names_.orchestrator_name ? "AICPU " + *names_.orchestrator_name
                                                               : std::string("AICPU Orchestrator");
        ev_->process_name(1, process);
        ev_->process_sort(1, 1);
        for (std::size_t i = 0; i < pd_.orch.size(); ++i) {
            ev_->thread_name(1, 4000 + static_cast<std::int64_t>(i), fmt::format("{}_{}", host ? "Host" : "Orch", i));
        }
        std::sort(dummy_ids_.begin(), dummy_ids_.end());
        std::sort(skip_ids_.begin(), skip_ids_.end());
        auto has = [](const std::vector<std::uint64_t>& v, std::uint64_t id) {
            return std::binary_search(v.begin(), v.end(), id);
        };
        std::vector<std::uint64_t> warned;
        for (std::size_t lane = 0; lane < pd_.orch.size(); ++lane) {
            const std::int64_t tid = 4000 + static_cast<std::int64_t>(lane);
            const std::int64_t worker_tid = detail::aicpu_tid_base + sched_thread_count_ + static_cast<std::int64_t>(lane);
            for (const orch_record& r : pd_.orch[lane]) {
                const double dur = r.end_us - r.start_us;
                const bool valid = r.task_id.valid();
                const std::string disp = valid ? format_task_display(r.task_id.value) : std::string();
                auto& o = ev_->next();
                o.append(R"({"args": {"phase": "orch_submit", "submit_idx": )");
                o.append_int(r.submit_idx);
                o.append(R"(, "task_id": )");
                if (valid) {
                    o.append_int(r.task_id.value);
                } else {
                    o.append_int(static_cast<std::int64_t>(r.task_id.value));
                }
                x_tail(o, "orchestrator", "rail_animation", -1,
                       valid ? fmt::format("submit({})", disp) : fmt::format("submit({})", r.submit_idx), 1, tid,
                       r.start_us, dur);
                if (!valid) continue;
                const std::uint64_t id = r.task_id.value;
                bool regular = false, dummy = false;
                if (const auto* k = deps_.kernel_ids(id)) {
                    dummy = k->ids[0] < 0 && k->ids[1] < 0 && k->ids[2] < 0;
                    regular = !dummy;
                    if (dummy && !has(dummy_ids_, id) && std::find(warned.begin(), warned.end(), id) == warned.end()) {
                        if (opt_.warnings) {
                            fmt::print(opt_.warnings,
                                       "Warning: dummy({}) has no dummy_task scheduler record; its Worker View bar "
                                       "cannot be rendered.\n",
                                       disp);
                        }
                        warned.push_back(id);
                    }
                } else {
                    regular = group(id) != nullptr;
                    dummy = has(dummy_ids_, id);
                }
                if (regular || dummy || has(skip_ids_, id)) continue;
                const double bar = std::max(dur, detail::marker_min_dur_us);
                const std::int64_t eid = next_event_id_++;
                const std::string name = fmt::format("alloc({})", disp);
                auto& a = ev_->next();
                a.append(R"({"args": {"phase": "alloc", "task_id": )");
                a.append_int(id);
                a.append(R"(, "event-hint": )");
                a.append_string(name);
                x_tail(a, "event", "olive", eid, name, 4, worker_tid, r.start_us, bar);
                alloc_markers_.push_back({id, r.start_us, r.start_us + bar, worker_tid, eid});
            }
        }
        // Alloc bars anchor arrows like markers do; keep one sorted list.
        markers_.insert(markers_.end(), alloc_markers_.begin(), alloc_markers_.end());
        std::stable_sort(markers_.begin(), markers_.end(),
                         [](const detail::marker_anchor& a, const detail::marker_anchor& b) { return a.task_id < b.task_id; });
    }

    // ---------------------------------------------------------------- flows
    bool has_rows_or_markers(std::uint64_t id) const {
        if (group(id)) return true;
        auto it = std::lower_bound(markers_.begin(), markers_.end(), id,
                                   [](const detail::marker_anchor& m, std::uint64_t x) { return m.task_id < x; });
        return it != markers_.end() && it->task_id == id;
    }
    // Worker View endpoint (tid, bind id) of an anchor.
    std::pair<std::int64_t, std::int64_t> worker_endpoint(const detail::anchor& a) const {
        if (a.row == detail::none) return {a.tid, a.event_id};
        return {detail::core_tid(a.core), worker_event_of(a.row)};
    }

    // Worker View arrow ends of an id: its rows, or its markers / alloc bars.
    std::size_t worker_anchor_count(std::uint64_t id) const {
        if (const id_group* g = group(id)) return g->anchors;
        const auto [lo, hi] = std::equal_range(markers_.begin(), markers_.end(), detail::marker_anchor{id, 0, 0, 0, 0},
                                               [](const detail::marker_anchor& a, const detail::marker_anchor& b) {
                                                   return a.task_id < b.task_id;
                                               });
        return static_cast<std::size_t>(hi - lo);
    }

    void write_dependency_flows() {
        const bool edges = deps_.edges_usable;
        if (edges) {
            const std::int64_t first_flow = flow_id_;
            in_chunks(
                deps_.edges.size(), flow_id_,
                [&](std::size_t e) -> std::size_t {
                    const deps_edge& edge = deps_.edges[e];
                    if (!has_rows_or_markers(edge.pred)) return 0;
                    if (!has_rows_or_markers(edge.succ)) {
                        if (opt_.verbose) {
                            fmt::print(opt_.verbose,
                                       "Warning: Task {} (raw {}) references non-existent successor {} (raw {})\n",
                                       format_task_display(edge.pred), edge.pred, format_task_display(edge.succ),
                                       edge.succ);
                        }
                        return 0;
                    }
                    return worker_anchor_count(edge.pred) * worker_anchor_count(edge.succ);
                },
                [&](detail::event_sink& ev, std::size_t e, std::int64_t& flow, part_state& part) {
                    write_worker_dependency(ev, deps_.edges[e], flow, part);
                });
            summary_.dependency_flows = static_cast<std::size_t>(flow_id_ - first_flow);
        }
        if (opt_.verbose) {
            if (edges) {
                fmt::print(opt_.verbose, "  Dependency flow events: {} edges (source: deps.json)\n",
                           summary_.dependency_flows);
                const auto spmd = std::count_if(groups_.begin(), groups_.end(), [](const id_group& g) { return g.spmd; });
                if (spmd > 0) {
                    fmt::print(opt_.verbose,
                               "  SPMD tasks: {} logical task(s); dependency arrows independently anchor on each "
                               "view's earliest visible slice per function\n",
                               spmd);
                }
            } else {
                fmt::print(opt_.verbose,
                           "  Flow events: 0 (no deps.json — re-run dep_gen and pass --deps-json to add arrows)\n");
            }
            if (summary_.hb_violations > 0) {
                fmt::print(opt_.verbose, "  Happens-before violations: {} edge(s) flagged as 'hb_violation'\n",
                           summary_.hb_violations);
            }
        }
        if (!has_aicpu_data_ || !edges) return;
        // Scheduler View mirror (AICPU timestamps).
        in_chunks(
            deps_.edges.size(), flow_id_,
            [&](std::size_t e) -> std::size_t {
                const id_group* p = group(deps_.edges[e].pred);
                const id_group* s = group(deps_.edges[e].succ);
                return p && s ? std::size_t{p->scheduler_anchors} * s->scheduler_anchors : 0;
            },
            [&](detail::event_sink& ev, std::size_t e, std::int64_t& flow, part_state& part) {
                write_scheduler_dependency(ev, deps_.edges[e], flow, part);
            });
    }

    void write_worker_dependency(detail::event_sink& ev, const deps_edge& edge, std::int64_t& flow,
                                 part_state& part) const {
        if (!has_rows_or_markers(edge.pred) || !has_rows_or_markers(edge.succ)) return;
        anchors_of(edge.pred, view::worker, true, part.preds);
        anchors_of(edge.succ, view::worker, true, part.succs);
        const std::int64_t out_count = fan_count(edge.pred);
        const std::int64_t in_count = fan_count(edge.succ);
        for (const auto& p : part.preds) {
            for (const auto& s : part.succs) {
                const bool hb = p.end > s.slice_start;
                const char* name = hb ? "hb_violation" : "dependency";
                if (hb) ++part.hb_violations;
                const auto [src_tid, src_id] = worker_endpoint(p);
                const auto [dst_tid, dst_id] = worker_endpoint(s);
                ev.flow(flow, name, 's', 4, src_tid, p.slice_start, src_id, in_count, out_count);
                ev.flow(flow, name, 'f', 4, dst_tid, s.slice_start, dst_id, in_count, out_count);
                ++flow;
            }
        }
    }

    void write_scheduler_dependency(detail::event_sink& ev, const deps_edge& edge, std::int64_t& flow,
                                    part_state& part) const {
        if (!group(edge.pred) || !group(edge.succ)) return;
        anchors_of(edge.pred, view::scheduler, false, part.preds);
        anchors_of(edge.succ, view::scheduler, false, part.succs);
        const std::int64_t out_count = fan_count(edge.pred);
        const std::int64_t in_count = fan_count(edge.succ);
        for (const auto& p : part.preds) {
            for (const auto& s : part.succs) {
                const task& pt = tasks_[p.row];
                const task& st = tasks_[s.row];
                if (!in_scheduler_view(pt) || !in_scheduler_view(st)) continue;
                const char* name = pt.finish_us > st.dispatch_us ? "hb_violation" : "dependency";
                ev.flow(flow, name, 's', 3, sched_tid_of(p.row), pt.dispatch_us, sched_event_of(p.row), in_count,
                        out_count);
                ev.flow(flow, name, 'f', 3, sched_tid_of(s.row), st.dispatch_us, sched_event_of(s.row), in_count,
                        out_count);
                ++flow;
            }
        }
    }

    void write_complete_flows() {
        if (pd_.sched.empty() || pd_.core_to_thread.empty()) return;
        struct completion {
            std::uint64_t id;
            std::size_t thread;
            std::uint32_t phase;  // index into sched[thread]
            double finish;
        };
        std::vector<completion> done;
        for (const id_group& g : groups_) {
            // The last subtask's finish completes the logical task.
            std::uint32_t last = detail::none;
            for (std::uint32_t r = g.first; r < g.first + g.count; ++r) {
                if (tasks_[r].finish_us < 0) continue;
                if (last == detail::none || tasks_[r].finish_us > tasks_[last].finish_us) last = r;
            }
            if (last == detail::none) continue;
            const std::int64_t th = thread_of_core(tasks_[last].core_id);
            if (th < 0 || th >= static_cast<std::int64_t>(pd_.sched.size())) continue;
            const auto c = complete_for(static_cast<std::size_t>(th), tasks_[last].finish_us);
            if (!c) continue;
            done.push_back({g.id, static_cast<std::size_t>(th), *c, tasks_[last].finish_us});
        }
        in_chunks(
            done.size(), flow_id_,
            [&](std::size_t i) -> std::size_t {
                const id_group* g = group(done[i].id);
                return g->anchors + g->finished_anchors;
            },
            [&](detail::event_sink& ev, std::size_t i, std::int64_t& flow, part_state& part) {
                const completion& d = done[i];
                const sched_record& comp = pd_.sched[d.thread][d.phase];
                const std::int64_t dst_tid = detail::sched_lane_tid(static_cast<std::int64_t>(d.thread));
                const double dst_ts = comp.start_us <= d.finish && d.finish <= comp.end_us ? d.finish : comp.start_us;
                anchors_of(d.id, view::worker, false, part.preds);
                for (const auto& a : part.preds) {
                    ev.flow(flow, "complete", 's', 4, detail::core_tid(a.core), a.end - detail::flow_epsilon_us,
                            worker_event_of(a.row));
                    ev.flow(flow, "complete", 'f', 2, dst_tid, dst_ts);
                    ++flow;
                }
                anchors_of(d.id, view::scheduler, false, part.preds);
                for (const auto& a : part.preds) {
                    const task& t = tasks_[a.row];
                    if (t.finish_us <= 0) continue;
                    ev.flow(flow, "complete", 's', 3, sched_tid_of(a.row), t.finish_us - detail::flow_epsilon_us,
                            sched_event_of(a.row));
                    ev.flow(flow, "complete", 'f', 2, dst_tid, dst_ts);
                    ++flow;
                }
            });
        if (!deps_.edges_usable) return;
        write_complete_ready_flows(done);
    }

    template <class Completion>
    void write_complete_ready_flows(const std::vector<Completion>& done) {
        // Walk complete phases by (end, thread); the one that satisfies a
        // consumer's last predecessor released it. Phases of one thread
        // ending together keep their start order.
        struct comp_ref {
            double end;
            std::size_t thread;
            std::uint32_t rank;   // position in completes_[thread]
            std::uint32_t phase;  // index into sched[thread]
        };
        std::vector<comp_ref> order;
        std::vector<std::size_t> slot_base(completes_.size() + 1, 0);  // thread -> first slot of its records
        for (std::size_t th = 0; th < completes_.size(); ++th) {
            slot_base[th + 1] = slot_base[th] + pd_.sched[th].size();
            for (std::uint32_t k = 0; k < completes_[th].size(); ++k) {
                const std::uint32_t c = completes_[th][k];
                order.push_back({pd_.sched[th][c].end_us, th, k, c});
            }
        }
        std::sort(order.begin(), order.end(), [](const comp_ref& a, const comp_ref& b) {
            if (a.end != b.end) return a.end < b.end;
            return a.thread != b.thread ? a.thread < b.thread : a.rank < b.rank;
        });
        // Tasks completed by each phase, in task-id order: a counting sort
        // of `done` by (thread, phase) slot.
        std::vector<std::uint32_t> first_done(slot_base.back() + 1, 0), by_phase(done.size());
        for (const auto& d : done) ++first_done[slot_base[d.thread] + d.phase + 1];
        for (std::size_t k = 1; k < first_done.size(); ++k) first_done[k] += first_done[k - 1];
        {
            std::vector<std::uint32_t> fill(first_done.begin(), first_done.end() - 1);
            for (std::uint32_t i = 0; i < done.size(); ++i) by_phase[fill[slot_base[done[i].thread] + done[i].phase]++] = i;
        }
        // Predecessors not yet complete, per consumer with rows (only those
        // can have an arrow).
        std::vector<std::uint32_t> waiting(groups_.size(), 0);
        for (const deps_edge& e : deps_.edges) {
            if (const std::uint32_t g = group_of_.find(e.succ); g != id_index::npos) ++waiting[g];
        }
        std::vector<std::uint32_t> triggered;
        for (const comp_ref& c : order) {
            const std::size_t slot = slot_base[c.thread] + c.phase;
            triggered.clear();
            for (std::uint32_t k = first_done[slot]; k < first_done[slot + 1]; ++k) {
                auto [slo, shi] = deps_.succs(done[by_phase[k]].id);
                for (auto e = slo; e != shi; ++e) {
                    const std::uint32_t g = group_of_.find(e->succ);
                    if (g != id_index::npos && --waiting[g] == 0) triggered.push_back(g);
                }
            }
            if (triggered.empty()) continue;
            const std::int64_t src_tid = detail::sched_lane_tid(static_cast<std::int64_t>(c.thread));
            for (const std::uint32_t gi : triggered) {
                const id_group& g = groups_[gi];
                // Earliest dispatch of the consumer and its core's thread.
                std::uint32_t first = detail::none;
                for (std::uint32_t r = g.first; r < g.first + g.count; ++r) {
                    if (tasks_[r].dispatch_us < 0) continue;
                    if (first == detail::none || tasks_[r].dispatch_us < tasks_[first].dispatch_us) first = r;
                }
                if (first == detail::none) continue;
                const std::int64_t th = thread_of_core(tasks_[first].core_id);
                if (th < 0) continue;
                const double d = tasks_[first].dispatch_us;
                if (d < c.end) continue;  // dispatched before the complete ended: arrow would point back
                ev_->flow(flow_id_, "complete→ready", 's', 2, src_tid, c.end - detail::flow_epsilon_us);
                ev_->flow(flow_id_, "complete→ready", 'f', 2, detail::sched_lane_tid(th), d);
                ++flow_id_;
            }
        }
    }

    // core -> scheduler thread: core_to_thread when present, else a vote of
    // the dispatch phases containing each task's dispatch time.
    void build_core_threads() {
        if (!pd_.core_to_thread.empty()) {
            for (std::size_t c = 0; c < pd_.core_to_thread.size(); ++c) {
                if (pd_.core_to_thread[c] >= 0) core_thread_.emplace_back(static_cast<std::uint32_t>(c), pd_.core_to_thread[c]);
            }
            if (opt_.verbose) {
                fmt::print(opt_.verbose, "  Core-to-thread mapping: {} cores (from perf JSON)\n", core_thread_.size());
            }
            return;
        }
        // Per thread: dispatch phases sorted by start with a running max end,
        // so "some phase contains t" is one binary search.
        struct span_index {
            std::size_t thread;
            std::vector<std::pair<double, double>> spans;  // (start, running max end)
        };
        std::vector<span_index> threads;
        for (std::size_t th = 0; th < pd_.sched.size(); ++th) {
            span_index s{th, {}};
            for (const auto& r : pd_.sched[th]) {
                if (r.kind == phase_kind::dispatch) s.spans.emplace_back(r.start_us, r.end_us);
            }
            if (s.spans.empty()) continue;
            std::sort(s.spans.begin(), s.spans.end());
            for (std::size_t i = 1; i < s.spans.size(); ++i) s.spans[i].second = std::max(s.spans[i].second, s.spans[i - 1].second);
            threads.push_back(std::move(s));
        }
        struct votes {
            std::uint32_t core;
            std::vector<std::pair<std::size_t, std::int64_t>> per_thread;  // first-vote order
        };
        std::vector<votes> by_core;
        for (const task& t : tasks_) {
            if (t.dispatch_us < 0) continue;
            for (const auto& s : threads) {
                auto it = std::upper_bound(s.spans.begin(), s.spans.end(), t.dispatch_us,
                                           [](double d, const std::pair<double, double>& p) { return d < p.first; });
                if (it == s.spans.begin() || std::prev(it)->second < t.dispatch_us) continue;
                auto v = std::find_if(by_core.begin(), by_core.end(), [&](const votes& x) { return x.core == t.core_id; });
                if (v == by_core.end()) {
                    by_core.push_back({t.core_id, {}});
                    v = std::prev(by_core.end());
                }
                auto pt = std::find_if(v->per_thread.begin(), v->per_thread.end(),
                                       [&](const auto& p) { return p.first == s.thread; });
                if (pt == v->per_thread.end()) {
                    v->per_thread.emplace_back(s.thread, 1);
                } else {
                    ++pt->second;
                }
            }
        }
        for (const votes& v : by_core) {
            auto best = v.per_thread.begin();
            for (auto it = v.per_thread.begin(); it != v.per_thread.end(); ++it) {
                if (it->second > best->second) best = it;
            }
            core_thread_.emplace_back(v.core, static_cast<std::int64_t>(best->first));
        }
        std::sort(core_thread_.begin(), core_thread_.end());
        if (opt_.verbose) {
            fmt::print(opt_.verbose, "  Core-to-thread mapping: {} cores (inferred via voting)\n", core_thread_.size());
        }
    }
    std::int64_t dispatch_thread(std::uint32_t core) const {
        auto it = std::lower_bound(core_thread_.begin(), core_thread_.end(), std::make_pair(core, std::int64_t{-1}),
                                   [](const auto& a, const auto& b) { return a.first < b.first; });
        return it != core_thread_.end() && it->first == core ? it->second : -1;
    }

    void write_dispatch_flows() {
        if (pd_.sched.empty() || !has_aicpu_data_) return;
        build_core_threads();
        // Two arrows per dispatched task whose core has a scheduler thread.
        std::vector<std::int64_t> thread(tasks_.size(), -1);
        for (std::size_t i = 0; i < tasks_.size(); ++i) {
            if (tasks_[i].dispatch_us >= 0) thread[i] = dispatch_thread(tasks_[i].core_id);
        }
        in_chunks(
            tasks_.size(), flow_id_, [&](std::size_t i) { return thread[i] >= 0 ? 2 : 0; },
            [&](detail::event_sink& ev, std::size_t i, std::int64_t& flow, part_state&) {
                if (thread[i] < 0) return;
                const task& t = tasks_[i];
                const auto row = static_cast<std::uint32_t>(i);
                const std::int64_t sched_tid = detail::sched_lane_tid(thread[i]);
                ev.flow(flow, "dispatch", 's', 2, sched_tid, t.dispatch_us);
                ev.flow(flow, "dispatch", 'f', 4, detail::core_tid(t.core_id), t.start_us);
                ++flow;
                ev.flow(flow, "dispatch", 's', 2, sched_tid, t.dispatch_us);
                ev.flow(flow, "dispatch", 'f', 3, sched_tid_of(row), t.dispatch_us, sched_event_of(row));
                ++flow;
            });
    }

    void write_submit_flows() {
        if (pd_.orch.empty() || pd_.sched.empty() || !has_aicpu_data_) return;
        // Host-orchestrated traces without calibrated clocks cannot say how far
        // apart submit and dispatch were: no cross-domain arrows then.
        if (pd_.orchestrator_source == "host" && !pd_.cross_domain_latency_available) return;
        struct submit {
            std::uint64_t id;
            double end;
            std::size_t lane;
            std::size_t seq;
        };
        std::vector<submit> first;  // first orch_submit per task id
        std::size_t seq = 0;
        for (std::size_t lane = 0; lane < pd_.orch.size(); ++lane) {
            for (const orch_record& r : pd_.orch[lane]) {
                if (r.task_id.valid()) first.push_back({r.task_id.value, r.end_us, lane, seq++});
            }
        }
        std::stable_sort(first.begin(), first.end(), [](const submit& a, const submit& b) { return a.id < b.id; });
        first.erase(std::unique(first.begin(), first.end(), [](const submit& a, const submit& b) { return a.id == b.id; }),
                    first.end());
        if (first.empty()) return;
        // Per task: its first submit, when it has one and a dispatch arrow.
        std::vector<const submit*> submit_of(tasks_.size(), nullptr);
        for (std::size_t i = 0; i < tasks_.size(); ++i) {
            const task& t = tasks_[i];
            if (t.dispatch_us < 0 || dispatch_thread(t.core_id) < 0) continue;
            auto it = std::lower_bound(first.begin(), first.end(), t.task_id,
                                       [](const submit& s, std::uint64_t id) { return s.id < id; });
            if (it != first.end() && it->id == t.task_id) submit_of[i] = &*it;
        }
        in_chunks(
            tasks_.size(), flow_id_, [&](std::size_t i) { return submit_of[i] ? 1 : 0; },
            [&](detail::event_sink& ev, std::size_t i, std::int64_t& flow, part_state&) {
                const submit* s = submit_of[i];
                if (!s) return;
                const task& t = tasks_[i];
                ev.flow(flow, "submit→dispatch", 's', 1, 4000 + static_cast<std::int64_t>(s->lane), s->end);
                ev.flow(flow, "submit→dispatch", 'f', 2, detail::sched_lane_tid(dispatch_thread(t.core_id)),
                        t.dispatch_us);
                ++flow;
            });
    }

    // ---- --overhead counter tracks (pid 2, §4.9) ----
    void write_overhead_counters() {
        if (!deps_.has_edges() || tasks_.empty()) return;
        overhead_sweep sweep;
        const auto k = cores_per_type(pd_);
        for (const char* name : {"aic", "aiv"}) {
            for (std::size_t i = 0; i < pd_.core_type_names.size(); ++i) {
                if (pd_.core_type_names[i] == name && k[i] > 0) {
                    sweep.types.push_back(static_cast<std::uint16_t>(i));
                    sweep.k.push_back(k[i]);
                }
            }
        }
        if (sweep.types.empty()) return;
        sweep.w0 = tasks_.front().start_us;
        sweep.w1 = tasks_.front().end_us;
        for (const task& t : tasks_) {
            sweep.w0 = std::min(sweep.w0, t.start_us);
            sweep.w1 = std::max(sweep.w1, t.end_us);
        }
        struct track {
            std::string name;
            std::int64_t tid;
            std::int64_t prev = std::numeric_limits<std::int64_t>::min();
        };
        std::vector<track> tracks;
        for (const auto type : sweep.types) {
            const std::string& n = pd_.core_type_names[type];
            const std::int64_t base = n == "aic" ? 9101 : 9111;
            tracks.push_back({"oh_" + n + "_idle", base});
            tracks.push_back({"oh_" + n + "_ready", base + 1});
            tracks.push_back({"oh_" + n + "_overhead", base + 2});
        }
        tracks.push_back({"oh_all_overhead", 9121});
        tracks.push_back({"oh_has_overhead", 9122});
        std::vector<std::int64_t> vals(tracks.size());
        sweep.run(pd_, deps_, [&](double a, double, const auto& running, const auto& ready) {
            bool all = true, has_work = false, work_idle = true;
            for (std::size_t i = 0; i < sweep.types.size(); ++i) {
                const std::int64_t idle = sweep.k[i] - running[i];
                const bool ov = idle > 0 && ready[i] > 0;
                vals[3 * i] = idle;
                vals[3 * i + 1] = ready[i];
                vals[3 * i + 2] = ov ? 1 : 0;
                all = all && ov;
                if (ready[i] > 0) {
                    has_work = true;
                    work_idle = work_idle && idle > 0;
                }
            }
            vals[vals.size() - 2] = all ? 1 : 0;
            vals[vals.size() - 1] = has_work && work_idle ? 1 : 0;
            const double ts = round3(a);
            for (std::size_t i = 0; i < tracks.size(); ++i) {
                if (tracks[i].prev == vals[i]) continue;
                tracks[i].prev = vals[i];
                auto& o = ev_->next();
                o.append(R"({"ph": "C", "cat": "overhead", "name": )");
                o.append_string(tracks[i].name);
                o.append(R"(, "pid": 2, "tid": )");
                o.append_int(tracks[i].tid);
                o.append(R"(, "ts": )");
                o.append_us(ts);
                o.append(R"(, "args": {)");
                o.append_string(tracks[i].name);
                o.append(": ");
                o.append_int(vals[i]);
                o.append("}}");
                ++summary_.overhead_points;
            }
        });
        if (opt_.verbose) {
            fmt::print(opt_.verbose, "  Overhead Analysis: {} counter points (8 tracks)\n", summary_.overhead_points);
        }
    }
    // Python's round(x, 3): the double nearest to the correctly rounded decimal.
    static double round3(double x) {
        char buf[64];
        auto* end = fmt::format_to(buf, "{:.3f}", x);
        *end = '\0';
        return std::strtod(buf, nullptr);
    }

    perf_data& pd_;
    std::vector<task>& tasks_;
    const deps_graph& deps_;
    const name_map& names_;
    trace_options opt_;
    json_file_writer* file_ = nullptr;
    detail::event_sink* ev_ = nullptr;
    trace_summary summary_;

    std::vector<id_group> groups_;
    id_index group_of_;  // task id -> index in groups_
    std::vector<std::uint32_t> cores_;
    bool has_aicpu_data_ = false;
    std::int64_t sched_thread_count_ = 0;
    std::vector<std::uint32_t> sched_rank_;  // per row: rank among Scheduler View slices, or none
    std::vector<std::uint32_t> sched_lane_;  // per row: Scheduler View sub-lane
    std::vector<std::int64_t> sched_tids_used_;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> core_first_sched_row_;  // (core, first row by dispatch)
    std::vector<std::uint32_t> key_worker_row_, key_sched_row_, key_tid_row_;
    std::int64_t worker_event_base_ = 0;
    std::int64_t sched_event_base_ = 0;
    std::int64_t next_event_id_ = 0;
    std::int64_t flow_id_ = 0;
    std::vector<std::vector<std::uint32_t>> completes_;
    std::vector<detail::marker_anchor> markers_, alloc_markers_;
    std::vector<std::uint64_t> dummy_ids_, skip_ids_;
    std::vector<std::pair<std::uint32_t, std::int64_t>> core_thread_;
    struct stem {
        std::int64_t func_id;
        bool spmd;
        std::string text;
    };
    std::vector<stem> stems_;  // sorted by (func_id, spmd)
};

inline trace_summary write_trace(perf_data& pd, const deps_graph& deps, const name_map& names,
                                 json_file_writer& out, const trace_options& opt) {
    return trace_writer(pd, deps, names, opt).write(out);
}

}  // namespace dfx::convert::swimlane
