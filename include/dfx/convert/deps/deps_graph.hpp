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
#include <unordered_map>
#include <utility>
#include <vector>

#include "dfx/convert/common/id_index.hpp"
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
    // When the task ran, from the records beside deps.json (perf_sidecar.hpp).
    struct run_time {
        double start_us;     // from the first task's start
        double duration_us;  // first slice's start to last slice's end
    };
    std::optional<run_time> ran;
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

    // The node index of `id`, if it is a node.
    std::optional<std::uint32_t> find_node(std::uint64_t id) const {
        const auto it = std::lower_bound(nodes.begin(), nodes.end(), id);
        if (it == nodes.end() || *it != id) return std::nullopt;
        return static_cast<std::uint32_t>(it - nodes.begin());
    }

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

// `order` stably reordered by key[order[i]] (keys below `buckets`): one pass
// of a radix sort whose digit is a whole node index.
inline std::vector<std::uint32_t> stable_sort_by(const std::vector<std::uint32_t>& order,
                                                 const std::vector<std::uint32_t>& key, std::size_t buckets) {
    std::vector<std::uint32_t> start(buckets + 1, 0);
    for (std::uint32_t i : order) ++start[key[i] + 1];
    for (std::size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
    std::vector<std::uint32_t> out(order.size());
    for (std::uint32_t i : order) out[start[key[i]]++] = i;
    return out;
}

}  // namespace detail

// The part of build_graph that needs only the document, so the viewer can
// run it while the sidecar is still being read.
inline deps_graph start_graph(deps_document doc) {
    deps_graph g;
    g.doc = std::move(doc);

    // Tasks and tensors: a repeated id keeps its last entry (dict assignment).
    {
        id_index pos(g.doc.tasks.size());
        for (task_entry& t : g.doc.tasks) {
            const auto [at, inserted] = pos.emplace(t.id, static_cast<std::uint32_t>(g.tasks.size()));
            if (inserted) g.tasks.push_back(std::move(t));
            else g.tasks[at] = std::move(t);
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
    return g;
}

// Joins a started graph with its metadata. `sidecar` may be null (no sidecar).
inline void finish_graph(deps_graph& g, const name_map& names, const sidecar_tasks* sidecar) {
    // Nodes: every edge endpoint, plus every task with metadata (§3.3: a row
    // in the sidecar, or a valid kernel id). Collected once each through a
    // hash index, then sorted.
    {
        id_index seen(g.tasks.size());  // grows if the sidecar adds nodes (sized for both, it doubled)
        auto add = [&](std::uint64_t id) {
            if (seen.emplace(id, 0).second) g.nodes.push_back(id);
        };
        for (const edge_key& k : g.doc.edges) {
            add(k.pred);
            add(k.succ);
        }
        if (sidecar)
            for (const auto& entry : *sidecar) add(entry.first);
        for (const task_entry& t : g.tasks)
            if (t.has_kernel()) add(t.id);
        std::sort(g.nodes.begin(), g.nodes.end());
        g.nodes.shrink_to_fit();
    }
    id_index node_of(g.nodes.size());
    for (std::size_t n = 0; n < g.nodes.size(); ++n) node_of.insert(g.nodes[n], static_cast<std::uint32_t>(n));

    // Metadata (§3.3): the sidecar first, then what the kernel ids say.
    g.meta.resize(g.nodes.size());
    if (sidecar) {
        for (const auto& [id, s] : *sidecar) {
            node_meta& m = g.meta[node_of.find(id)];
            m.present = true;
            m.func_id = -1;  // the swimlane reader never knows the func id
            if (names.nonempty)
                if (const std::string* n = names.find(-1)) m.func_name = *n;
            m.core_type = s.mixed ? "mix" : s.core_type;
            m.ran = node_meta::run_time{s.start_us, s.duration_us};
        }
    }
    g.task_of.assign(g.nodes.size(), -1);
    for (std::size_t i = 0; i < g.tasks.size(); ++i) {
        const task_entry& t = g.tasks[i];
        const std::uint32_t n = node_of.find(t.id);
        if (n == id_index::npos) continue;  // no kernel, no sidecar row and no edge
        g.task_of[n] = static_cast<std::int32_t>(i);
        if (!t.has_kernel()) continue;
        node_meta& m = g.meta[n];
        m.present = true;
        if (!m.func_id) m.func_id = *std::find_if(t.slots.begin(), t.slots.end(), [](std::int64_t s) { return s >= 0; });
        m.has_slots = true;
        m.slots = t.slots;
        if (names.nonempty && m.func_name.empty()) {
            std::vector<std::string> active;
            for (std::int64_t id : t.slots) {
                if (id < 0) continue;
                std::string name = names.name_or_fallback(id);
                if (std::find(active.begin(), active.end(), name) == active.end()) active.push_back(std::move(name));
            }
            for (std::size_t k = 0; k < active.size(); ++k) m.func_name += (k ? " + " : "") + active[k];
        }
        if (m.core_type.empty()) {
            const bool aic = t.slots[0] >= 0;
            const bool aiv = t.slots[1] >= 0 || t.slots[2] >= 0;
            m.core_type = aic && aiv ? "mix" : aic ? "aic" : "aiv";
        }
    }
    g.meta_nonempty = std::any_of(g.meta.begin(), g.meta.end(), [](const node_meta& m) { return m.present; });

    // Unique pairs with their rows, sorted by (pred, succ), rows in file
    // order: radix-sort the rows by succ node, then stably by pred node.
    {
        const std::size_t n_rows = g.doc.edges.size();
        std::vector<std::uint32_t> pred(n_rows), succ(n_rows), order(n_rows);
        for (std::size_t r = 0; r < n_rows; ++r) {
            pred[r] = node_of.find(g.doc.edges[r].pred);
            succ[r] = node_of.find(g.doc.edges[r].succ);
            order[r] = static_cast<std::uint32_t>(r);
        }
        g.rows = detail::stable_sort_by(detail::stable_sort_by(order, succ, g.nodes.size()), pred, g.nodes.size());
        for (std::size_t i = 0; i < n_rows; ++i) {
            const std::uint32_t r = g.rows[i];
            if (i == 0 || pred[r] != pred[g.rows[i - 1]] || succ[r] != succ[g.rows[i - 1]]) {
                g.edges.emplace_back(pred[r], succ[r]);
                g.row_begin.push_back(static_cast<std::uint32_t>(i));
            }
        }
        g.row_begin.push_back(static_cast<std::uint32_t>(n_rows));
    }

    g.fmt = task_formatter(g.nodes);
    detail::backfill_output_tensor_ids(g);
}

// Joins the document with its metadata. `sidecar` may be null (no sidecar).
inline deps_graph build_graph(deps_document doc, const name_map& names, const sidecar_tasks* sidecar) {
    deps_graph g = start_graph(std::move(doc));
    finish_graph(g, names, sidecar);
    return g;
}

}  // namespace dfx::convert::deps
