// deps_graph: deps.json joined with the name map and the perf sidecar into the
// graph every deps view renders (dep-gen.md §3.2 - §3.4).
//
//   nodes   all edge endpoints, plus every task that has metadata (a valid
//           kernel id, or a row in the sidecar). So a dummy task without
//           edges is not a node, as in the reference.
//   edges   the unique (pred, succ) pairs, sorted by id; each pair keeps its
//           annotation rows (the deps.json edge entries) in file order.
//   meta    per node: kernel slots, func name, core type (§3.3).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "dfx/convert/deps/deps_document.hpp"
#include "dfx/convert/deps/name_map.hpp"
#include "dfx/convert/deps/perf_sidecar.hpp"
#include "dfx/convert/deps/task_id.hpp"

namespace dfx::convert::deps {

// What the reference's `meta` dict holds for one task.
struct node_meta {
    bool present = false;
    std::optional<std::int64_t> func_id;
    std::string func_name;  // "" = none
    std::string core_type;  // "" = none; else aic / aiv / mix (or what the sidecar says)
    bool has_slots = false;
    std::array<std::int64_t, 3> slots{-1, -1, -1};
};

enum class task_kind { submit, dummy, alloc };

inline const char* to_string(task_kind k) {
    switch (k) {
    case task_kind::submit: return "submit";
    case task_kind::dummy: return "dummy";
    case task_kind::alloc: return "alloc";
    }
    return "alloc";
}

using edge_pair = std::pair<std::uint32_t, std::uint32_t>;  // dense node indexes

struct deps_graph {
    deps_document doc;
    std::vector<std::uint64_t> nodes;  // sorted ascending
    std::vector<node_meta> meta;       // per node
    std::vector<std::int32_t> task_of;  // per node: index into tasks, or -1
    std::vector<task_entry> tasks;      // one per id (the last entry of an id wins)
    std::unordered_map<std::uint64_t, tensor_entry> tensors;  // by tensor_id (the last wins); only with details
    std::size_t tensor_count = 0;                             // distinct tensor ids
    bool meta_nonempty = false;

    std::vector<edge_pair> edges;          // unique pairs, sorted
    std::vector<std::uint32_t> row_begin;  // per pair: [row_begin[i], row_begin[i+1]) in rows
    std::vector<std::uint32_t> rows;       // indexes into doc.edges, file order within a pair

    task_formatter fmt;

    std::uint32_t index_of(std::uint64_t id) const {
        return static_cast<std::uint32_t>(std::lower_bound(nodes.begin(), nodes.end(), id) - nodes.begin());
    }
    bool has_node(std::uint64_t id) const { return std::binary_search(nodes.begin(), nodes.end(), id); }

    const task_entry* task(std::uint32_t n) const { return task_of[n] < 0 ? nullptr : &tasks[static_cast<std::size_t>(task_of[n])]; }

    task_kind kind(std::uint32_t n) const {
        if (const task_entry* t = task(n)) return t->has_kernel() ? task_kind::submit : task_kind::dummy;
        const node_meta& m = meta[n];
        if (m.has_slots && (m.slots[0] >= 0 || m.slots[1] >= 0 || m.slots[2] >= 0)) return task_kind::submit;
        return task_kind::alloc;
    }

    std::int64_t block_num(std::uint32_t n) const {
        const task_entry* t = task(n);
        return t ? t->block_num : 1;
    }

    // Rows of the pair edges[e] (indexes into doc.edges).
    std::pair<const std::uint32_t*, const std::uint32_t*> pair_rows(std::size_t e) const {
        return {rows.data() + row_begin[e], rows.data() + row_begin[e + 1]};
    }
    bool pair_has_creator(std::size_t e) const {
        const auto [b, en] = pair_rows(e);
        return std::any_of(b, en, [&](std::uint32_t r) { return doc.edges[r].source == edge_source::creator; });
    }
};

namespace detail {

// §3.2 OUTPUT backfill: a creator row tells which tensor its producer created;
// when the producer has exactly one OUTPUT arg without a tensor id, that must be it.
inline void backfill_output_tensor_ids(deps_graph& g) {
    if (g.doc.details.empty()) return;
    std::unordered_map<std::uint64_t, std::size_t> task_by_id;
    for (std::size_t i = 0; i < g.tasks.size(); ++i) task_by_id[g.tasks[i].id] = i;
    // Pairs in order of first appearance, rows in file order: the order the
    // reference walks its annotations dict in, which decides ties.
    std::vector<std::size_t> order(g.edges.size());
    for (std::size_t e = 0; e < order.size(); ++e) order[e] = e;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return g.rows[g.row_begin[a]] < g.rows[g.row_begin[b]];
    });
    for (std::size_t e : order) {
        const auto [b, en] = g.pair_rows(e);
        for (const std::uint32_t* r = b; r != en; ++r) {
            const edge_key& k = g.doc.edges[*r];
            const edge_detail& d = g.doc.details[*r];
            if (k.source != edge_source::creator || !d.tensor_id) continue;
            const auto it = task_by_id.find(k.pred);
            if (it == task_by_id.end()) continue;
            task_entry& pred = g.tasks[it->second];
            bool known = false;
            std::vector<task_arg*> unassigned;
            for (task_arg& a : pred.args) {
                const bool out_type = a.type == "INOUT" || a.type == "OUTPUT_EXISTING" || a.type == "OUTPUT";
                if (out_type && a.tensor_id == d.tensor_id) {
                    known = true;
                    break;
                }
                if (a.type == "OUTPUT" && !a.tensor_id) unassigned.push_back(&a);
            }
            if (!known && unassigned.size() == 1) {
                unassigned.front()->tensor_id = d.tensor_id;
                unassigned.front()->inferred = true;
            }
        }
    }
}

}  // namespace detail

