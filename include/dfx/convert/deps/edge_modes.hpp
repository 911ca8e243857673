// edge_modes: which dependency edges a deps view shows (dep-gen.md §3.5).
//
//   full              every unique edge
//   reduced           transitive reduction; a pair with a `creator` row is kept
//                     (it retains the owner of a tensor the consumer uses)
//   omitted           only what `reduced` removes
//   reduced_dataflow  structural reduction picks candidates; a candidate with
//                     creator rows is removed only when byte-level tensormap
//                     dataflow proves every byte of its INOUT region flows from
//                     an earlier and into a later INOUT of the same creator
//   omitted_dataflow  only what `reduced_dataflow` removes
//
// The reference computes reachability sets for every node (O(V^2) memory).
// Here each node runs a depth-first search bounded by its furthest successor
// in topological order: a node beyond that bound cannot be a successor, and
// neither can anything reachable only through it. Same result, O(V + E)
// memory, and near-linear time on runtime task graphs, whose edges are local.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "dfx/convert/deps/deps_graph.hpp"

namespace dfx::convert::deps {

enum class edge_mode { full, reduced, omitted, reduced_dataflow, omitted_dataflow };

inline std::optional<edge_mode> parse_edge_mode(std::string_view s) {
    if (s == "full") return edge_mode::full;
    if (s == "reduced") return edge_mode::reduced;
    if (s == "omitted") return edge_mode::omitted;
    if (s == "reduced_dataflow") return edge_mode::reduced_dataflow;
    if (s == "omitted_dataflow") return edge_mode::omitted_dataflow;
    return std::nullopt;
}

inline const char* to_string(edge_mode m) {
    switch (m) {
    case edge_mode::full: return "full";
    case edge_mode::reduced: return "reduced";
    case edge_mode::omitted: return "omitted";
    case edge_mode::reduced_dataflow: return "reduced_dataflow";
    case edge_mode::omitted_dataflow: return "omitted_dataflow";
    }
    return "full";
}

// Per unique edge of a graph: true when the reduction removes it. Empty
// (nullopt) when the graph has a cycle (self-loops included): reduction is
// undefined there and the caller falls back to the full graph.
using removal = std::optional<std::vector<bool>>;

namespace detail {

// Transitive reduction over g.edges. `protect_creator`: never remove a pair
// that has a creator row.
inline removal structural_reduction(const deps_graph& g, bool protect_creator) {
    const std::size_t n = g.nodes.size();
    // Successors in CSR form; g.edges is sorted by pred, so it already is one.
    std::vector<std::uint32_t> first(n + 1, 0);
    for (const auto& [p, s] : g.edges) ++first[p + 1];
    for (std::size_t i = 0; i < n; ++i) first[i + 1] += first[i];
    auto succ_begin = [&](std::uint32_t u) { return first[u]; };
    auto succ_end = [&](std::uint32_t u) { return first[u + 1]; };

    // Kahn's algorithm: topological positions, or a cycle.
    std::vector<std::uint32_t> indeg(n, 0);
    for (const auto& [p, s] : g.edges) ++indeg[s];
    std::vector<std::uint32_t> order;
    order.reserve(n);
    for (std::uint32_t v = 0; v < n; ++v)
        if (indeg[v] == 0) order.push_back(v);
    for (std::size_t head = 0; head < order.size(); ++head) {
        const std::uint32_t u = order[head];
        for (std::uint32_t e = succ_begin(u); e < succ_end(u); ++e)
            if (--indeg[g.edges[e].second] == 0) order.push_back(g.edges[e].second);
    }
    if (order.size() != n) return std::nullopt;
    std::vector<std::uint32_t> pos(n);
    for (std::uint32_t i = 0; i < n; ++i) pos[order[i]] = i;

    std::vector<bool> removed(g.edges.size(), false);
    std::vector<std::uint32_t> seen(n, UINT32_MAX);  // stamp = the node whose search marked it
    std::vector<std::uint32_t> stack;
    for (std::uint32_t u = 0; u < n; ++u) {
        if (succ_end(u) - succ_begin(u) < 2) continue;  // a lone successor is never implied
        std::uint32_t limit = 0;
        for (std::uint32_t e = succ_begin(u); e < succ_end(u); ++e) limit = std::max(limit, pos[g.edges[e].second]);
        // Everything reachable from u's successors by at least one more edge.
        stack.clear();
        for (std::uint32_t e = succ_begin(u); e < succ_end(u); ++e) {
            const std::uint32_t w = g.edges[e].second;
            for (std::uint32_t f = succ_begin(w); f < succ_end(w); ++f) stack.push_back(g.edges[f].second);
        }
        while (!stack.empty()) {
            const std::uint32_t x = stack.back();
            stack.pop_back();
            if (seen[x] == u || pos[x] > limit) continue;
            seen[x] = u;
            for (std::uint32_t f = succ_begin(x); f < succ_end(x); ++f) stack.push_back(g.edges[f].second);
        }
        for (std::uint32_t e = succ_begin(u); e < succ_end(u); ++e)
            if (seen[g.edges[e].second] == u && !(protect_creator && g.pair_has_creator(e))) removed[e] = true;
    }
    return removed;
}

// ---- byte regions (the dataflow proof) ------------------------------------

using interval = std::pair<std::int64_t, std::int64_t>;  // half-open byte range
using intervals = std::vector<interval>;

inline intervals merge_intervals(intervals v) {
    std::sort(v.begin(), v.end());
    intervals out;
    for (const auto& [b, e] : v) {
        if (b >= e) continue;
        if (!out.empty() && b <= out.back().second) out.back().second = std::max(out.back().second, e);
        else out.emplace_back(b, e);
    }
    return out;
}

inline intervals intersect_intervals(const intervals& a, const intervals& b) {
    intervals out;
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const std::int64_t lo = std::max(a[i].first, b[j].first);
        const std::int64_t hi = std::min(a[i].second, b[j].second);
        if (lo < hi) out.emplace_back(lo, hi);
        if (a[i].second <= b[j].second) ++i;
        else ++j;
    }
    return out;
}

// Whether the union of `covers` contains every byte of `target` (sorted, merged).
inline bool intervals_cover(const intervals& target, intervals covers) {
    const intervals cover = merge_intervals(std::move(covers));
    std::size_t ci = 0;
    for (const auto& [tb, te] : target) {
        std::int64_t cursor = tb;
        while (ci < cover.size() && cover[ci].second <= cursor) ++ci;
        std::size_t k = ci;
        while (cursor < te && k < cover.size() && cover[k].first <= cursor) cursor = std::max(cursor, cover[k++].second);
        if (cursor < te) return false;
    }
    return true;
}

inline std::optional<std::int64_t> dtype_bytes(std::string_view d) {
    static constexpr std::pair<std::string_view, std::int64_t> table[] = {
        {"FLOAT32", 4}, {"FLOAT16", 2}, {"INT32", 4}, {"INT16", 2}, {"INT8", 1},   {"UINT8", 1},
        {"BFLOAT16", 2}, {"INT64", 8},  {"UINT64", 8}, {"UINT16", 2}, {"UINT32", 4}, {"BOOL", 1},
    };
    for (const auto& [name, bytes] : table)
        if (name == d) return bytes;
    return std::nullopt;  // FP8 / FP4 / unknown: cannot be proven
}

inline std::string upper(std::string s) {
    for (char& c : s)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return s;
}

// row.get(k, arg.get(k)): the row's member when present, else the arg's.
template <class T>
const field<T>& pick(const field<T>& row, const field<T>& arg) { return row.present ? row : arg; }

struct region {
    std::int64_t buffer_addr = 0;
    intervals bytes;
};

// _strided_byte_region: the exact bytes one side of an edge row touches, or
// nullopt when anything is missing or the view is too irregular to expand.
inline std::optional<region> byte_region(const deps_graph& g, const edge_detail& d, const edge_geometry& geo,
                                         const task_arg& arg, bool producer) {
    constexpr std::int64_t max_intervals = 10'000;
    const std::optional<std::uint64_t> tid = d.tensor_id ? d.tensor_id : arg.tensor_id;
    if (!tid) return std::nullopt;
    const auto t = g.tensors.find(*tid);
    if (t == g.tensors.end()) return std::nullopt;
    const tensor_entry& tensor = t->second;

    const auto& off = pick(producer ? geo.producer_start_offset : geo.consumer_start_offset, arg.start_offset);
    if (!tensor.buffer_addr.value || !tensor.buffer_numel.value || !off.value) return std::nullopt;
    const std::int64_t addr = *tensor.buffer_addr.value, numel = *tensor.buffer_numel.value, start = *off.value;
    if (addr < 0 || numel < 0 || start < 0) return std::nullopt;

    const auto& shape_f = pick(producer ? geo.producer_shape : geo.consumer_shape, arg.shape);
    const auto& strides_f = pick(producer ? geo.producer_strides : geo.consumer_strides, arg.strides);
    if (!shape_f.value || !strides_f.value) return std::nullopt;
    const std::vector<std::int64_t>& shape = *shape_f.value;
    const std::vector<std::int64_t>& strides = *strides_f.value;
    if (shape.empty() || shape.size() != strides.size()) return std::nullopt;
    for (std::size_t i = 0; i < shape.size(); ++i)
        if (shape[i] <= 0 || strides[i] <= 0) return std::nullopt;

    // dtype: row, then arg, then the tensor's; it must agree with the tensor's.
    const auto& row_dtype = producer ? geo.producer_dtype : geo.consumer_dtype;
    std::optional<std::string> dtype;
    if (row_dtype.present) dtype = row_dtype.value;
    else if (arg.dtype.present) dtype = arg.dtype.value;
    else dtype = tensor.dtype;
    if (!dtype) return std::nullopt;
    const std::string dt = upper(*dtype);
    const std::string buffer_dt = upper(tensor.dtype.value_or(dt));
    const auto elem = dtype_bytes(dt);
    if (!elem || dt != buffer_dt) return std::nullopt;

    // The longest contiguous suffix is one run; enumerate the outer coordinates.
    std::size_t suffix = shape.size();
    std::int64_t run = 1;
    for (std::size_t d2 = shape.size(); d2-- > 0;) {
        if (strides[d2] != run) break;
        if (__builtin_mul_overflow(run, shape[d2], &run)) return std::nullopt;
        suffix = d2;
    }
    std::int64_t count = 1;
    for (std::size_t d2 = 0; d2 < suffix; ++d2) {
        count *= shape[d2];
        if (count > max_intervals) return std::nullopt;
    }
    std::vector<std::int64_t> offsets{start};
    for (std::size_t d2 = 0; d2 < suffix; ++d2) {
        std::vector<std::int64_t> next;
        next.reserve(offsets.size() * static_cast<std::size_t>(shape[d2]));
        for (std::int64_t base : offsets)
            for (std::int64_t i = 0; i < shape[d2]; ++i) next.push_back(base + i * strides[d2]);
        offsets = std::move(next);
    }
    intervals iv;
    iv.reserve(offsets.size());
    for (std::int64_t o : offsets) {
        std::int64_t b = 0, e = 0, end_elem = 0;
        if (__builtin_mul_overflow(o, *elem, &b) || __builtin_add_overflow(o, run, &end_elem) ||
            __builtin_mul_overflow(end_elem, *elem, &e) || __builtin_add_overflow(b, addr, &b) ||
            __builtin_add_overflow(e, addr, &e))
            return std::nullopt;
        iv.emplace_back(b, e);
    }
    region r{addr, merge_intervals(std::move(iv))};
    std::int64_t buffer_end = 0;
    if (__builtin_mul_overflow(numel, *elem, &buffer_end) || __builtin_add_overflow(buffer_end, addr, &buffer_end))
        return std::nullopt;
    if (r.bytes.empty()) return std::nullopt;
    for (const auto& [b, e] : r.bytes)
        if (b < addr || e > buffer_end) return std::nullopt;
    return r;
}

// args_by_idx of a task: the last arg with a given idx wins.
inline const task_arg* arg_by_idx(const deps_graph& g, std::uint64_t task_id, std::optional<std::int64_t> idx) {
    const std::optional<std::uint32_t> node = g.find_node(task_id);
    if (!idx || !node) return nullptr;
    const task_entry* t = g.task(*node);
    if (!t) return nullptr;
    const task_arg* found = nullptr;
    for (const task_arg& a : g.args(*t))
        if (a.idx == idx) found = &a;
    return found;
}

inline removal dataflow_reduction(const deps_graph& g) {
    removal structural = structural_reduction(g, /*protect_creator=*/false);
    if (!structural) return structural;
    std::vector<bool>& removed = *structural;
    static const task_arg no_arg{};
    static const edge_geometry no_geometry{};
    auto geometry_of = [&](const edge_detail& d) -> const edge_geometry& {
        return d.geometry < g.doc.geometry.size() ? g.doc.geometry[d.geometry] : no_geometry;
    };

    // Creator records: exact regions of INOUT / OUTPUT_EXISTING args reached by a creator row.
    struct creator_record {
        std::uint64_t owner, task;
        std::int64_t arg;
        std::string arg_type;
        std::int64_t buffer;
        intervals bytes;
    };
    std::vector<creator_record> creators;
    std::map<std::size_t, std::vector<std::size_t>> creators_by_edge;
    std::map<std::tuple<std::uint64_t, std::uint64_t, std::int64_t>, std::vector<std::size_t>> creators_by_owner_task_buf;
    // Modifier records: tensormap rows into an INOUT arg, with the bytes both sides share.
    struct modifier {
        std::uint64_t pred, succ;
        std::int64_t arg;
        intervals overlap;
    };
    std::vector<modifier> modifiers;
    std::map<std::tuple<std::uint64_t, std::int64_t, std::int64_t>, std::vector<std::size_t>> incoming;
    std::map<std::pair<std::uint64_t, std::int64_t>, std::vector<std::size_t>> outgoing;

    for (std::size_t e = 0; e < g.edges.size(); ++e) {
        const auto [b, en] = g.pair_rows(e);
        for (const std::uint32_t* r = b; r != en; ++r) {
            const edge_key& k = g.doc.edges[*r];
            const edge_detail& d = g.doc.details[*r];
            if (k.source != edge_source::creator && k.source != edge_source::tensormap) continue;
            const task_arg* arg = arg_by_idx(g, k.succ, d.arg);
            if (!arg) continue;
            if (k.source == edge_source::creator) {
                if (arg->type != "INOUT" && arg->type != "OUTPUT_EXISTING") continue;
                auto reg = byte_region(g, d, geometry_of(d), *arg, false);
                if (!reg) continue;
                creators.push_back({k.pred, k.succ, *d.arg, arg->type, reg->buffer_addr, std::move(reg->bytes)});
                creators_by_edge[e].push_back(creators.size() - 1);
                creators_by_owner_task_buf[{k.pred, k.succ, creators.back().buffer}].push_back(creators.size() - 1);
            } else {
                if (arg->type != "INOUT") continue;
                const auto cons = byte_region(g, d, geometry_of(d), *arg, false);
                const auto prod = byte_region(g, d, geometry_of(d), no_arg, true);
                if (!cons || !prod || cons->buffer_addr != prod->buffer_addr) continue;
                intervals ov = intersect_intervals(cons->bytes, prod->bytes);
                if (ov.empty()) continue;
                modifiers.push_back({k.pred, k.succ, *d.arg, std::move(ov)});
                incoming[{k.succ, *d.arg, cons->buffer_addr}].push_back(modifiers.size() - 1);
                outgoing[{k.pred, cons->buffer_addr}].push_back(modifiers.size() - 1);
            }
        }
    }

    auto peers = [&](std::uint64_t owner, std::uint64_t task, std::int64_t buf) -> const std::vector<std::size_t>* {
        const auto it = creators_by_owner_task_buf.find({owner, task, buf});
        return it == creators_by_owner_task_buf.end() ? nullptr : &it->second;
    };

    for (std::size_t e = 0; e < g.edges.size(); ++e) {
        if (!removed[e]) continue;
        std::size_t creator_rows = 0;
        const auto [b, en] = g.pair_rows(e);
        for (const std::uint32_t* r = b; r != en; ++r) creator_rows += g.doc.edges[*r].source == edge_source::creator;
        if (creator_rows == 0) continue;  // no lifetime at stake: stays removed
        const auto it = creators_by_edge.find(e);
        const std::vector<std::size_t> none;
        const std::vector<std::size_t>& recs = it == creators_by_edge.end() ? none : it->second;
        bool proven = recs.size() == creator_rows;
        for (std::size_t ri : recs) proven = proven && creators[ri].arg_type == "INOUT";
        for (std::size_t ri = 0; proven && ri < recs.size(); ++ri) {
            const creator_record& rec = creators[recs[ri]];
            intervals earlier, later;
            if (const auto in = incoming.find({rec.task, rec.arg, rec.buffer}); in != incoming.end())
                for (std::size_t mi : in->second)
                    if (const auto* ps = peers(rec.owner, modifiers[mi].pred, rec.buffer))
                        for (std::size_t pi : *ps)
                            for (const auto& iv : intersect_intervals(modifiers[mi].overlap, creators[pi].bytes))
                                earlier.push_back(iv);
            if (const auto out = outgoing.find({rec.task, rec.buffer}); out != outgoing.end())
                for (std::size_t mi : out->second)
                    if (const auto* ps = peers(rec.owner, modifiers[mi].succ, rec.buffer))
                        for (std::size_t pi : *ps)
                            if (creators[pi].arg == modifiers[mi].arg && creators[pi].arg_type == "INOUT")
                                for (const auto& iv : intersect_intervals(modifiers[mi].overlap, creators[pi].bytes))
                                    later.push_back(iv);
            proven = intervals_cover(rec.bytes, std::move(earlier)) && intervals_cover(rec.bytes, std::move(later));
        }
        if (!proven) removed[e] = false;
    }
    return structural;
}

}  // namespace detail

