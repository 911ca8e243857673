// trace_writer: the merged Perfetto / Chrome trace of a swimlane capture
// (spec chip-swimlane.md §4): the same processes, threads, slices, counters
// and flow arrows as the reference converter, streamed to the output file as
// they are produced (nothing is kept per event). This header only composes
// the sections, in the reference's order; each lives in trace/:
//
//   layout.hpp            pids, tids and sort indices by name
//   event_shapes.hpp      the JSON of metadata, slices and flow endpoints
//   index.hpp             task groups, lanes, event ids, arrow anchors
//   markers.hpp           dummy / skip markers and alloc bars as anchors
//   graph_envelopes.hpp   pid 5
//   task_slices.hpp       pids 4 and 3: one slice per task row
//   scheduler_slices.hpp  pid 2 phases, pid 4 markers
//   host_slices.hpp       pid 1 uploads and submits, pid 4 alloc bars
//   dependency_flows.hpp  deps.json arrows in both views
//   scheduler_flows.hpp   complete, complete→ready, dispatch, submit→dispatch
//   counters.hpp          ready-queue and --overhead counter tracks
//
// With options.format == perfetto the same sections write Perfetto's
// protobuf instead (trace/perfetto_packets.hpp): one event_sink, two backends.
// With options.window only that stretch of time is written, in either format
// (time_window.hpp; the sink applies it, the sections do not).
//
// The trace reads the capture and never changes it. Func ids the records
// left unresolved are resolved by the caller first (func_ids.hpp), since the
// statistics table shows them too:
//
//   resolve_func_ids(pd, deps);
//   json_file_writer out(path);
//   const trace_summary s = write_trace(pd, deps, names, out, options);
//   out.commit();
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "dfx/convert/common/io_progress.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/name_map.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/trace/context.hpp"
#include "dfx/convert/swimlane/trace/counters.hpp"
#include "dfx/convert/swimlane/trace/dependency_flows.hpp"
#include "dfx/convert/swimlane/trace/dispatch_threads.hpp"
#include "dfx/convert/swimlane/trace/graph_envelopes.hpp"
#include "dfx/convert/swimlane/trace/host_slices.hpp"
#include "dfx/convert/swimlane/trace/index.hpp"
#include "dfx/convert/swimlane/trace/markers.hpp"
#include "dfx/convert/swimlane/trace/perfetto_packets.hpp"
#include "dfx/convert/swimlane/trace/scheduler_flows.hpp"
#include "dfx/convert/swimlane/trace/scheduler_slices.hpp"
#include "dfx/convert/swimlane/trace/task_slices.hpp"

namespace dfx::convert::swimlane {

namespace trace {
// The sections that write slices (and the ready-queue counters), in the
// reference's order; the protobuf backend runs them twice.
inline void write_slice_sections(trace_context& cx, const trace_index& index, marker_list& markers) {
    // Each section's events for the progress display: in_chunks counts its
    // own as they are done; what a section writes past it (names, the host's
    // slices, the envelopes) is counted when the section ends.
    const auto counted = [&cx](auto&& section) {
        const std::size_t events = cx.ev.count();
        const std::uint64_t told = io_progress::stage_items();
        section();
        io_progress::add_stage_items((cx.ev.count() - events) - (io_progress::stage_items() - told));
    };
    counted([&] { write_graph_envelopes(cx, index); });
    counted([&] { write_worker_view(cx, index); });
    counted([&] { write_scheduler_view(cx, index); });
    counted([&] { write_scheduler_phases(cx, index, markers); });
    counted([&] { write_host_uploads(cx, index); });
    counted([&] { write_orchestrator(cx, index, markers); });
}
}  // namespace trace

inline trace_summary write_trace(const perf_data& pd, const deps_graph& deps, const name_map& names,
                                 json_file_writer& out, const trace_options& opt) {
    using namespace trace;
    const trace_index index = [&] {
        const io_progress::stage_scope stage("indexing the trace");
        return trace_index(pd, deps, names);
    }();
    std::optional<io_progress::stage_scope> stage;  // the progress display's label, pass by pass
    stage.emplace(opt.format == trace_format::perfetto ? "protobuf trace, pass 1 of 2" : "writing the trace");
    std::optional<perfetto_trace> pb;
    if (opt.format == trace_format::perfetto) {
        pb.emplace();
        if (!opt.window) {  // room for every event (a window keeps few of them)
            std::size_t phases = 0;
            for (const auto& lane : pd.sched) phases += lane.size();
            // (Generous: room never touched costs no memory, a table grown
            // past its room holds two copies for a moment.)
            pb->reserve(3 * pd.tasks.size() + phases + index.tasks.size() / 2, 16 * pd.tasks.size() + 4 * phases);
        }
    }
    trace_context cx(out, opt, index.first_free_event_id, pb ? &*pb : nullptr);
    if (opt.verbose) {
        fmt::print(opt.verbose, "Generating {}...\n  Tasks: {}\n", pb ? "Perfetto protobuf trace" : "Chrome Trace JSON",
                   pd.tasks.size());
        if (!names.empty()) fmt::print(opt.verbose, "  Function names: {} entries\n", names.names.size());
        fmt::print(opt.verbose, "  Unique cores: {}\n", index.cores.size());
    }
    // Slices first: markers and alloc bars become arrow anchors.
    marker_list markers;
    write_slice_sections(cx, index, markers);
    // The events the second pass writes again: its progress is "N of" them.
    std::uint64_t second_pass_events = io_progress::stage_items();
    if (pb) pb->end_of_slices();
    // Then the arrows, drawing flow ids in this order.
    write_dependency_flows(cx, index, markers);
    write_complete_flows(cx, index);
    if (!pd.sched.empty() && index.has_aicpu_data) {
        const dispatch_threads threads(index, opt.verbose);
        write_dispatch_flows(cx, index, threads);
        write_submit_flows(cx, index, threads);
    }
    if (opt.verbose) fmt::print(opt.verbose, "  Total events: {}\n  Flow events: {}\n", cx.ev.count(), cx.flow_id);
    if (opt.overhead) {
        const std::uint64_t before = io_progress::stage_items();
        write_overhead_counters(cx, index);
        second_pass_events += io_progress::stage_items() - before;
    }
    cx.ev.close(pd.timeline_metadata_json);
    if (pb) {
        // The protobuf's second pass (perfetto_packets.hpp): the slices' ends
        // with their flows, then the slice and counter sections once more,
        // each begin and counter point written as it comes. Quiet: the first
        // pass said all there was to say.
        stage.emplace("protobuf trace, the slices' ends");
        perfetto_begins& second = pb->write_ends([&](std::string_view bytes) {
            out.append(bytes);
            out.maybe_flush();
        });
        trace_options quiet = opt;
        quiet.verbose = nullptr;
        quiet.warnings = nullptr;
        stage.emplace("protobuf trace, pass 2 of 2", second_pass_events);
        trace_context again(out, quiet, index.first_free_event_id, &second);
        marker_list unused;
        write_slice_sections(again, index, unused);
        if (opt.overhead) write_overhead_counters(again, index);
        again.ev.close({});
        pb->finish();
    }
    cx.summary.events = cx.ev.count();
    cx.summary.flows = static_cast<std::size_t>(cx.flow_id);
    if (const window_gate* w = cx.ev.window()) {
        cx.summary.window_slices = w->slices_kept;
        cx.summary.window_flows = w->flows_kept;
    }
    return cx.summary;
}

}  // namespace dfx::convert::swimlane
