// deps_graph: the parts of deps.json the swimlane tools join with the timing
// (spec chip-swimlane.md §4.2): the dependency edges, each task's kernel ids
// (to name the kernels) and each task's block_num (to recognise SPMD tasks).
//
// deps.json is optional for the converter: a missing file means no arrows.
// A file that is there is read by deps.json's one reader
// (deps/deps_reader.hpp), with its checks: the same file gives the same
// error here as in `dfx deps`. Leniently (`--lenient`) the reference
// converter's reading is kept (deps_dialect::swimlane): invalid JSON or no
// `edges` array leaves `edges_usable` false (the converter warns and draws no
// arrows) and unusable entries are skipped. Only the needed fields are kept,
// streaming (graph_sink), so the per-edge tensor annotations and the
// `tensors` table never sit in memory.
//
// Edge order matters to the output: the reference groups unique (pred, succ)
// pairs by pred in first-seen order of pred, successors in first-seen order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/io_progress.hpp"
#include "dfx/convert/common/row_array.hpp"
#include "dfx/convert/deps/deps_reader.hpp"

namespace dfx::convert::swimlane {

struct deps_edge {
    std::uint64_t pred = 0;
    std::uint64_t succ = 0;
};

struct deps_graph {
    bool file_exists = false;
    bool edges_usable = false;     // the reference's load_deps_json() returned a dict
    std::vector<deps_edge> edges;  // unique pairs, in the reference's iteration order

    struct kernel_entry {
        std::uint64_t task_id;
        std::int64_t ids[3];  // [aic, aiv0, aiv1], -1 = inactive
    };
    struct block_entry {
        std::uint64_t task_id;
        std::int64_t block_num;  // >= 1
    };
    std::vector<kernel_entry> kernels;  // sorted by task id; empty = no kernel map
    std::vector<block_entry> blocks;    // sorted by task id; empty = no block map

    // Index: the first edge of each pred's run (edges are grouped by pred),
    // in pred order. 4 bytes a pred: the pred and the run's length are
    // read from the edges themselves (at 10^7 tasks 40 MB, against 160 MB
    // for (pred, first, count) triples).
    std::vector<std::uint32_t> pred_starts;
    std::vector<std::uint32_t> by_succ;  // edge indices sorted by (succ, edge index)

    [[nodiscard]] bool has_edges() const noexcept { return edges_usable && !edges.empty(); }

    // Successors of `pred` (in first-seen order).
    [[nodiscard]] std::pair<const deps_edge*, const deps_edge*> succs(std::uint64_t pred) const {
        auto it = std::lower_bound(pred_starts.begin(), pred_starts.end(), pred,
                                   [&](std::uint32_t first, std::uint64_t p) { return edges[first].pred < p; });
        if (it == pred_starts.end() || edges[*it].pred != pred) return {nullptr, nullptr};
        const deps_edge* lo = edges.data() + *it;
        const deps_edge* hi = lo;
        while (hi != edges.data() + edges.size() && hi->pred == pred) ++hi;
        return {lo, hi};
    }
    // Indices (into edges) of the edges into `succ`, in iteration order.
    [[nodiscard]] std::pair<const std::uint32_t*, const std::uint32_t*> preds(std::uint64_t succ) const {
        auto lo = std::lower_bound(by_succ.begin(), by_succ.end(), succ,
                                   [&](std::uint32_t e, std::uint64_t s) { return edges[e].succ < s; });
        auto hi = std::upper_bound(lo, by_succ.end(), succ,
                                   [&](std::uint64_t s, std::uint32_t e) { return s < edges[e].succ; });
        return {by_succ.data() + (lo - by_succ.begin()), by_succ.data() + (hi - by_succ.begin())};
    }
    [[nodiscard]] const kernel_entry* kernel_ids(std::uint64_t id) const {
        auto it = std::lower_bound(kernels.begin(), kernels.end(), id,
                                   [](const kernel_entry& k, std::uint64_t v) { return k.task_id < v; });
        return it != kernels.end() && it->task_id == id ? &*it : nullptr;
    }
    [[nodiscard]] const block_entry* block(std::uint64_t id) const {
        auto it = std::lower_bound(blocks.begin(), blocks.end(), id,
                                   [](const block_entry& b, std::uint64_t v) { return b.task_id < v; });
        return it != blocks.end() && it->task_id == id ? &*it : nullptr;
    }
};

namespace detail {

// An edge as read, with its position in the file and, once index_edges
// has grouped the edges by pred, the position of its pred's first edge.
struct read_edge {
    deps_edge edge;
    std::uint32_t seq;
    std::uint32_t pred_first;  // (in what would be padding)
};
static_assert(sizeof(read_edge) == 24);

// Keeps, from deps.json's one reader (deps/deps_reader.hpp), what the
// swimlane tools use: (pred, succ) with its position in the file, and per
// task its kernel ids and block count. Tensors and annotations are not kept.
class graph_sink final : public deps::deps_sink {
public:
    graph_sink(const std::string& path, deps_graph& g, bool task_maps) : path_(path), g_(g), task_maps_(task_maps) {}
    void edge(const deps::edge_key& k, deps::edge_detail&, deps::edge_geometry&) override {
        if (seq_ == UINT32_MAX) throw input_error(path_ + ": too many edges");
        raw_edges.push_back({deps_edge{k.pred, k.succ}, seq_++, 0});
    }
    void task(deps::task_entry& t, std::vector<deps::task_arg>&) override {
        if (!task_maps_) return;
        if (t.kernel_ids_listed) g_.kernels.push_back({t.id, {t.slots[0], t.slots[1], t.slots[2]}});
        g_.blocks.push_back({t.id, t.block_num});
    }
    void tensor(deps::tensor_entry&) override {}