// The outcome of applying an edge mode to a graph.
struct edge_selection {
    edge_mode requested = edge_mode::full;
    bool cycle_fallback = false;       // a reduction was asked for but the graph has a cycle
    std::vector<bool> shown;           // per unique edge: drawn (text) / drawn in front (HTML)
    std::vector<std::size_t> removed;  // edges the reduction removes, in sorted order
    std::size_t kept_count = 0;
    std::size_t shown_count = 0;

    bool reduction_applied() const { return requested != edge_mode::full && !cycle_fallback; }
    // Default output stem: deps_viewer, or deps_viewer_<mode> when a reduction applied.
    std::string stem() const {
        return reduction_applied() ? std::string("deps_viewer_") + to_string(requested) : "deps_viewer";
    }
};

// Applies `mode`. Dataflow modes need the graph loaded with geometry.
inline edge_selection select_edges(const deps_graph& g, edge_mode mode) {
    edge_selection sel;
    sel.requested = mode;
    sel.shown.assign(g.edges.size(), true);
    sel.shown_count = sel.kept_count = g.edges.size();
    if (mode == edge_mode::full) return sel;
    const bool dataflow = mode == edge_mode::reduced_dataflow || mode == edge_mode::omitted_dataflow;
    const removal r = dataflow ? detail::dataflow_reduction(g) : detail::structural_reduction(g, true);
    if (!r) {
        sel.cycle_fallback = true;
        return sel;
    }
    const bool reduced = mode == edge_mode::reduced || mode == edge_mode::reduced_dataflow;
    for (std::size_t e = 0; e < g.edges.size(); ++e) {
        if ((*r)[e]) sel.removed.push_back(e);
        sel.shown[e] = reduced ? !(*r)[e] : (*r)[e];
    }
    sel.kept_count = g.edges.size() - sel.removed.size();
    sel.shown_count = reduced ? sel.kept_count : sel.removed.size();
    return sel;
}

}  // namespace dfx::convert::deps
