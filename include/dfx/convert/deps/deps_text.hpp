// deps_text: the `deps_viewer` text view (dep-gen.md §3.6): a SUMMARY block,
// a grep-friendly TASK INDEX (one line per task), then one detail block per
// task listing its unique predecessors and successors.
//
// Only the edges the edge mode selects are used, and only their annotation
// rows are counted; the node set never shrinks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
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

// Appends `kind=<kind> func_id=<...>[ SPMD block num = N]` of a task line.
inline void append_task_labels(fmt::memory_buffer& out, const deps_graph& g, std::uint32_t n) {
    const task_kind k = g.kind(n);
    auto it = std::back_inserter(out);
    fmt::format_to(it, FMT_COMPILE("kind={} "), to_string(k));
    // (A node's kernel ids are its task's: the graph may have no meta.)
    const task_entry* t = g.task(n);
    if (k != task_kind::submit) fmt::format_to(it, FMT_COMPILE("func_id=none"));
    else if (t && t->has_kernel()) fmt::format_to(it, FMT_COMPILE("func_id=[{},{},{}]"), t->slots[0], t->slots[1], t->slots[2]);
    else fmt::format_to(it, FMT_COMPILE("func_id=unknown"));
    if (const std::int64_t b = g.block_num(n); b > 1) fmt::format_to(it, FMT_COMPILE(" SPMD block num = {}"), b);
}

// Number of annotation rows over the selected edges.
inline std::size_t annotated_rows(const deps_graph& g, const std::vector<bool>& shown) {
    std::size_t total = 0;
    for (std::size_t e = 0; e < g.edges.size(); ++e)
        if (shown[e]) total += g.row_begin[e + 1] - g.row_begin[e];
    return total;
}

// Writes the text view to `out`. `source_path` is printed as given. Nodes
// are formatted `chunk_nodes` at a time on two threads; the output does not
// depend on it (tests use tiny chunks).
inline void write_deps_text(json_file_writer& out, const deps_graph& g, const edge_selection& sel,
                            std::string_view source_path, std::size_t chunk_nodes = 2048) {
    const fan_lists fan(g, sel.shown);
    std::size_t unique_edges = 0;
    for (bool s : sel.shown) unique_edges += s;

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
                           source_path, g.nodes.size(), unique_edges, annotated_rows(g, sel.shown), g.tensor_count,
                           g.meta_nonempty ? "yes" : "no", g.any_func_name ? "yes" : "no"));

    // Each node's "<id> <labels>" is used several times: formatted once.
    // Node n's is at offset head[n] of the buffer of its block of
    // head_block nodes, its first id_len[n] bytes the id. (One buffer for
    // all grew by half again and copied itself: at 10^6 tasks 64 MB beside
    // the 43 MB it left, the peak of the run.)
    const auto n_nodes = static_cast<std::uint32_t>(g.nodes.size());
    constexpr std::uint32_t head_block = 4096;
    std::vector<std::string> heads((n_nodes + head_block - 1) / head_block);
    std::vector<std::uint32_t> head(n_nodes + 1, 0);  // within the block's buffer; head[n + 1] ends n unless a block starts
    std::vector<std::uint32_t> id_len(n_nodes);
    {
        fmt::memory_buffer buf;
        for (std::uint32_t b = 0; b < heads.size(); ++b) {
            buf.clear();
            const std::uint32_t end = std::min(n_nodes, (b + 1) * head_block);
            for (std::uint32_t n = b * head_block; n < end; ++n) {
                head[n] = static_cast<std::uint32_t>(buf.size());
                g.fmt.format_to(buf, g.nodes[n]);
                id_len[n] = static_cast<std::uint32_t>(buf.size() - head[n]);
                buf.push_back(' ');
                append_task_labels(buf, g, n);
            }
            head[end] = static_cast<std::uint32_t>(buf.size());  // (overwritten by the next block's first: its end is the buffer's)
            heads[b].assign(buf.data(), buf.size());
        }
    }
    auto head_of = [&](std::uint32_t n) {
        const std::string& block = heads[n / head_block];
        const std::size_t end = (n + 1) % head_block == 0 ? block.size() : head[n + 1];
        return std::string_view(block.data() + head[n], end - head[n]);
    };
    auto id_of = [&](std::uint32_t n) { return std::string_view(heads[n / head_block].data() + head[n], id_len[n]); };

    // The index lines, then the detail blocks: per node, in chunks formatted
    // on two threads (ordered_chunks.hpp), with compiled formats (these
    // lines are most of the output at 10^5+ tasks).
    const auto per_node = [&](auto&& write_node) {
        format_in_order(out, n_nodes, std::max<std::size_t>(chunk_nodes, 1), [&](const item_chunk& c, json_buffer& b) {
            fmt::memory_buffer buf;
            auto it = std::back_inserter(buf);
            for (auto n = static_cast<std::uint32_t>(c.begin); n < c.end; ++n) write_node(it, n);
            b.append(std::string_view(buf.data(), buf.size()));
        });
    };
    per_node([&](auto it, std::uint32_t n) {
        fmt::format_to(it, FMT_COMPILE("TASK {} fanin={} fanout={}\n"), head_of(n), fan.fanin(n), fan.fanout(n));
    });
    per_node([&](auto it, std::uint32_t n) {
        fmt::format_to(it, FMT_COMPILE("\n=== TASK {} ===\nFANIN {}\n"), head_of(n), fan.fanin(n));
        for (std::uint32_t i = fan.pred_begin[n]; i < fan.pred_begin[n + 1]; ++i) {
            fmt::format_to(it, FMT_COMPILE("  <- {}\n"), id_of(fan.preds[i]));
        }
        fmt::format_to(it, FMT_COMPILE("FANOUT {}\n"), fan.fanout(n));
        for (std::uint32_t i = fan.succ_begin[n]; i < fan.succ_begin[n + 1]; ++i) {
            fmt::format_to(it, FMT_COMPILE("  -> {}\n"), id_of(fan.succs[i]));
        }
    });
}

}  // namespace dfx::convert::deps