    row_array<read_edge> raw_edges;  // grown in place (row_array.hpp): 20 million at 10^7 tasks

private:
    const std::string& path_;
    deps_graph& g_;
    std::uint32_t seq_ = 0;
    bool task_maps_;
};

// Dict semantics for the per-task maps: the last entry of an id wins.
template <class Entry>
void keep_last_per_id(std::vector<Entry>& v) {
    std::stable_sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) { return a.task_id < b.task_id; });
    std::vector<Entry> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i + 1 < v.size() && v[i + 1].task_id == v[i].task_id) continue;
        out.push_back(v[i]);
    }
    v.swap(out);
}

inline void index_edges(deps_graph& g, row_array<read_edge>& raw) {
    // In place, so that the table read is the only one beside the edges
    // kept (at 10^7 tasks a deduplicated copy and a sort order beside it
    // were 0.72 GB).
    // Unique (pred, succ), keeping the first occurrence.
    std::sort(raw.begin(), raw.end(), [](const read_edge& a, const read_edge& b) {
        if (a.edge.pred != b.edge.pred) return a.edge.pred < b.edge.pred;
        if (a.edge.succ != b.edge.succ) return a.edge.succ < b.edge.succ;
        return a.seq < b.seq;
    });
    std::size_t unique = 0;
    for (const read_edge& e : raw) {
        const deps_edge* kept = unique > 0 ? &raw[unique - 1].edge : nullptr;
        if (kept == nullptr || kept->pred != e.edge.pred || kept->succ != e.edge.succ) raw[unique++] = e;
    }
    // Preds in the order each first appears, each one's edges in the order they appear.
    for (std::size_t i = 0; i < unique;) {
        std::size_t j = i;
        std::uint32_t first = UINT32_MAX;
        while (j < unique && raw[j].edge.pred == raw[i].edge.pred) first = std::min(first, raw[j++].seq);
        for (; i < j; ++i) raw[i].pred_first = first;
    }
    std::sort(raw.begin(), raw.begin() + unique, [](const read_edge& a, const read_edge& b) {
        return a.pred_first != b.pred_first ? a.pred_first < b.pred_first : a.seq < b.seq;
    });
    // The edges kept, copied out as the table read is handed back behind the
    // copy (row_array::release_prefix): the two together stay within the
    // table read's size (at 10^7 tasks 0.48 GB, not 0.80).
    g.edges.clear();
    g.edges.reserve(unique);
    for (std::size_t i = 0; i < unique; ++i) {
        g.edges.push_back(raw[i].edge);
        raw.release_prefix(i + 1);
    }
    raw = {};

    // Each pred's run by pred: sorted as (pred, first) pairs, which a sort
    // of bare positions would have to look up in the edges at every compare.
    g.pred_starts.clear();
    {
        std::size_t preds = 0;  // reserved exactly: no doubling's second copy
        for (std::size_t i = 0; i < g.edges.size(); ++i) preds += i == 0 || g.edges[i].pred != g.edges[i - 1].pred;
        std::vector<std::pair<std::uint64_t, std::uint32_t>> runs;
        runs.reserve(preds);
        for (std::uint32_t i = 0; i < g.edges.size(); ++i) {
            if (i == 0 || g.edges[i].pred != g.edges[i - 1].pred) runs.emplace_back(g.edges[i].pred, i);
        }
        std::sort(runs.begin(), runs.end());
        g.pred_starts.reserve(preds);
        for (const auto& r : runs) g.pred_starts.push_back(r.second);
    }
    g.by_succ.resize(g.edges.size());
    for (std::uint32_t i = 0; i < g.by_succ.size(); ++i) g.by_succ[i] = i;
    std::stable_sort(g.by_succ.begin(), g.by_succ.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return g.edges[a].succ < g.edges[b].succ; });
}

}  // namespace detail

