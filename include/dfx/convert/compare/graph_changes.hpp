// graph_changes: did the graph change between two runs? `dfx compare` diffs
// the two deps.json graphs (each read by swimlane/deps_graph.hpp, kept by
// measure_unit(..., keep_deps = true)): tasks added or removed (a task is a
// task id deps.json lists, in a block entry or as an edge end, as
// report/graph_shape.hpp counts them) and edges added or removed (ordered
// (pred, succ) pairs; a self edge orders nothing and is left out, as there).
//
//   const graph_changes c = diff_graphs(*a.deps, *b.deps);
//   c.tasks_added: ids in B and not in A; c.examples_*: the first few, for the text
//
// Tasks match by id: the same workload submitted in the same order gets the
// same ids, so a changed id set means the graph itself changed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "dfx/convert/swimlane/deps_graph.hpp"

namespace dfx::convert::compare {

inline constexpr std::size_t graph_change_examples = 5;

struct graph_changes {
    std::size_t tasks_added = 0, tasks_removed = 0;
    std::size_t edges_added = 0, edges_removed = 0;
    std::vector<std::uint64_t> examples_added, examples_removed;  // task ids, the first few
    [[nodiscard]] bool any() const { return tasks_added || tasks_removed || edges_added || edges_removed; }
};

namespace detail {

inline std::vector<std::uint64_t> task_ids(const swimlane::deps_graph& g) {
    std::vector<std::uint64_t> ids;
    ids.reserve(g.blocks.size() + 2 * g.edges.size());
    for (const auto& b : g.blocks) ids.push_back(b.task_id);
    for (const auto& e : g.edges) {
        ids.push_back(e.pred);
        ids.push_back(e.succ);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

inline std::vector<std::pair<std::uint64_t, std::uint64_t>> edge_pairs(const swimlane::deps_graph& g) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> e;
    e.reserve(g.edges.size());
    for (const auto& x : g.edges)
        if (x.pred != x.succ) e.emplace_back(x.pred, x.succ);
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
    return e;
}

// |only in `x`| of two sorted, unique vectors, and its first few elements.
template <class T>
std::size_t only_in(const std::vector<T>& x, const std::vector<T>& y, std::vector<T>* examples = nullptr) {
    std::size_t n = 0;
    auto j = y.begin();
    for (const T& v : x) {
        while (j != y.end() && *j < v) ++j;
        if (j != y.end() && *j == v) continue;
        ++n;
        if (examples && examples->size() < graph_change_examples) examples->push_back(v);
    }
    return n;
}

}  // namespace detail

inline graph_changes diff_graphs(const swimlane::deps_graph& a, const swimlane::deps_graph& b) {
    graph_changes c;
    const auto ta = detail::task_ids(a), tb = detail::task_ids(b);
    c.tasks_added = detail::only_in(tb, ta, &c.examples_added);
    c.tasks_removed = detail::only_in(ta, tb, &c.examples_removed);
    const auto ea = detail::edge_pairs(a), eb = detail::edge_pairs(b);
    c.edges_added = detail::only_in(eb, ea);
    c.edges_removed = detail::only_in(ea, eb);
    return c;
}

}  // namespace dfx::convert::compare
