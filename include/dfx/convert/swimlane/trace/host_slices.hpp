// host_slices: process 1 and what hangs off it: host uploads on the H2D lane
// ("Host Prepare"), one orch_submit slice per orchestrator record on its
// Orch_<k> / Host_<k> lane, and an alloc bar on the Worker View's AICPU lane
// for each submitted id that nothing else draws (no task rows, no kernels, no
// marker). Alloc bars draw event ids and become arrow anchors in `markers`.
//
//   write_host_uploads(cx, index);
//   write_orchestrator(cx, index, markers);   // after write_scheduler_phases
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/swimlane/labels.hpp"
#include "dfx/convert/swimlane/trace/context.hpp"
#include "dfx/convert/swimlane/trace/index.hpp"
#include "dfx/convert/swimlane/trace/layout.hpp"
#include "dfx/convert/swimlane/trace/markers.hpp"

namespace dfx::convert::swimlane::trace {

inline void write_host_uploads(trace_context& cx, const trace_index& index) {
    const perf_data& pd = index.pd;
    if (pd.uploads.empty()) return;
    cx.ev.process_name(layout::host_pid, "Host Prepare");
    cx.ev.thread_name(layout::host_pid, layout::h2d_tid, "H2D");
    for (const host_upload& u : pd.uploads) {
        if (cx.ev.protobuf()) {
            // "bytes": an integer, else the JSON text the records hold.
            std::int64_t n = 0;
            const char* end = u.detail_json.data() + u.detail_json.size();
            const auto [at, ec] = std::from_chars(u.detail_json.data(), end, n);
            cx.ev.slice({"host_h2d", u.phase, layout::host_pid, layout::h2d_tid, u.start_us,
                         std::max(0.0, u.end_us - u.start_us)},
                        {ec == std::errc() && at == end ? pf_arg::of("bytes", n) : pf_arg::of_text("bytes", u.detail_json)});
            continue;
        }
        auto& o = cx.ev.next_slice(u.start_us, std::max(0.0, u.end_us - u.start_us));
        o.append(R"({"name": )");
        o.append_string(u.phase);
        o.append(R"(, "cat": "host_h2d", "ph": "X", "pid": )");
        o.append_int(layout::host_pid);
        o.append(R"(, "tid": )");
        o.append_int(layout::h2d_tid);
        o.append(R"(, "ts": )");
        o.append_us(u.start_us);
        o.append(R"(, "dur": )");
        o.append_us(std::max(0.0, u.end_us - u.start_us));
        o.append(R"(, "cname": "thread_state_iowait", "args": {"bytes": )");
        o.append(u.detail_json);
        o.append("}}");
    }
}

namespace host_detail {

// `start_us`, `end_us`: r's times on the trace's axis (perf_data::orch_us).
inline void write_submit(event_sink& ev, const orch_record& r, double start_us, double end_us, std::int64_t tid,
                         const std::string& disp) {
    const bool valid = r.task_id.valid();
    if (ev.protobuf()) {
        // "phase" is the category's.
        ev.slice({"orchestrator", valid ? fmt::format("submit({})", disp) : fmt::format("submit({})", r.submit_idx),
                  layout::host_pid, tid, start_us, end_us - start_us, -1, pf_slice::inline_text},
                 {pf_arg::of("submit_idx", static_cast<std::int64_t>(r.submit_idx)),
                  pf_arg::of("task_id", static_cast<std::int64_t>(r.task_id.value))});
        return;
    }
    auto& o = ev.next_slice(start_us, end_us - start_us);
    o.append(R"({"args": {"phase": "orch_submit", "submit_idx": )");
    o.append_int(r.submit_idx);
    o.append(R"(, "task_id": )");
    if (valid) {
        o.append_int(r.task_id.value);
    } else {
        o.append_int(static_cast<std::int64_t>(r.task_id.value));
    }
    x_tail(o, "orchestrator", "rail_animation", -1,
           valid ? fmt::format("submit({})", disp) : fmt::format("submit({})", r.submit_idx), layout::host_pid, tid,
           start_us, end_us - start_us);
}

// `dur` as computed, not bar.end - bar.start, which may differ in the last bit.
inline void write_alloc_bar(event_sink& ev, const marker_anchor& bar, double dur, const std::string& disp) {
    const std::string name = fmt::format("alloc({})", disp);
    if (ev.protobuf()) {
        // event-hint repeats the name.
        ev.slice({"event", name, layout::worker_view_pid, bar.tid, bar.start, dur, bar.event_id},
                 {pf_arg::of("task_id", static_cast<std::int64_t>(bar.task_id))});
        return;
    }
    auto& a = ev.next_slice(bar.start, dur);
    a.append(R"({"args": {"phase": "alloc", "task_id": )");
    a.append_int(bar.task_id);
    a.append(R"(, "event-hint": )");
    a.append_string(name);
    x_tail(a, "event", "olive", bar.event_id, name, layout::worker_view_pid, bar.tid, bar.start, dur);
}

}  // namespace host_detail

inline void write_orchestrator(trace_context& cx, const trace_index& index, marker_list& markers) {
    const perf_data& pd = index.pd;
    if (pd.orch.empty()) return;
    const bool host = pd.orchestrator_source == "host";
    const std::string process = host                            ? std::string("Host Orchestrator")
                                : index.names.orchestrator_name ? "AICPU " + *index.names.orchestrator_name
                                                                : std::string("AICPU Orchestrator");
    cx.ev.process_name(layout::host_pid, process);
    cx.ev.process_sort(layout::host_pid, layout::host_sort_index);
    for (std::size_t i = 0; i < pd.orch.size(); ++i) {
        cx.ev.thread_name(layout::host_pid, layout::orchestrator_tid(i), fmt::format("{}_{}", host ? "Host" : "Orch", i));
    }
    markers.sort_marker_ids();
    std::vector<std::uint64_t> warned;
    std::vector<std::uint8_t> has_bar;  // per record of a lane: an alloc bar drawn for it
    for (std::size_t lane = 0; lane < pd.orch.size(); ++lane) {
        const auto& recs = pd.orch[lane];
        const std::int64_t tid = layout::orchestrator_tid(lane);
        const std::int64_t worker_tid = layout::aicpu_lane_tid(index.sched_thread_count + static_cast<std::int64_t>(lane));
        // Which records get an alloc bar, and the warnings, decided first in
        // record order (the bars draw event ids and become markers); then
        // the slices are written in chunks on two threads.
        has_bar.assign(recs.size(), 0);
        std::int64_t bar_id = cx.next_event_id;
        std::size_t i = 0;
        for (auto it = recs.begin(); i < recs.size(); ++it, ++i) {
            const orch_record& r = *it;
            if (!r.task_id.valid()) continue;
            const std::uint64_t id = r.task_id.value;
            bool regular = false, dummy = false;
            if (const auto* k = index.deps.kernel_ids(id)) {
                dummy = k->ids[0] < 0 && k->ids[1] < 0 && k->ids[2] < 0;
                regular = !dummy;
                if (dummy && !markers.has_dummy(id) && std::find(warned.begin(), warned.end(), id) == warned.end()) {
                    if (cx.opt.warnings) {
                        fmt::print(cx.opt.warnings,
                                   "Warning: dummy({}) has no dummy_task scheduler record; its Worker View bar "
                                   "cannot be rendered.\n",
                                   format_task_display(id));
                    }
                    warned.push_back(id);
                }
            } else {
                regular = index.group(id) != nullptr;
                dummy = markers.has_dummy(id);
            }
            if (regular || dummy || markers.has_skip(id)) continue;
            has_bar[i] = 1;
            const double start_us = pd.orch_us(r.start), end_us = pd.orch_us(r.end);
            const double bar = std::max(end_us - start_us, marker_min_dur_us);
            markers.add_alloc_bar({id, start_us, start_us + bar, worker_tid, bar_id++});
        }
        const orch_phase_marks marks(recs);
        cx.in_chunks(
            recs.size(), cx.next_event_id, [&](std::size_t k) { return has_bar[k]; },
            [&](event_sink& ev, std::size_t k, std::int64_t& event_id, part_state& part) {
                const orch_record& r = part.orch(marks, k);
                const double start_us = pd.orch_us(r.start), end_us = pd.orch_us(r.end);
                const bool valid = r.task_id.valid();
                const std::string disp = valid ? format_task_display(r.task_id.value) : std::string();
                host_detail::write_submit(ev, r, start_us, end_us, tid, disp);
                if (!has_bar[k]) return;
                const double bar = std::max(end_us - start_us, marker_min_dur_us);
                host_detail::write_alloc_bar(ev, {r.task_id.value, start_us, start_us + bar, worker_tid, event_id++},
                                             bar, disp);
            });
    }
    markers.merge_alloc_bars();
    markers.sort();
}

}  // namespace dfx::convert::swimlane::trace
