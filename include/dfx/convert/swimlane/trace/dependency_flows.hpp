// dependency_flows: one arrow per deps.json edge and pair of arrow ends
// (spec §4.7), in the Worker View (task rows, or markers / alloc bars for ids
// without rows) and mirrored in the Scheduler View (AICPU timestamps). An
// arrow whose producer ends after its consumer starts is named
// "hb_violation" instead of "dependency", and counted. SPMD ids anchor on
// each view's earliest visible slice per function (index.hpp).
//
//   write_dependency_flows(cx, index, markers);   // after every slice section
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include <fmt/format.h>

#include "dfx/convert/swimlane/labels.hpp"
#include "dfx/convert/swimlane/trace/context.hpp"
#include "dfx/convert/swimlane/trace/index.hpp"
#include "dfx/convert/swimlane/trace/layout.hpp"
#include "dfx/convert/swimlane/trace/markers.hpp"

namespace dfx::convert::swimlane::trace {

namespace dependency_detail {

inline void write_worker_arrows(event_sink& ev, const trace_index& index, const marker_list& markers,
                                const deps_edge& edge, std::int64_t& flow, part_state& part) {
    if (!has_rows_or_markers(index, markers, edge.pred) || !has_rows_or_markers(index, markers, edge.succ)) return;
    anchors_of(index, markers, edge.pred, view::worker, part.preds);
    anchors_of(index, markers, edge.succ, view::worker, part.succs);
    const std::int64_t out_count = index.fan_count(edge.pred);
    const std::int64_t in_count = index.fan_count(edge.succ);
    for (const auto& p : part.preds) {
        for (const auto& s : part.succs) {
            const bool hb = p.end > s.slice_start;
            const char* name = hb ? "hb_violation" : "dependency";
            if (hb) ++part.hb_violations;
            const auto [src_tid, src_id] = worker_endpoint(index, p);
            const auto [dst_tid, dst_id] = worker_endpoint(index, s);
            ev.flow(flow, name, 's', layout::worker_view_pid, src_tid, p.slice_start, src_id, in_count, out_count);
            ev.flow(flow, name, 'f', layout::worker_view_pid, dst_tid, s.slice_start, dst_id, in_count, out_count);
            ++flow;
        }
    }
}

inline void write_scheduler_arrows(event_sink& ev, const trace_index& index, const deps_edge& edge, std::int64_t& flow,
                                   part_state& part) {
    if (!index.group(edge.pred) || !index.group(edge.succ)) return;
    index.row_anchors_of(edge.pred, view::scheduler, part.preds);
    index.row_anchors_of(edge.succ, view::scheduler, part.succs);
    const std::int64_t out_count = index.fan_count(edge.pred);
    const std::int64_t in_count = index.fan_count(edge.succ);
    for (const auto& p : part.preds) {
        for (const auto& s : part.succs) {
            const task& pt = index.tasks[p.row];
            const task& st = index.tasks[s.row];
            if (!in_scheduler_view(pt) || !in_scheduler_view(st)) continue;
            const char* name = pt.finish_us > st.dispatch_us ? "hb_violation" : "dependency";
            ev.flow(flow, name, 's', layout::scheduler_view_pid, index.sched_tid_of(p.row), pt.dispatch_us,
                    index.sched_event_of(p.row), in_count, out_count);
            ev.flow(flow, name, 'f', layout::scheduler_view_pid, index.sched_tid_of(s.row), st.dispatch_us,
                    index.sched_event_of(s.row), in_count, out_count);
            ++flow;
        }
    }
}

// Flow ids an edge's Worker View arrows draw (0 when an end has no anchor).
inline std::size_t worker_arrow_count(const trace_context& cx, const trace_index& index, const marker_list& markers,
                                      const deps_edge& edge) {
    if (!has_rows_or_markers(index, markers, edge.pred)) return 0;
    if (!has_rows_or_markers(index, markers, edge.succ)) {
        if (cx.opt.verbose) {
            fmt::print(cx.opt.verbose, "Warning: Task {} (raw {}) references non-existent successor {} (raw {})\n",
                       format_task_display(edge.pred), edge.pred, format_task_display(edge.succ), edge.succ);
        }
        return 0;
    }
    return worker_anchor_count(index, markers, edge.pred) * worker_anchor_count(index, markers, edge.succ);
}

inline void report(const trace_context& cx, const trace_index& index) {
    if (!cx.opt.verbose) return;
    if (index.deps.edges_usable) {
        fmt::print(cx.opt.verbose, "  Dependency flow events: {} edges (source: deps.json)\n", cx.summary.dependency_flows);
        const auto spmd = std::count_if(index.groups.begin(), index.groups.end(), [](const id_group& g) { return g.spmd; });
        if (spmd > 0) {
            fmt::print(cx.opt.verbose,
                       "  SPMD tasks: {} logical task(s); dependency arrows independently anchor on each "
                       "view's earliest visible slice per function\n",
                       spmd);
        }
    } else {
        fmt::print(cx.opt.verbose,
                   "  Flow events: 0 (no deps.json — re-run dep_gen and pass --deps-json to add arrows)\n");
    }
    if (cx.summary.hb_violations > 0) {
        fmt::print(cx.opt.verbose, "  Happens-before violations: {} edge(s) flagged as 'hb_violation'\n",
                   cx.summary.hb_violations);
    }
}

}  // namespace dependency_detail

inline void write_dependency_flows(trace_context& cx, const trace_index& index, const marker_list& markers) {
    using namespace dependency_detail;
    const deps_graph& deps = index.deps;
    if (deps.edges_usable) {
        const std::int64_t first_flow = cx.flow_id;
        cx.in_chunks(
            deps.edges.size(), cx.flow_id,
            [&](std::size_t e) { return worker_arrow_count(cx, index, markers, deps.edges[e]); },
            [&](event_sink& ev, std::size_t e, std::int64_t& flow, part_state& part) {
                write_worker_arrows(ev, index, markers, deps.edges[e], flow, part);
            });
        cx.summary.dependency_flows = static_cast<std::size_t>(cx.flow_id - first_flow);
    }
    report(cx, index);
    if (!index.has_aicpu_data || !deps.edges_usable) return;
    cx.in_chunks(
        deps.edges.size(), cx.flow_id,
        [&](std::size_t e) -> std::size_t {
            const id_group* p = index.group(deps.edges[e].pred);
            const id_group* s = index.group(deps.edges[e].succ);
            return p && s ? std::size_t{p->scheduler_anchors} * s->scheduler_anchors : 0;
        },
        [&](event_sink& ev, std::size_t e, std::int64_t& flow, part_state& part) {
            write_scheduler_arrows(ev, index, deps.edges[e], flow, part);
        });
}

}  // namespace dfx::convert::swimlane::trace
