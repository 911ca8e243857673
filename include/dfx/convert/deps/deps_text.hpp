// deps_text: the `deps_viewer` text view (dep-gen.md §3.6): a SUMMARY block,
// a grep-friendly TASK INDEX (one line per task), then one detail block per
// task listing its unique predecessors and successors.
//
// Only the edges the edge mode selects are used, and only their annotation
// rows are counted; the node set never shrinks.
//
//   write_deps_text(out, graph, selection, path);            // a graph in memory
//   write_deps_text(out, summary, formatter, path, nodes);   // any node source
//
// The view is written from walks over the nodes in id order, a chunk at a
// time, so a source need not hold the graph: deps_text_streamed.hpp walks
// sorted files on disk, for the full graph in bounded memory.
#pragma once

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "dfx/convert/common/ordered_chunks.hpp"
#include "dfx/convert/deps/deps_graph.hpp"
#include "dfx/convert/deps/edge_modes.hpp"

namespace dfx::convert::deps {

// Peers of every node over the selected edges, in CSR form, each list sorted
// by id (the edges are sorted by (pred, succ), so filling in order sorts them).
struct fan_lists {
    std::vector<std::uint32_t> pred_begin, preds, succ_begin, succs;

    fan_lists(const deps_graph& g, const std::vector<bool>& shown) {
        const std::size_t n = g.nodes.size();
        pred_begin.assign(n + 1, 0);
        succ_begin.assign(n + 1, 0);
        for (std::size_t e = 0; e < g.edges.size(); ++e) {
            if (!shown[e]) continue;
            ++succ_begin[g.edges[e].first + 1];
            ++pred_begin[g.edges[e].second + 1];
        }
        for (std::size_t i = 0; i < n; ++i) {
            succ_begin[i + 1] += succ_begin[i];
            pred_begin[i + 1] += pred_begin[i];
        }
        preds.resize(pred_begin[n]);
        succs.resize(succ_begin[n]);
        std::vector<std::uint32_t> pfill(pred_begin.begin(), pred_begin.end() - 1);
        std::vector<std::uint32_t> sfill(succ_begin.begin(), succ_begin.end() - 1);
        for (std::size_t e = 0; e < g.edges.size(); ++e) {
            if (!shown[e]) continue;
            const auto [p, s] = g.edges[e];
            succs[sfill[p]++] = s;
            preds[pfill[s]++] = p;
        }
    }
    std::uint32_t fanin(std::uint32_t n) const { return pred_begin[n + 1] - pred_begin[n]; }
    std::uint32_t fanout(std::uint32_t n) const { return succ_begin[n + 1] - succ_begin[n]; }
};

// What the SUMMARY block says.
struct text_summary {
    std::size_t tasks = 0;            // nodes
    std::size_t unique_edges = 0;     // selected (pred, succ) pairs
    std::size_t annotated_edges = 0;  // their annotation rows
    std::size_t tensors = 0;          // distinct tensor ids
    bool perf_sidecar = false;        // some node has metadata
    bool func_name_map = false;       // some node has a func name
};

// What a node's lines say of it besides its peers:
// `kind=<kind> func_id=<...>[ SPMD block num = N]`.
struct text_node {
    std::uint64_t id = 0;
    task_kind kind = task_kind::alloc;
    bool kernel_ids = false;  // its task has kernel ids (func_id=[a,b,c]); a submit node without is "unknown"
    std::array<std::int64_t, 3> slots{-1, -1, -1};
    std::int64_t block_num = 1;
};

// A run of consecutive nodes (in id order) with their peers' ids, each
// list sorted: node i's predecessors are preds[pred_begin[i], pred_begin[i
// + 1]), its fan-in their count. Read for the index only, the lists stay
// empty and the counts (fanin / fanout) say it all.
struct text_batch {
    std::vector<text_node> nodes;
    std::vector<std::uint32_t> fanin, fanout;
    std::vector<std::size_t> pred_begin{0}, succ_begin{0};
    std::vector<std::uint64_t> preds, succs;

