// graph_digest: what `dfx compare` keeps of a run's deps.json to say how the
// graph changed: its task ids (a task id deps.json lists, in a block entry or
// as an edge end, as graph_shape.hpp counts them) and its edges (ordered
// (pred, succ) pairs; a self edge orders nothing and is left out), each
// sorted and unique. About 40 MB at 10^6 tasks, against 140 MB for the
// graph as read, so both runs' graphs fit beside one run being measured.
//
//   const graph_digest d = digest_of(deps);   // deps: swimlane::deps_graph
//   std::binary_search(d.tasks.begin(), d.tasks.end(), id)
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "dfx/convert/swimlane/deps_graph.hpp"

namespace dfx::convert::report {

struct graph_digest {
    std::vector<std::uint64_t> tasks;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> edges;
};

inline graph_digest digest_of(const swimlane::deps_graph& g) {
    graph_digest d;
    d.tasks.reserve(g.blocks.size() + 2 * g.edges.size());
    for (const auto& b : g.blocks) d.tasks.push_back(b.task_id);
    for (const auto& e : g.edges) {
        d.tasks.push_back(e.pred);
        d.tasks.push_back(e.succ);
    }
    std::sort(d.tasks.begin(), d.tasks.end());
    d.tasks.erase(std::unique(d.tasks.begin(), d.tasks.end()), d.tasks.end());
    d.tasks.shrink_to_fit();
    d.edges.reserve(g.edges.size());
    for (const auto& e : g.edges)
        if (e.pred != e.succ) d.edges.emplace_back(e.pred, e.succ);
    std::sort(d.edges.begin(), d.edges.end());
    d.edges.erase(std::unique(d.edges.begin(), d.edges.end()), d.edges.end());
    d.edges.shrink_to_fit();
    return d;
}

}  // namespace dfx::convert::report
