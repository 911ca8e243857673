// task_slices: one slice per task row in the Worker View (pid 4, receive ->
// end on the core's lane) and, for rows with AICPU timing, in the Scheduler
// View (pid 3, dispatch -> finish on the core's greedy sub-lane), with the
// processes' and lanes' metadata. Event ids come from the index, so arrows
// written later can bind to these slices. With options.named_tasks (a CPM
// trace) the Worker View bars of the other tasks are named ·(tY).
//
//   write_worker_view(cx, index);      // also names pid 3 when it has slices
//   write_scheduler_view(cx, index);
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>

#include <fmt/format.h>

#include "dfx/convert/swimlane/labels.hpp"
#include "dfx/convert/swimlane/trace/context.hpp"
#include "dfx/convert/swimlane/trace/index.hpp"
#include "dfx/convert/swimlane/trace/layout.hpp"
#include "dfx/convert/swimlane/trace/task_labels.hpp"

namespace dfx::convert::swimlane::trace {

// "fanout-hint" / "fanin-hint": "<n>: [disp, ...]" of the successors /
// predecessors in deps.json.
inline void put_fan_hints(json_buffer& o, const deps_graph& deps, std::uint64_t id) {
    o.append(R"(, "fanout-hint": ")");
    if (deps.edges_usable) {
        auto [lo, hi] = deps.succs(id);
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
    if (deps.edges_usable) {
        auto [plo, phi] = deps.preds(id);
        o.append_int(phi - plo);
        o.append(": [");
        for (auto p = plo; p != phi; ++p) {
            if (p != plo) o.append(", ");
            put_display(o, deps.edges[*p].pred);
        }
    } else {
        o.append("0: [");
    }
    o.append(R"(]")");
}

inline void write_worker_view(trace_context& cx, const trace_index& index) {
    const auto& tasks = index.tasks;
    cx.ev.process_name(layout::worker_view_pid, "Worker View");
    cx.ev.process_sort(layout::worker_view_pid, layout::worker_view_sort_index);
    if (index.has_aicpu_data) {
        cx.ev.process_name(layout::scheduler_view_pid, "Scheduler View");
        cx.ev.process_sort(layout::scheduler_view_pid, layout::scheduler_view_sort_index);
    }
    for (const std::uint32_t core : index.cores) {
        auto it = std::find_if(tasks.begin(), tasks.end(), [&](const task& t) { return t.core_id == core; });
        cx.ev.thread_name(layout::worker_view_pid, layout::core_tid(core),
                          fmt::format("{}_{}", upper(index.type_name(*it)), core));
    }
    const std::int64_t lanes = index.sched_thread_count + static_cast<std::int64_t>(index.pd.orch.size());
    for (std::int64_t k = 0; k < lanes; ++k) {
        cx.ev.thread_name(layout::worker_view_pid, layout::aicpu_lane_tid(k), fmt::format("AICPU_{}", k));
    }
    const std::unordered_set<std::uint64_t>* const named = cx.opt.named_tasks;
    cx.in_chunks(tasks.size(), [&](event_sink& ev, std::size_t i) {
        const task& t = tasks[i];
        const double ts = t.receive_us;
        const double dur = t.end_us - ts;
        const std::int64_t id = index.worker_event_base + static_cast<std::int64_t>(i);
        // A CPM trace names the bars off its path anonymously.
        const bool anonymous = named && named->count(t.task_id) == 0;
        if (ev.protobuf()) {
            // The hints are left out: event-hint repeats the name, track and
            // func id; the fan hints are the flows.
            ev.slice({"event", anonymous ? anonymous_task_label(t.task_id)
                                         : label_text(index.stems, t.func_id, t.task_id, index.is_spmd(t.task_id)),
                      layout::worker_view_pid, layout::core_tid(t.core_id), ts, dur, id, pf_slice::inline_text},
                     {pf_arg::of("taskId", static_cast<std::int64_t>(t.task_id)),
                      pf_arg::of("func_id", t.func_id),
                      pf_arg::of_us("kernel-duration-us", t.duration_us()),
                      pf_arg::of_us("local_setup_us", t.local_setup_us() != 0.0 ? t.local_setup_us() : 0.0)});
            return;
        }
        auto& o = ev.next_slice(ts, dur);
        begin_x(o);
        put_task_hint(o, t);
        put_fan_hints(o, index.deps, t.task_id);
        o.append(R"(, "duration-us": )");
        o.append_us(dur);
        o.append(R"(, "kernel-duration-us": )");
        o.append_us(t.duration_us());
        o.append(R"(, "local_setup_us": )");
        o.append_us(t.local_setup_us() != 0.0 ? t.local_setup_us() : 0.0);
        o.append(R"(, "taskId": )");
        o.append_int(t.task_id);
        x_tail_with(o, "event", "", id,
                    [&] {
                        if (anonymous) return o.append_string(anonymous_task_label(t.task_id));
                        put_label(o, index.stems, t.func_id, t.task_id, index.is_spmd(t.task_id));
                    },
                    layout::worker_view_pid, layout::core_tid(t.core_id), ts, dur);
    });
}

inline void write_scheduler_view(trace_context& cx, const trace_index& index) {
    if (!index.has_aicpu_data) return;
    const auto& tasks = index.tasks;
    const auto& used_tids = index.sched_tids_used;
    for (const std::uint32_t core : index.cores) {
        const std::int64_t base = layout::core_tid(core);
        auto first = std::find_if(index.core_first_sched_row.begin(), index.core_first_sched_row.end(),
                                  [&](const auto& p) { return p.first == core; });
        const std::string type = first != index.core_first_sched_row.end() ? upper(index.type_name(tasks[first->second]))
                                                                             : std::string("unknown");
        const std::string name = fmt::format("{}_{}", type, core);
        auto used = [&](std::int64_t tid) { return std::binary_search(used_tids.begin(), used_tids.end(), tid); };
        if (used(base) || used_tids.empty()) cx.ev.thread_name(layout::scheduler_view_pid, base, name);
        if (used(base + 1)) cx.ev.thread_name(layout::scheduler_view_pid, base + 1, name);
    }
    cx.in_chunks(tasks.size(), [&](event_sink& ev, std::size_t i) {
        if (index.sched_rank[i] == none) return;
        const task& t = tasks[i];
        const double dur = t.finish_us - t.dispatch_us;
        if (ev.protobuf()) {
            // dispatch / finish times are the slice's ends.
            ev.slice({"event", label_text(index.stems, t.func_id, t.task_id, index.is_spmd(t.task_id)),
                      layout::scheduler_view_pid, index.sched_tid_of(static_cast<std::uint32_t>(i)), t.dispatch_us,
                      dur, index.sched_event_base + index.sched_rank[i], pf_slice::inline_text},
                     {pf_arg::of("taskId", static_cast<std::int64_t>(t.task_id))});
            return;
        }
        auto& o = ev.next_slice(t.dispatch_us, dur);
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
        x_tail_with(o, "event", "", index.sched_event_base + index.sched_rank[i],
                    [&] { put_label(o, index.stems, t.func_id, t.task_id, index.is_spmd(t.task_id)); },
                    layout::scheduler_view_pid, index.sched_tid_of(static_cast<std::uint32_t>(i)), t.dispatch_us, dur);
    });
}

}  // namespace dfx::convert::swimlane::trace
