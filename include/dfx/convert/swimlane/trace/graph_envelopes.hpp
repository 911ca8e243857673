// graph_envelopes: the "Graph Execution" process (pid 5, spec §4.8): one slice
// per graph instance, from its first graph_prepare phase to the last end of
// the nodes it ran, on greedy Graph_<k> lanes. Graph nodes carry synthetic
// ring-1 ids, (outer_task_id << 10) | node_index; the outer id is the
// instance's graph_prepare task id.
//
//   write_graph_envelopes(cx, index);   // nothing when no instance ran a node
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/swimlane/labels.hpp"
#include "dfx/convert/swimlane/trace/context.hpp"
#include "dfx/convert/swimlane/trace/index.hpp"
#include "dfx/convert/swimlane/trace/layout.hpp"

namespace dfx::convert::swimlane::trace {

namespace graph_detail {

struct instance {
    std::uint64_t outer;
    std::vector<std::uint32_t> nodes;
    double exec_start, exec_end, prep_start, prep_end, prep_dur;
    std::size_t prep_count;
    std::int64_t lane = 0;
};

// A graph node's (outer id, node index), when `id` is one.
inline bool decode_node(std::uint64_t id, std::uint64_t& outer, std::uint32_t& node) {
    if (((id >> 32) & 0xFFFFFFFFu) != 1) return false;
    const std::uint64_t local = id & 0xFFFFFFFFu;
    outer = local >> 10;
    node = static_cast<std::uint32_t>(local & 0x3FF);
    return true;
}

// Instances that ran at least one node (task row or dummy_task marker), by
// first prepare.
inline std::vector<instance> collect_instances(const trace_index& index) {
    const perf_data& pd = index.pd;
    std::vector<instance> inst;
    auto find = [&](std::uint64_t outer) -> instance* {
        for (auto& i : inst) {
            if (i.outer == outer) return &i;
        }
        return nullptr;
    };
    for (const auto& lane : pd.sched) {
        lane.phases.for_each_where(kind_is(phase_kind::graph_prepare), [&](std::size_t, const sched_record& r) {
            if (!r.has_task_id || (r.task_id >> 32) != 0) return;
            instance* i = find(r.task_id);
            const double start = pd.start_us(r), end = pd.end_us(r);
            if (!i) {
                inst.push_back({r.task_id, {}, 0, 0, start, end, 0.0, 0, 0});
                i = &inst.back();
            }
            i->prep_start = std::min(i->prep_start, start);
            i->prep_end = std::max(i->prep_end, end);
            i->prep_dur += end - start;
            ++i->prep_count;
        });
    }
    if (inst.empty()) return inst;
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
    for (const task& t : index.tasks) {
        std::uint64_t outer;
        std::uint32_t node;
        if (!decode_node(t.task_id, outer, node)) continue;
        if (instance* i = find(outer)) {
            const double s = t.dispatch_us >= 0 ? t.dispatch_us : t.receive_us;
            const double e = t.finish_us > 0 ? t.finish_us : t.end_us;
            add_point(*i, static_cast<std::size_t>(i - inst.data()), node, s, e);
        }
    }
    for (const auto& lane : pd.sched) {
        lane.phases.for_each_where(kind_is(phase_kind::dummy_task), [&](std::size_t, const sched_record& r) {
            std::uint64_t outer;
            std::uint32_t node;
            if (!r.has_task_id || !decode_node(r.task_id, outer, node)) return;
            if (instance* i = find(outer)) add_point(*i, static_cast<std::size_t>(i - inst.data()), node, pd.start_us(r), pd.end_us(r));
        });
    }
    std::vector<instance> kept;
    for (std::size_t i = 0; i < inst.size(); ++i) {
        if (seen[i]) kept.push_back(std::move(inst[i]));
    }
    std::stable_sort(kept.begin(), kept.end(),
                     [](const instance& a, const instance& b) { return a.prep_start < b.prep_start; });
    return kept;
}

// Greedy lanes: an instance takes the first lane free at its first prepare.
// Returns the lanes used, sorted.
inline std::vector<std::int64_t> assign_lanes(std::vector<instance>& kept) {
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
    return lanes;
}

inline void write_envelope(event_sink& ev, instance& i) {
    std::sort(i.nodes.begin(), i.nodes.end());
    i.nodes.erase(std::unique(i.nodes.begin(), i.nodes.end()), i.nodes.end());
    if (ev.protobuf()) {
        // The fixed synthetic_id_layout note is left out.
        ev.slice({"graph_execution",
                  fmt::format("GraphExecution({}, {} visible nodes)", format_task_display(i.outer), i.nodes.size()),
                  layout::graph_pid, layout::graph_lane_tid(i.lane), i.prep_start, i.exec_end - i.prep_start},
                 {pf_arg::of("outer_task_id", static_cast<std::int64_t>(i.outer)),
                  pf_arg::of("visible_node_count", static_cast<std::int64_t>(i.nodes.size())),
                  pf_arg::of("visible_node_index_min", static_cast<std::int64_t>(i.nodes.front())),
                  pf_arg::of("visible_node_index_max", static_cast<std::int64_t>(i.nodes.back())),
                  pf_arg::of("prepare_slice_count", static_cast<std::int64_t>(i.prep_count)),
                  pf_arg::of_us("prepare_duration_us", i.prep_dur),
                  pf_arg::of_us("execution_start_us", i.exec_start),
                  pf_arg::of_us("execution_duration_us", i.exec_end - i.exec_start)});
        return;
    }
    auto& o = ev.next_slice(i.prep_start, i.exec_end - i.prep_start);
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
           fmt::format("GraphExecution({}, {} visible nodes)", format_task_display(i.outer), i.nodes.size()),
           layout::graph_pid, layout::graph_lane_tid(i.lane), i.prep_start, i.exec_end - i.prep_start);
}

}  // namespace graph_detail

inline void write_graph_envelopes(trace_context& cx, const trace_index& index) {
    std::vector<graph_detail::instance> kept = graph_detail::collect_instances(index);
    if (kept.empty()) return;
    const std::vector<std::int64_t> lanes = graph_detail::assign_lanes(kept);
    cx.ev.process_name(layout::graph_pid, "Graph Execution");
    cx.ev.process_sort(layout::graph_pid, layout::graph_sort_index);
    for (const auto l : lanes) cx.ev.thread_name(layout::graph_pid, layout::graph_lane_tid(l), fmt::format("Graph_{}", l));
    for (auto& i : kept) graph_detail::write_envelope(cx.ev, i);
}

}  // namespace dfx::convert::swimlane::trace
