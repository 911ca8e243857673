// graph_changes: did the graph change between two runs? `dfx compare` diffs
// the two deps.json graphs' digests (report/graph_digest.hpp, kept by
// measure_unit(..., keep_digest = true)): tasks added or removed and edges
// added or removed, as the digest defines them.
//
//   const graph_changes c = diff_graphs(*a.digest, *b.digest);
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

#include "dfx/convert/report/graph_digest.hpp"

namespace dfx::convert::compare {

inline constexpr std::size_t graph_change_examples = 5;

struct graph_changes {
    std::size_t tasks_added = 0, tasks_removed = 0;
    std::size_t edges_added = 0, edges_removed = 0;
    std::vector<std::uint64_t> examples_added, examples_removed;  // task ids, the first few
    [[nodiscard]] bool any() const { return tasks_added || tasks_removed || edges_added || edges_removed; }
};

namespace detail {

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

inline graph_changes diff_graphs(const report::graph_digest& a, const report::graph_digest& b) {
    graph_changes c;
    c.tasks_added = detail::only_in(b.tasks, a.tasks, &c.examples_added);
    c.tasks_removed = detail::only_in(a.tasks, b.tasks, &c.examples_removed);
    c.edges_added = detail::only_in(b.edges, a.edges);
    c.edges_removed = detail::only_in(a.edges, b.edges);
    return c;
}

}  // namespace dfx::convert::compare