    void clear() {
        nodes.clear();
        fanin.clear();
        fanout.clear();
        pred_begin.assign(1, 0);
        succ_begin.assign(1, 0);
        preds.clear();
        succs.clear();
    }
    // Closes node nodes.back() after its peers (if any) were pushed.
    void close_node(std::uint32_t in, std::uint32_t out) {
        fanin.push_back(in);
        fanout.push_back(out);
        pred_begin.push_back(preds.size());
        succ_begin.push_back(succs.size());
    }
};

inline text_node text_node_of(const deps_graph& g, std::uint32_t n) {
    text_node t;
    t.id = g.nodes[n];
    t.kind = g.kind(n);
    // (A node's kernel ids are its task's: the graph may have no meta.)
    if (const task_entry* task = g.task(n)) {
        t.kernel_ids = task->has_kernel();
        t.slots = task->slots;
    }
    t.block_num = g.block_num(n);
    return t;
}

// Appends `<id> kind=<kind> func_id=<...>[ SPMD block num = N]`.
template <class Out>
void append_task_head(Out it, const task_formatter& fmt, const text_node& t) {
    fmt.format_to(it, t.id);
    fmt::format_to(it, FMT_COMPILE(" kind={} "), to_string(t.kind));
    if (t.kind != task_kind::submit) fmt::format_to(it, FMT_COMPILE("func_id=none"));
    else if (t.kernel_ids) fmt::format_to(it, FMT_COMPILE("func_id=[{},{},{}]"), t.slots[0], t.slots[1], t.slots[2]);
    else fmt::format_to(it, FMT_COMPILE("func_id=unknown"));
    if (t.block_num > 1) fmt::format_to(it, FMT_COMPILE(" SPMD block num = {}"), t.block_num);
}

// Number of annotation rows over the selected edges.
inline std::size_t annotated_rows(const deps_graph& g, const std::vector<bool>& shown) {
    std::size_t total = 0;
    for (std::size_t e = 0; e < g.edges.size(); ++e)
        if (shown[e]) total += g.row_begin[e + 1] - g.row_begin[e];
    return total;
}

// Writes the text view to `out`: the SUMMARY, then the TASK INDEX and the
// detail blocks, each from a walk over the nodes in id order. `nodes` is
// walked twice, `chunk_nodes` at a time:
//
//   nodes.rewind(peers);               // from the first node; with the peer
//                                      // lists (the details) or without (the index)
//   nodes.read(count, batch);          // appends the next `count` nodes
//
// Chunks are formatted on two threads (ordered_chunks.hpp) with compiled
// formats, each read in turn under a lock, in order: a source may be a
// sequential stream (deps_text_streamed.hpp). The output does not depend on
// the chunk size (tests use tiny ones). `source_path` is printed as given.
template <class NodeSource>
void write_deps_text(json_file_writer& out, const text_summary& s, const task_formatter& fmt,
                     std::string_view source_path, NodeSource& nodes, std::size_t chunk_nodes = 2048) {
    out.append(fmt::format("SUMMARY\n"
                           "  source_deps_json: {}\n"
                           "  tasks: {}\n"
                           "  unique_task_edges: {}\n"
                           "  annotated_edges: {}\n"
                           "  tensors: {}\n"
                           "  perf_sidecar: {}\n"
                           "  func_name_map: {}\n"
                           "\n"
                           "TASK INDEX\n",
                           source_path, s.tasks, s.unique_edges, s.annotated_edges, s.tensors,
                           s.perf_sidecar ? "yes" : "no", s.func_name_map ? "yes" : "no"));
    std::mutex walk;
    std::condition_variable turn;
    std::size_t walked = 0;      // nodes read so far
    bool walk_failed = false;    // a read threw: the chunks after it are never read
    const auto per_node = [&](bool peers, auto&& write_node) {
        nodes.rewind(peers);
        walked = 0;
        format_in_order(out, s.tasks, std::max<std::size_t>(chunk_nodes, 1), [&](const item_chunk& c, json_buffer& block) {
            thread_local text_batch b;
            thread_local fmt::memory_buffer buf;  // (kept: grown once, not per chunk)
            {
                std::unique_lock lock(walk);
                turn.wait(lock, [&] { return walked == c.begin || walk_failed; });
                if (walk_failed) return;  // (the first error is rethrown by format_in_order)
                b.clear();
                try {
                    nodes.read(c.end - c.begin, b);
                } catch (...) {
                    walk_failed = true;
                    turn.notify_all();
                    throw;
                }
                walked = c.end;
            }
            turn.notify_all();
            buf.clear();
            auto it = std::back_inserter(buf);
            for (std::size_t i = 0; i < b.nodes.size(); ++i) write_node(it, b, i);
            block.append(std::string_view(buf.data(), buf.size()));
        });
    };
    per_node(false, [&](auto it, const text_batch& b, std::size_t i) {
        fmt::format_to(it, FMT_COMPILE("TASK "));
        append_task_head(it, fmt, b.nodes[i]);
        fmt::format_to(it, FMT_COMPILE(" fanin={} fanout={}\n"), b.fanin[i], b.fanout[i]);
    });
    per_node(true, [&](auto it, const text_batch& b, std::size_t i) {
        fmt::format_to(it, FMT_COMPILE("\n=== TASK "));
        append_task_head(it, fmt, b.nodes[i]);
        fmt::format_to(it, FMT_COMPILE(" ===\nFANIN {}\n"), b.fanin[i]);
        for (std::size_t k = b.pred_begin[i]; k < b.pred_begin[i + 1]; ++k) {
            fmt::format_to(it, FMT_COMPILE("  <- "));
            fmt.format_to(it, b.preds[k]);
            *it++ = '\n';
        }
        fmt::format_to(it, FMT_COMPILE("FANOUT {}\n"), b.fanout[i]);
        for (std::size_t k = b.succ_begin[i]; k < b.succ_begin[i + 1]; ++k) {
            fmt::format_to(it, FMT_COMPILE("  -> "));
            fmt.format_to(it, b.succs[k]);
            *it++ = '\n';
        }
    });
}

// The nodes of a graph held in memory, over the selected edges (a node
// source of write_deps_text).
class graph_text_nodes {
public:
    graph_text_nodes(const deps_graph& g, const edge_selection& sel) : g_(g), fan_(g, sel.shown) {}

