// scheduler_slices: the AICPU Scheduler process (pid 2): one slice per
// scheduler phase record on its thread's Sched_<k> lane (resolve phases on a
// second lane), coloured by kind, with the ready-queue counter after complete
// / dispatch phases; and the dummy_task / predicated_skip markers, which the
// reference draws on the Worker View's AICPU_<k> lanes (pid 4). Markers draw
// event ids in record order and are kept in `markers` as arrow anchors.
//
//   write_scheduler_phases(cx, index, markers);
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/swimlane/labels.hpp"
#include "dfx/convert/swimlane/trace/context.hpp"
#include "dfx/convert/swimlane/trace/counters.hpp"
#include "dfx/convert/swimlane/trace/index.hpp"
#include "dfx/convert/swimlane/trace/layout.hpp"
#include "dfx/convert/swimlane/trace/markers.hpp"

namespace dfx::convert::swimlane::trace {

namespace phase_detail {

inline bool is_marker(phase_kind k) { return k == phase_kind::dummy_task || k == phase_kind::predicated_skip; }
inline double marker_duration(double start_us, double end_us) { return std::max(end_us - start_us, marker_min_dur_us); }
inline std::int64_t marker_tid(std::size_t th) { return layout::aicpu_lane_tid(static_cast<std::int64_t>(th)); }

inline void depth_list(json_buffer& o, const std::int32_t (&d)[3]) {
    o.push_back('[');
    o.append_int(d[0]);
    o.append(", ");
    o.append_int(d[1]);
    o.append(", ");
    o.append_int(d[2]);
    o.push_back(']');
}

// Finishes of task rows attributed to each complete phase (by thread, then
// record index): the phase containing the finish, else the next to start.
inline std::vector<std::vector<std::uint32_t>> finishes_per_phase(const trace_index& index) {
    const perf_data& pd = index.pd;
    std::vector<std::vector<std::uint32_t>> attributed(pd.sched.size());
    for (std::size_t th = 0; th < pd.sched.size(); ++th) attributed[th].assign(pd.sched[th].size(), 0);
    if (pd.core_to_thread.empty()) return attributed;
    for (const task& t : index.tasks) {
        if (t.finish_us < 0) continue;
        const std::int64_t th = index.thread_of_core(t.core_id);
        if (th < 0 || th >= static_cast<std::int64_t>(pd.sched.size())) continue;
        if (auto k = index.complete_for(static_cast<std::size_t>(th), t.finish_us)) ++attributed[th][index.completes[th][*k]];
    }
    return attributed;
}

inline void write_marker(event_sink& ev, const trace_index& index, const sched_record& r, std::size_t th,
                         std::int64_t id) {
    const bool dummy = r.kind == phase_kind::dummy_task;
    const double start = index.pd.start_us(r);
    const double dur = marker_duration(start, index.pd.end_us(r));
    const std::string disp = r.has_task_id ? format_task_display(r.task_id) : std::string("unknown");
    std::string name;
    if (dummy) {
        name = fmt::format("dummy({})", disp);
    } else {
        std::int64_t func = -1;
        if (r.has_task_id) {
            if (const auto* k = index.deps.kernel_ids(r.task_id)) {
                for (const auto kernel : k->ids) {
                    if (kernel >= 0) {
                        func = kernel;
                        break;
                    }
                }
            }
        }
        name = task_label(func, index.names, disp, r.has_task_id && index.is_spmd(r.task_id));
    }
    if (ev.protobuf()) {
        // event-hint repeats the name, phase / predicated_pass its kind.
        const pf_slice s{"event", name, layout::worker_view_pid, marker_tid(th), start, dur, id};
        if (r.has_task_id) {
            ev.slice(s, {pf_arg::of("loop_iter", r.loop_iter), pf_arg::of("task_id", static_cast<std::int64_t>(r.task_id))});
        } else {
            ev.slice(s, {pf_arg::of("loop_iter", r.loop_iter)});
        }
        return;
    }
    auto& o = ev.next_slice(start, dur);
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
    x_tail(o, "event", "", id, name, layout::worker_view_pid, marker_tid(th), start, dur);
}

inline void write_phase(event_sink& ev, const trace_index& index, const sched_record& r, std::size_t th,
                        std::uint32_t attributed, std::int64_t& event_id) {
    const phase_kind k = r.kind;
    if (is_marker(k)) {
        write_marker(ev, index, r, th, event_id++);
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
    const double start = index.pd.start_us(r), end = index.pd.end_us(r);
    const double dur = end - start;
    const std::int64_t tid = layout::sched_lane_tid(static_cast<std::int64_t>(th), k == phase_kind::resolve ? 1 : 0);
    if (ev.protobuf()) {
        // "phase" is the name's stem; the queue depths are the counter track.
        const std::string name = fmt::format("{}({})", name_of(k), processed);
        const pf_slice s{"scheduler", name, layout::scheduler_pid, tid, start, dur};
        std::vector<pf_arg> args{pf_arg::of("loop_iter", r.loop_iter), pf_arg::of("tasks_processed", processed)};
        if (k == phase_kind::complete) {
            args.push_back(pf_arg::of("finishes_processed", r.has_tasks_processed ? r.tasks_processed
                                                                                   : static_cast<std::int64_t>(attributed)));
            if (r.has_tasks_processed) args.push_back(pf_arg::of("finish_rows_attributed", attributed));
        }
        ev.slice(s, args);
        if ((k == phase_kind::complete || k == phase_kind::dispatch) && r.depths_valid) write_ready_queue_point(ev, r, end);
        return;
    }
    auto& o = ev.next_slice(start, dur);
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
                layout::scheduler_pid, tid, start, dur);
    if ((k == phase_kind::complete || k == phase_kind::dispatch) && r.depths_valid) write_ready_queue_point(ev, r, end);
}

}  // namespace phase_detail

inline void write_scheduler_phases(trace_context& cx, const trace_index& index, marker_list& markers) {
    using namespace phase_detail;
    const perf_data& pd = index.pd;
    if (pd.sched.empty()) return;
    cx.ev.process_name(layout::scheduler_pid, "AICPU Scheduler");
    cx.ev.process_sort(layout::scheduler_pid, layout::scheduler_sort_index);
    const auto attributed = finishes_per_phase(index);
    for (std::size_t th = 0; th < pd.sched.size(); ++th) {
        const auto& recs = pd.sched[th];
        const std::int64_t tid = layout::sched_lane_tid(static_cast<std::int64_t>(th), 0);
        cx.ev.thread_name(layout::scheduler_pid, tid, fmt::format("Sched_{}", th));
        bool resolves = false;
        for (std::size_t i = 0; i < recs.size() && !resolves; ++i) resolves = recs.phases.kind(i) == phase_kind::resolve;
        if (resolves) {
            cx.ev.thread_name(layout::scheduler_pid, tid + 1, fmt::format("Sched_{}", th));
        }
        // Markers draw event ids in record order; they anchor arrows later.
        std::int64_t id = cx.next_event_id;
        recs.phases.for_each_where(is_marker, [&](std::size_t, const sched_record& r) {
            if (r.has_task_id) {
                const double start = pd.start_us(r);
                markers.add_scheduler_marker({r.task_id, start, start + marker_duration(start, pd.end_us(r)), marker_tid(th), id},
                                             r.kind == phase_kind::dummy_task);
            }
            ++id;
        });
        cx.in_chunks(
            recs.size(), cx.next_event_id, [&](std::size_t i) { return is_marker(recs.phases.kind(i)) ? 1 : 0; },
            [&](event_sink& ev, std::size_t i, std::int64_t& event_id, part_state& part) {
                write_phase(ev, index, part.phases(recs.phases, i), th, attributed[th][i], event_id);
            });
    }
    cx.ev.thread_name(layout::scheduler_pid, layout::ready_queue_tid, "shared_ready_queue (global)");
    cx.ev.thread_sort(layout::scheduler_pid, layout::ready_queue_tid, layout::ready_queue_sort_index);
    markers.sort();
}

}  // namespace dfx::convert::swimlane::trace
