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
#include <cstddef>
#include <cstdint>
#include <deque>
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
    std::deque<task_entry> tasks;       // one per id (the last entry of an id wins)
    std::unordered_map<std::uint64_t, tensor_entry> tensors;  // by tensor_id (the last wins); only with details
    std::size_t tensor_count = 0;                             // distinct tensor ids
    bool meta_nonempty = false;  // some node has metadata (the text view's "perf_sidecar: yes")
    bool any_func_name = false;  // some node has a func name (the text view's "func_name_map: yes")

    std::vector<edge_pair> edges;          // unique pairs, sorted
    std::vector<std::uint32_t> row_begin;  // per pair: [row_begin[i], row_begin[i+1]) in rows
    std::vector<std::uint32_t> rows;       // indexes into doc.edges, file order within a pair
    std::vector<bool> pair_creator;        // per pair, in a lean graph only (no rows): has a creator row

    task_formatter fmt;

    // The node index of `id`, if it is a node.
    std::optional<std::uint32_t> find_node(std::uint64_t id) const {
        const auto it = std::lower_bound(nodes.begin(), nodes.end(), id);
        if (it == nodes.end() || *it != id) return std::nullopt;
        return static_cast<std::uint32_t>(it - nodes.begin());
    }

    const task_entry* task(std::uint32_t n) const { return task_of[n] < 0 ? nullptr : &tasks[static_cast<std::size_t>(task_of[n])]; }

    // A task's args (empty unless details or geometry were read).
    const std::vector<task_arg>& args(const task_entry& t) const {
        static const std::vector<task_arg> none;
        return t.args_at == task_entry::no_args ? none : doc.task_args[t.args_at];
    }

    // (meta is empty in a lean graph: finish_graph_lean)
    task_kind kind(std::uint32_t n) const {
        if (const task_entry* t = task(n)) return t->has_kernel() ? task_kind::submit : task_kind::dummy;
        if (n >= meta.size()) return task_kind::alloc;
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
        if (!pair_creator.empty()) return pair_creator[e];  // a lean graph (finish_graph_lean)
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
            const task_entry& pred = g.tasks[it->second];
            if (pred.args_at == task_entry::no_args) continue;
            bool known = false;
            std::vector<task_arg*> unassigned;
            for (task_arg& a : g.doc.task_args[pred.args_at]) {
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

    // Tasks and tensors: a repeated id keeps its last entry (dict assignment),
    // in the place of its first. Compacted in place: a second copy of the
    // tasks was the peak of `dfx deps` at 10^7 tasks.
    {
        std::deque<task_entry>& tasks = g.doc.tasks;
        id_index pos = id_index::over([&](auto&& add) {
            for (const task_entry& t : tasks) add(t.id);
        });
        std::size_t kept = 0;
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            const auto [at, inserted] = pos.emplace(tasks[i].id, static_cast<std::uint32_t>(kept));
            if (!inserted) tasks[at] = std::move(tasks[i]);
            else if (kept++ != i) tasks[kept - 1] = std::move(tasks[i]);
        }
        tasks.erase(tasks.begin() + static_cast<std::ptrdiff_t>(kept), tasks.end());
        g.tasks = std::move(tasks);
        tasks = {};
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

namespace detail {

// A kernel task's func name (§3.3): the distinct names of its kernel ids,
// joined by " + ".
inline std::string kernel_func_name(const name_map& names, const std::array<std::int64_t, 3>& slots) {
    std::vector<std::string> active;
    for (std::int64_t id : slots) {
        if (id < 0) continue;
        std::string name = names.name_or_fallback(id);
        if (std::find(active.begin(), active.end(), name) == active.end()) active.push_back(std::move(name));
    }
    std::string out;
    for (std::size_t k = 0; k < active.size(); ++k) out += (k ? " + " : "") + active[k];
    return out;
}

// Nodes: every edge endpoint, plus every task with metadata (§3.3: a row in
// the sidecar, or a valid kernel id). Collected once each through a hash
// index, then sorted. `sidecar_ids(add)` calls add(id) for each sidecar task.
template <class SidecarIds>
void collect_nodes(deps_graph& g, SidecarIds&& sidecar_ids) {
    // Over the tasks' ids, which most nodes are (an id outside them goes to
    // the index's hashed part, which grows; sized for both, it doubled).
    id_index seen = id_index::over([&](auto&& add_id) {
        for (const task_entry& t : g.tasks) add_id(t.id);
    });
    auto add = [&](std::uint64_t id) {
        if (seen.emplace(id, 0).second) g.nodes.push_back(id);
    };
    for (const edge_key& k : g.doc.edges) {
        add(k.pred);
        add(k.succ);
    }
    sidecar_ids(add);
    for (const task_entry& t : g.tasks)
        if (t.has_kernel()) add(t.id);
    std::sort(g.nodes.begin(), g.nodes.end());
    g.nodes.shrink_to_fit();
}

// Node id -> node index.
inline id_index node_index(const std::vector<std::uint64_t>& nodes) {
    id_index node_of = id_index::over([&](auto&& add) {
        for (std::uint64_t id : nodes) add(id);
    });
    for (std::size_t n = 0; n < nodes.size(); ++n) node_of.insert(nodes[n], static_cast<std::uint32_t>(n));
    return node_of;
}

// Links each task to its node (task_of; a task with no kernel, no sidecar
// row and no edge has none) and calls kernel_task(task, node) for each task
// with a kernel.
template <class KernelTask>
void link_tasks(deps_graph& g, const id_index& node_of, KernelTask&& kernel_task) {
    g.task_of.assign(g.nodes.size(), -1);
    for (std::size_t i = 0; i < g.tasks.size(); ++i) {
        const task_entry& t = g.tasks[i];
        const std::uint32_t n = node_of.find(t.id);
        if (n == id_index::npos) continue;
        g.task_of[n] = static_cast<std::int32_t>(i);
        if (t.has_kernel()) kernel_task(t, n);
    }
}

// Unique pairs with their rows, sorted by (pred, succ), rows in file order:
// radix-sort the rows by succ node, then stably by pred node. `lean`: keep
// no rows, only each pair's row count (row_begin) and whether one of them
// is a creator row (pair_creator), and free the document's rows first.
inline void pair_edges(deps_graph& g, const id_index& node_of, bool lean) {
    const std::size_t n_rows = g.doc.edges.size();
    std::vector<std::uint32_t> pred(n_rows), succ(n_rows), order(n_rows);
    std::vector<bool> creator;
    if (lean) creator.resize(n_rows);
    std::size_t r = 0;
    for (const edge_key& k : g.doc.edges) {
        pred[r] = node_of.find(k.pred);
        succ[r] = node_of.find(k.succ);
        if (lean) creator[r] = k.source == edge_source::creator;
        order[r] = static_cast<std::uint32_t>(r);
        ++r;
    }
    if (lean) g.doc.edges = {};
    std::vector<std::uint32_t> rows = stable_sort_by(stable_sort_by(order, succ, g.nodes.size()), pred, g.nodes.size());
    order = {};
    auto starts_pair = [&](std::size_t i) {
        return i == 0 || pred[rows[i]] != pred[rows[i - 1]] || succ[rows[i]] != succ[rows[i - 1]];
    };
    std::size_t pairs = 0;
    for (std::size_t i = 0; i < n_rows; ++i) pairs += starts_pair(i);
    g.edges.reserve(pairs);
    g.row_begin.reserve(pairs + 1);
    if (lean) g.pair_creator.assign(pairs, false);
    for (std::size_t i = 0; i < n_rows; ++i) {
        if (starts_pair(i)) {
            g.edges.emplace_back(pred[rows[i]], succ[rows[i]]);
            g.row_begin.push_back(static_cast<std::uint32_t>(i));
        }
        if (lean && creator[rows[i]]) g.pair_creator[g.edges.size() - 1] = true;
    }
    g.row_begin.push_back(static_cast<std::uint32_t>(n_rows));
    if (!lean) g.rows = std::move(rows);
}

}  // namespace detail

// Joins a started graph with its metadata. `sidecar` may be null (no sidecar).
inline void finish_graph(deps_graph& g, const name_map& names, const sidecar_tasks* sidecar) {
    detail::collect_nodes(g, [&](auto&& add) {
        if (sidecar)
            for (const auto& entry : *sidecar) add(entry.first);
    });
    id_index node_of = detail::node_index(g.nodes);

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
    detail::link_tasks(g, node_of, [&](const task_entry& t, std::uint32_t n) {
        node_meta& m = g.meta[n];
        m.present = true;
        if (!m.func_id) m.func_id = *std::find_if(t.slots.begin(), t.slots.end(), [](std::int64_t s) { return s >= 0; });
        m.has_slots = true;
        m.slots = t.slots;
        if (names.nonempty && m.func_name.empty()) m.func_name = detail::kernel_func_name(names, t.slots);
        if (m.core_type.empty()) {
            const bool aic = t.slots[0] >= 0;
            const bool aiv = t.slots[1] >= 0 || t.slots[2] >= 0;
            m.core_type = aic && aiv ? "mix" : aic ? "aic" : "aiv";
        }
    });
    g.meta_nonempty = std::any_of(g.meta.begin(), g.meta.end(), [](const node_meta& m) { return m.present; });
    g.any_func_name = std::any_of(g.meta.begin(), g.meta.end(), [](const node_meta& m) { return !m.func_name.empty(); });

    detail::pair_edges(g, node_of, /*lean=*/false);
    g.fmt = task_formatter(g.nodes);
    detail::backfill_output_tensor_ids(g);
}

// finish_graph for the text view, which reads no per-node metadata (144
// bytes a node), no sidecar but its task ids, and no annotation row but
// their count and sources: g.meta and g.rows are left empty and the
// document's rows freed (its annotated_edges and the `reduced` modes read
// row_begin and pair_creator); meta_nonempty and any_func_name say what
// the metadata would have said, a node's kernel ids are its task's. Not
// for the dataflow modes or the HTML view (the rows' details).
inline void finish_graph_lean(deps_graph& g, const name_map& names, const std::vector<std::uint64_t>* sidecar_ids) {
    detail::collect_nodes(g, [&](auto&& add) {
        if (sidecar_ids)
            for (std::uint64_t id : *sidecar_ids) add(id);
    });
    id_index node_of = detail::node_index(g.nodes);

    const std::string* sidecar_name = names.nonempty ? names.find(-1) : nullptr;
    g.meta_nonempty = sidecar_ids && !sidecar_ids->empty();
    g.any_func_name = g.meta_nonempty && sidecar_name && !sidecar_name->empty();
    detail::link_tasks(g, node_of, [&](const task_entry& t, std::uint32_t) {
        g.meta_nonempty = true;
        if (!g.any_func_name && names.nonempty) g.any_func_name = !detail::kernel_func_name(names, t.slots).empty();
    });

    detail::pair_edges(g, node_of, /*lean=*/true);
    g.fmt = task_formatter(g.nodes);
}

// Joins the document with its metadata. `sidecar` may be null (no sidecar).
inline deps_graph build_graph(deps_document doc, const name_map& names, const sidecar_tasks* sidecar) {
    deps_graph g = start_graph(std::move(doc));
    finish_graph(g, names, sidecar);
    return g;
}

}  // namespace dfx::convert::deps