// How a deps.json problem is handled: the converter only warns (the trace is
// still useful without arrows); the scheduler-overhead analysis needs the DAG
// and fails.
enum class deps_policy { optional, required };

// Loads deps.json. A file that is there and invalid throws input_error,
// except leniently with deps_policy::optional (the converter, as the
// reference): then invalid JSON is a warning printed to `warnings` and leaves
// edges_usable false. A missing file is no deps with deps_policy::optional
// and an input_error with deps_policy::required; leniently and required, a
// missing `edges` key reads as no edges. A kernel_ids entry that is not
// integers is an error either way, as in the reference.
//
// One thread by default: dfx swimlane reads it while the records take the
// other core; for dfx sched-overhead the pipelined read saved ~10 % of the
// read at 200k tasks for 14 MB more peak memory, so it stays on one too.
// `task_maps` false: the kernel ids and block counts are checked as read but
// not kept (`kernels` and `blocks` stay empty; dfx sched-overhead reads the
// edges only: 48 bytes a task).
inline deps_graph load_deps_graph(const std::string& path, std::FILE* warnings = stderr,
                                  deps_policy policy = deps_policy::optional, bool lenient = false,
                                  dfx::convert::reader_threads threads = dfx::convert::reader_threads::one_thread,
                                  bool task_maps = true) {
    deps_graph g;
    std::error_code ec;
    // A symlink that does not resolve (dangling, a loop) is a deps.json that
    // is there and broken, not an absent one: reading it names the problem.
    std::error_code link_ec;
    g.file_exists = std::filesystem::exists(path, ec) || std::filesystem::is_symlink(path, link_ec);
    if (!g.file_exists) {
        if (policy == deps_policy::required) throw input_error(fmt::format("{}: no such file", path));
        return g;
    }
    deps::deps_load_options opt;
    opt.lenient = lenient;
    opt.dialect = deps::deps_dialect::swimlane;
    detail::graph_sink sink(path, g, task_maps);
    try {
        g.edges_usable = deps::read_deps(path, sink, opt, threads).edges_listed;
    } catch (const input_error& e) {
        const std::string_view msg = e.what();
        if (!lenient || policy == deps_policy::required || msg.find(".kernel_ids[") != std::string_view::npos) throw;
        if (warnings) {
            const io_progress::console_output hold;  // on a line of its own, not after the progress display's
            fmt::print(warnings, "Warning: failed to read {}\n", msg);
        }
        deps_graph unusable;
        unusable.file_exists = true;
        return unusable;
    }
    if (policy == deps_policy::required) {
        g.edges_usable = true;  // `edges` absent or not an array: no edges
    } else if (!g.edges_usable && warnings) {
        const io_progress::console_output hold;
        fmt::print(warnings, "Warning: {} has no 'edges' array\n", path);
    }
    detail::index_edges(g, sink.raw_edges);
    detail::keep_last_per_id(g.kernels);
    detail::keep_last_per_id(g.blocks);
    return g;
}

}  // namespace dfx::convert::swimlane