    void rewind(bool peers) {
        peers_ = peers;
        next_ = 0;
    }
    void read(std::size_t count, text_batch& b) {
        const auto end = static_cast<std::uint32_t>(std::min(g_.nodes.size(), next_ + count));
        for (auto n = static_cast<std::uint32_t>(next_); n < end; ++n) {
            b.nodes.push_back(text_node_of(g_, n));
            if (peers_) {
                for (std::uint32_t i = fan_.pred_begin[n]; i < fan_.pred_begin[n + 1]; ++i) b.preds.push_back(g_.nodes[fan_.preds[i]]);
                for (std::uint32_t i = fan_.succ_begin[n]; i < fan_.succ_begin[n + 1]; ++i) b.succs.push_back(g_.nodes[fan_.succs[i]]);
            }
            b.close_node(fan_.fanin(n), fan_.fanout(n));
        }
        next_ = end;
    }

private:
    const deps_graph& g_;
    const fan_lists fan_;
    bool peers_ = false;
    std::size_t next_ = 0;
};

// The text view of a graph held in memory, over the selected edges.
inline void write_deps_text(json_file_writer& out, const deps_graph& g, const edge_selection& sel,
                            std::string_view source_path, std::size_t chunk_nodes = 2048) {
    text_summary s;
    s.tasks = g.nodes.size();
    s.unique_edges = static_cast<std::size_t>(std::count(sel.shown.begin(), sel.shown.end(), true));
    s.annotated_edges = annotated_rows(g, sel.shown);
    s.tensors = g.tensor_count;
    s.perf_sidecar = g.meta_nonempty;
    s.func_name_map = g.any_func_name;
    graph_text_nodes nodes(g, sel);
    write_deps_text(out, s, g.fmt, source_path, nodes, chunk_nodes);
}

}  // namespace dfx::convert::deps
