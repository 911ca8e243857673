// graph_focus: which tasks the HTML view draws when the graph is too big to
// read: its critical path and the path's direct neighbours.
//
//   const fan_lists fan(g, all_edges);
//   const graph_focus f = focus_on_critical_path(g, fan, 1000);
//   if (f.applied) { /* draw only the nodes with f.keep[n], edges between them */ }
//
// Why this default: a Graphviz drawing of thousands of tasks is a pile no one
// can read (2,000 generated tasks under sfdp: overlapping boxes, ~3 MB of SVG;
// 10,000 took Chromium minutes to render), and the one question a big graph
// view still answers is "what limits the schedule": the longest chain and what
// feeds it. The path is weighted by each task's run time when the records
// lie beside deps.json (node_meta::ran), else by task count. The full graph is
// one flag away (`--max-nodes 0`), and `--format text` lists every edge.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/deps/deps_graph.hpp"
#include "dfx/convert/deps/deps_text.hpp"

namespace dfx::convert::deps {

struct graph_focus {
    bool applied = false;         // false: the whole graph is drawn
    bool cycle = false;           // the graph has a cycle: the first tasks by id instead of a path
    bool weighted = false;        // the path is weighted by run time (records beside deps.json)
    std::vector<bool> keep;       // per node; empty when !applied
    std::size_t kept = 0;         // nodes with keep[n]
    std::size_t path_nodes = 0;   // tasks on the critical path
    std::size_t path_drawn = 0;   // of them, kept (the first max_nodes when the path is longer)
    std::uint32_t path_start = 0; // the path's first node (where the page's first view starts)
    double path_weight = 0;       // µs when weighted, else tasks
};

// The nodes of the longest path (by run time when the records gave run
// times, else by task count), then their predecessors and successors while fewer than
// `max_nodes` are kept. `max_nodes` 0, or a graph that small: not applied.
inline graph_focus focus_on_critical_path(const deps_graph& g, const fan_lists& fan, std::size_t max_nodes) {
    graph_focus f;
    const auto n = static_cast<std::uint32_t>(g.nodes.size());
    if (max_nodes == 0 || n <= max_nodes) return f;
    f.applied = true;
    f.keep.assign(n, false);
    auto take = [&](std::uint32_t v) {
        if (f.keep[v] || f.kept >= max_nodes) return;
        f.keep[v] = true;
        ++f.kept;
    };

    // Kahn's order; a cycle leaves nodes out of it.
    std::vector<std::uint32_t> order, missing(n);
    order.reserve(n);
    for (std::uint32_t v = 0; v < n; ++v)
        if ((missing[v] = fan.fanin(v)) == 0) order.push_back(v);
    for (std::size_t i = 0; i < order.size(); ++i)
        for (std::uint32_t k = fan.succ_begin[order[i]]; k < fan.succ_begin[order[i] + 1]; ++k)
            if (--missing[fan.succs[k]] == 0) order.push_back(fan.succs[k]);
    if (order.size() != n) {
        f.cycle = true;
        for (std::uint32_t v = 0; v < n && f.kept < max_nodes; ++v) take(v);
        return f;
    }

    // Weighted when the records gave any task a run time; tasks without one
    // (allocs, dummies: no kernel ran) then weigh nothing.
    f.weighted = std::any_of(g.meta.begin(), g.meta.end(), [](const node_meta& m) { return m.ran.has_value(); });
    auto weight = [&](std::uint32_t v) { return !f.weighted ? 1.0 : g.meta[v].ran ? g.meta[v].ran->duration_us : 0.0; };
    constexpr std::uint32_t none = UINT32_MAX;
    std::vector<double> dist(n);
    std::vector<std::uint32_t> via(n, none);
    std::uint32_t last = order.front();
    for (const std::uint32_t v : order) {
        double best = 0;
        for (std::uint32_t k = fan.pred_begin[v]; k < fan.pred_begin[v + 1]; ++k)
            if (const std::uint32_t p = fan.preds[k]; via[v] == none || dist[p] > best) {
                best = dist[p];
                via[v] = p;
            }
        dist[v] = best + weight(v);
        if (dist[v] > dist[last]) last = v;
    }
    f.path_weight = dist[last];

    std::vector<std::uint32_t> path;
    for (std::uint32_t v = last; v != none; v = via[v]) path.push_back(v);
    std::reverse(path.begin(), path.end());
    f.path_start = path.front();
    for (const std::uint32_t v : path) take(v);
    f.path_nodes = path.size();
    f.path_drawn = f.kept;
    for (const std::uint32_t v : path) {
        for (std::uint32_t k = fan.pred_begin[v]; k < fan.pred_begin[v + 1]; ++k) take(fan.preds[k]);
        for (std::uint32_t k = fan.succ_begin[v]; k < fan.succ_begin[v + 1]; ++k) take(fan.succs[k]);
    }
    return f;
}

// What the page draws when it is not every task, in words (`us`: how to
// write µs), e.g. "1000 tasks: the first 1000 of the critical path's 2891".
inline std::string focus_summary(const graph_focus& f, std::string_view us) {
    if (f.cycle) return fmt::format("the first {} tasks by id (the graph has a cycle)", f.kept);
    const std::string length = f.weighted ? fmt::format("{:.1f} {}", f.path_weight, us) : "longest by task count";
    if (f.path_drawn < f.path_nodes)
        return fmt::format("{} tasks: the first {} of the critical path's {} ({})", f.kept, f.path_drawn, f.path_nodes, length);
    return fmt::format("{} tasks: the critical path ({} tasks, {}) and its neighbours", f.kept, f.path_nodes, length);
}

}  // namespace dfx::convert::deps