// Joins the document with its metadata. `sidecar` may be null (no sidecar).
inline deps_graph build_graph(deps_document doc, const name_map& names, const sidecar_tasks* sidecar) {
    deps_graph g;
    g.doc = std::move(doc);

    // Tasks and tensors: a repeated id keeps its last entry (dict assignment).
    {
        std::unordered_map<std::uint64_t, std::size_t> pos;
        pos.reserve(g.doc.tasks.size());
        for (task_entry& t : g.doc.tasks) {
            const auto [it, inserted] = pos.try_emplace(t.id, g.tasks.size());
            if (inserted) g.tasks.push_back(std::move(t));
            else g.tasks[it->second] = std::move(t);
        }
        g.doc.tasks.clear();
        g.doc.tasks.shrink_to_fit();
        std::vector<std::uint64_t> ids;
        ids.reserve(g.doc.tensors.size());
        for (const tensor_entry& t : g.doc.tensors) ids.push_back(t.id);
        std::sort(ids.begin(), ids.end());
        g.tensor_count = static_cast<std::size_t>(std::unique(ids.begin(), ids.end()) - ids.begin());
        if (!g.doc.details.empty() || !g.doc.geometry.empty()) {  // the views that show or prove tensors
            g.tensors.reserve(g.tensor_count);
            for (tensor_entry& t : g.doc.tensors) g.tensors[t.id] = std::move(t);
        }
        g.doc.tensors.clear();
        g.doc.tensors.shrink_to_fit();
    }

    // Metadata (§3.3): the sidecar first, then what the kernel ids say.
    std::unordered_map<std::uint64_t, node_meta> meta;
    meta.reserve(g.tasks.size() + (sidecar ? sidecar->size() : 0));
    if (sidecar) {
        for (const auto& [id, s] : *sidecar) {
            node_meta& m = meta[id];
            m.present = true;
            m.func_id = -1;  // the swimlane reader never knows the func id
            if (names.nonempty)
                if (const std::string* n = names.find(-1)) m.func_name = *n;
            m.core_type = s.mixed ? "mix" : s.core_type;
        }
    }
    for (const task_entry& t : g.tasks) {
        if (!t.has_kernel()) continue;
        node_meta& m = meta[t.id];
        m.present = true;
        if (!m.func_id) m.func_id = *std::find_if(t.slots.begin(), t.slots.end(), [](std::int64_t s) { return s >= 0; });
        m.has_slots = true;
        m.slots = t.slots;
        if (names.nonempty && m.func_name.empty()) {
            std::vector<std::string> active;
            for (std::int64_t id : t.slots) {
                if (id < 0) continue;
                std::string n = names.name_or_fallback(id);
                if (std::find(active.begin(), active.end(), n) == active.end()) active.push_back(std::move(n));
            }
            for (std::size_t i = 0; i < active.size(); ++i) m.func_name += (i ? " + " : "") + active[i];
        }
        if (m.core_type.empty()) {
            const bool aic = t.slots[0] >= 0;
            const bool aiv = t.slots[1] >= 0 || t.slots[2] >= 0;
            m.core_type = aic && aiv ? "mix" : aic ? "aic" : "aiv";
        }
    }
    g.meta_nonempty = !meta.empty();

    // Nodes: every edge endpoint, plus every task with metadata.
    g.nodes.reserve(g.doc.edges.size() + meta.size());
    for (const edge_key& k : g.doc.edges) {
        g.nodes.push_back(k.pred);
        g.nodes.push_back(k.succ);
    }
    for (const auto& [id, m] : meta) g.nodes.push_back(id);
    std::sort(g.nodes.begin(), g.nodes.end());
    g.nodes.erase(std::unique(g.nodes.begin(), g.nodes.end()), g.nodes.end());
    g.nodes.shrink_to_fit();

    g.meta.resize(g.nodes.size());
    for (auto& [id, m] : meta) g.meta[g.index_of(id)] = std::move(m);
    g.task_of.assign(g.nodes.size(), -1);
    for (std::size_t i = 0; i < g.tasks.size(); ++i)
        if (g.has_node(g.tasks[i].id)) g.task_of[g.index_of(g.tasks[i].id)] = static_cast<std::int32_t>(i);

    // Unique pairs with their rows: sort (pred, succ, row) once.
    {
        std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> triples;
        triples.reserve(g.doc.edges.size());
        for (std::size_t r = 0; r < g.doc.edges.size(); ++r)
            triples.emplace_back(g.index_of(g.doc.edges[r].pred), g.index_of(g.doc.edges[r].succ),
                                 static_cast<std::uint32_t>(r));
        std::sort(triples.begin(), triples.end());
        g.rows.reserve(triples.size());
        for (std::size_t i = 0; i < triples.size(); ++i) {
            const auto& [p, s, r] = triples[i];
            if (i == 0 || p != std::get<0>(triples[i - 1]) || s != std::get<1>(triples[i - 1])) {
                g.edges.emplace_back(p, s);
                g.row_begin.push_back(static_cast<std::uint32_t>(i));
            }
            g.rows.push_back(r);
        }
        g.row_begin.push_back(static_cast<std::uint32_t>(triples.size()));
    }

    g.fmt = task_formatter(g.nodes);
    detail::backfill_output_tensor_ids(g);
    return g;
}

}  // namespace dfx::convert::deps
