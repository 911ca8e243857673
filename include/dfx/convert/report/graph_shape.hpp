// graph_shape: is the graph the one you meant? (the first question of the
// tuning loop, docs/report.md): task and edge counts, the depth (levels of
// the longest chain, in hops), the width profile (tasks per level: how many
// could run at once if every earlier level were done), and the static
// critical path: the longest chain weighted by each task's observed
// duration (first start to last end of its rows), the floor no schedule of
// this graph can beat on these kernels. As in `dfx critical-path` (static
// CPM), it follows only the edges the timing confirms (the producer ended
// before the consumer started, and started earlier): an edge the runtime
// resolved early does not serialise. Depth and width are of the graph as
// declared.
//
//   const graph_shape g = measure_graph(deps, durations);  // durations: by task id, may be empty
//   g.critical_path_us / makespan_us  ->  near 1: dependency-bound
//
// Level of a task = 1 + the largest level of its producers (sources are
// level 0), computed in one topological pass (Kahn); a cycle, which a valid
// deps.json never has, leaves its tasks out and is counted in `in_cycle`.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "dfx/convert/swimlane/deps_graph.hpp"

namespace dfx::convert::report {

struct graph_shape {
    std::size_t tasks = 0;
    std::size_t edges = 0;
    std::size_t depth = 0;               // number of levels (0 for an empty graph)
    std::vector<std::size_t> width;      // tasks per level, level 0 first
    std::size_t max_width = 0;
    std::size_t in_cycle = 0;            // tasks the topological pass could not place
    bool timed = false;                  // durations were given: critical_path_us means something
    double critical_path_us = 0.0;       // longest duration-weighted chain
    std::size_t critical_path_tasks = 0; // tasks on that chain
};

// Per task id, the span of its rows: earliest start, latest end (us).
struct task_span {
    double start = 0.0, end = 0.0;
};
using task_durations = std::unordered_map<std::uint64_t, task_span>;

// "Finished before", within a nanosecond of rounding.
inline constexpr double happens_before_tolerance_us = 1e-3;

inline graph_shape measure_graph(const swimlane::deps_graph& deps, const task_durations& durations) {
    graph_shape g;
    // Every task deps.json lists (block entries hold one per task) plus any edge endpoint.
    std::vector<std::uint64_t> ids;
    ids.reserve(deps.blocks.size() + deps.edges.size());
    for (const auto& b : deps.blocks) ids.push_back(b.task_id);
    for (const auto& e : deps.edges) {
        ids.push_back(e.pred);
        ids.push_back(e.succ);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    g.tasks = ids.size();
    const auto index_of = [&](std::uint64_t id) {
        return static_cast<std::size_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
    };
    std::vector<std::uint32_t> indegree(ids.size(), 0);
    std::vector<std::vector<std::uint32_t>> succs(ids.size());
    for (const auto& e : deps.edges) {
        if (e.pred == e.succ) continue;  // a self edge orders nothing
        ++g.edges;
        const std::size_t p = index_of(e.pred), s = index_of(e.succ);
        succs[p].push_back(static_cast<std::uint32_t>(s));
        ++indegree[s];
    }
    g.timed = !durations.empty();
    const auto span_of = [&](std::size_t i) -> const task_span* {
        const auto it = durations.find(ids[i]);
        return it == durations.end() ? nullptr : &it->second;
    };
    const auto duration_of = [&](std::size_t i) {
        const task_span* sp = span_of(i);
        return sp ? std::max(0.0, sp->end - sp->start) : 0.0;
    };
    const auto confirmed = [&](std::size_t p, std::size_t s) {
        const task_span *a = span_of(p), *b = span_of(s);
        return a && b && a->end <= b->start + happens_before_tolerance_us && a->start < b->start;
    };
    std::vector<std::size_t> level(ids.size(), 0);
    std::vector<double> finish(ids.size(), 0.0);      // longest weighted chain ending here, inclusive
    std::vector<std::size_t> chain(ids.size(), 1);    // tasks on that chain
    std::vector<double> start(ids.size(), 0.0);       // longest weighted chain before it
    std::vector<std::size_t> chain_before(ids.size(), 0);
    std::vector<std::uint32_t> queue;
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (indegree[i] == 0) queue.push_back(static_cast<std::uint32_t>(i));
    std::size_t placed = 0;
    for (std::size_t q = 0; q < queue.size(); ++q) {
        const std::uint32_t i = queue[q];
        ++placed;
        finish[i] = start[i] + duration_of(i);
        chain[i] = chain_before[i] + 1;
        if (level[i] >= g.width.size()) g.width.resize(level[i] + 1, 0);
        ++g.width[level[i]];
        if (finish[i] > g.critical_path_us || (finish[i] == g.critical_path_us && chain[i] > g.critical_path_tasks)) {
            g.critical_path_us = finish[i];
            g.critical_path_tasks = chain[i];
        }
        for (const std::uint32_t s : succs[i]) {
            level[s] = std::max(level[s], level[i] + 1);
            if (g.timed && !confirmed(i, s)) {
                // Not a wait the run shows: orders the levels, not the weighted path.
            } else if (finish[i] > start[s] || (finish[i] == start[s] && chain[i] > chain_before[s])) {
                start[s] = finish[i];
                chain_before[s] = chain[i];
            }
            if (--indegree[s] == 0) queue.push_back(s);
        }
    }
    g.in_cycle = ids.size() - placed;
    g.depth = g.width.size();
    for (const std::size_t w : g.width) g.max_width = std::max(g.max_width, w);
    if (!g.timed) g.critical_path_us = 0.0;
    return g;
}

}  // namespace dfx::convert::report
