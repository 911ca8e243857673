// deps_dot: the Graphviz DOT source of the HTML view (dep-gen.md §3.4, §3.7).
//
// Every edge takes part in the layout; edges the edge mode does not select
// are drawn in the page background colour (class "hidden-edge"), so changing
// the mode never moves a node. Two node styles:
//   plain  shape and colour by core type, label "[marker ]<task> · <name> ↓in ↑out"
//   rich   (--show-tensor-info) an HTML-like table: input-arg rows, the header,
//          output-arg rows; edges then run from the producer's out_<idx> port
//          to the consumer's in_<arg> port, one per annotation row.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/html_escape.hpp"
#include "dfx/convert/deps/deps_graph.hpp"
#include "dfx/convert/deps/deps_text.hpp"
#include "dfx/convert/deps/edge_modes.hpp"
#include "dfx/convert/deps/task_id.hpp"

namespace dfx::convert::deps {

inline std::string dot_escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

// The reference's markers (§3.4), drawn with glyphs the common fonts have
// (DejaVu Sans, the Graphviz default on Linux), not the reference's emoji
// U+1F525 / U+2B50, which without an emoji font render as empty boxes:
//   ⚡ (U+26A1) where the reference draws 🔥: an alloc or early-dispatch task;
//   ★ (U+2605) where it draws ⭐: all of a task's predecessors are ⚡ and at
//     least one of them is not an alloc.
// The page's legend explains both.
inline constexpr const char* fire_marker = "\u26A1";
inline constexpr const char* star_marker = "\u2605";

inline std::vector<std::string> task_markers(const deps_graph& g, const fan_lists& fan) {
    const auto n = static_cast<std::uint32_t>(g.nodes.size());
    std::vector<bool> fire(n);
    for (std::uint32_t v = 0; v < n; ++v) {
        const task_entry* t = g.task(v);
        fire[v] = g.kind(v) == task_kind::alloc || (t && t->early_dispatch);
    }
    std::vector<std::string> markers(n);
    for (std::uint32_t v = 0; v < n; ++v) {
        bool all_fire = fan.fanin(v) > 0, any_real = false;
        for (std::uint32_t i = fan.pred_begin[v]; i < fan.pred_begin[v + 1]; ++i) {
            all_fire = all_fire && fire[fan.preds[i]];
            any_real = any_real || g.kind(fan.preds[i]) != task_kind::alloc;
        }
        if (fire[v]) markers[v] += fire_marker;
        if (all_fire && any_real) markers[v] += star_marker;
    }
    return markers;
}

inline std::string fan_suffix(const fan_lists& fan, std::uint32_t n) {
    return fmt::format(" \u2193{} \u2191{}", fan.fanin(n), fan.fanout(n));
}

namespace detail {

struct node_style {
    const char* shape;
    const char* style;
    const char* fill;
};

inline node_style style_for(const deps_graph& g, std::uint32_t n) {
    static constexpr node_style aic{"box", "rounded,filled", "#66A3FF"};
    static constexpr node_style aiv{"ellipse", "filled", "#FFB366"};
    static constexpr node_style mix{"diamond", "filled", "#66CC99"};
    static constexpr node_style alloc{"note", "filled,dashed", "#EAEAEA"};
    static constexpr node_style other{"box", "rounded,filled", "#E0E0E0"};
    const task_kind k = g.kind(n);
    if (k == task_kind::alloc) return alloc;
    if (k != task_kind::submit || !g.meta[n].present) return other;
    const std::string& ct = g.meta[n].core_type;
    return ct == "aic" ? aic : ct == "aiv" ? aiv : ct == "mix" ? mix : ct == "alloc" ? alloc : other;
}

// "[marker ]<task>[ · alloc|dummy|<func name>]"
inline std::string plain_label(const deps_graph& g, std::uint32_t n, const std::string& marker) {
    std::string s = marker.empty() ? "" : marker + " ";
    s += g.fmt(g.nodes[n]);
    const task_kind k = g.kind(n);
    if (k == task_kind::alloc) s += " \u00B7 alloc";
    else if (k == task_kind::dummy) s += " \u00B7 dummy";
    else if (!g.meta[n].func_name.empty()) s += " \u00B7 " + g.meta[n].func_name;
    return s;
}

inline std::string dims(const field<std::vector<std::int64_t>>& f) {
    if (!f.value) return "[]";
    std::string s = "[";
    // Appended piece by piece: g++ 12 at -O3 warns (-Wrestrict, a false
    // positive) on `"," + std::to_string(...)`.
    for (std::size_t i = 0; i < f.value->size(); ++i) {
        if (i) s += ',';
        s += std::to_string((*f.value)[i]);
    }
    return s + "]";
}

inline std::string tensor_name(const deps_graph& g, std::uint64_t tid) {
    const auto it = g.tensors.find(tid);
    if (it != g.tensors.end()) return "T" + std::to_string(it->second.ordinal);
    return fmt::format("T?{:04x}", tid & 0xFFFF);
}

inline std::string arg_row(const deps_graph& g, const task_arg& a, bool input) {
    const std::string idx = a.idx ? std::to_string(*a.idx) : "None";
    const std::string type = a.type.empty() ? "?" : a.type;
    const std::string cell = fmt::format(R"(<TD ALIGN="LEFT" PORT="{}_{}" BGCOLOR="{}">)", input ? "in" : "out", idx,
                                         input ? "#EAF2FF" : "#FFF2E5");
    if (!a.tensor_id) return "<TR>" + cell + html_escape(fmt::format("arg{} {} (alloc)", idx, type)) + "</TD></TR>";

    const auto t = g.tensors.find(*a.tensor_id);
    const tensor_entry* tensor = t == g.tensors.end() ? nullptr : &t->second;
    std::optional<std::string> dtype = a.dtype.present ? a.dtype.value : std::nullopt;
    if (!a.dtype.present && tensor) dtype = tensor->dtype;
    field<std::vector<std::int64_t>> shape = a.shape, strides = a.strides;
    std::string offset = a.start_offset.value ? std::to_string(*a.start_offset.value) : "?";
    const bool has_numel = tensor && !tensor->buffer_numel_text.empty();
    if (a.inferred) {  // a back-filled OUTPUT: show the whole buffer
        if (!shape.present && tensor && tensor->buffer_numel.value) shape = {true, std::vector<std::int64_t>{*tensor->buffer_numel.value}};
        if (!a.start_offset.present) offset = "0";
        if (!strides.present && shape.value && !shape.value->empty())
            strides = {true, std::vector<std::int64_t>(shape.value->size(), 1)};
    }
    std::string lower = dtype ? *dtype : "";
    for (char& c : lower)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    const std::string head = fmt::format("arg{} {}{} {}{}", idx, type, a.inferred ? " ?" : "", tensor_name(g, *a.tensor_id),
                                         dtype ? ":" + lower : "");
    const std::string storage = has_numel ? "storage: " + tensor->buffer_numel_text + " elems" : "storage: ?";
    return "<TR>" + cell + html_escape(head) + R"(<BR ALIGN="LEFT"/><FONT POINT-SIZE="9">)" + html_escape(storage) +
           R"(<BR ALIGN="LEFT"/>)" + html_escape("shape: " + dims(shape)) + R"(<BR ALIGN="LEFT"/>)" +
           html_escape("strides: " + dims(strides)) + R"(<BR ALIGN="LEFT"/>)" +
           html_escape("start_offset: " + offset + " (elem)") + R"(<BR ALIGN="LEFT"/></FONT></TD></TR>)";
}

inline std::string rich_label(const deps_graph& g, std::uint32_t n, const task_entry& t, const std::string& marker,
                              const fan_lists& fan) {
    const node_meta& m = g.meta[n];
    const std::string& ct = m.core_type;
    const char* header_bg = ct == "aic" ? "#66A3FF" : ct == "aiv" ? "#FFB366" : ct == "mix" ? "#66CC99"
                          : ct == "alloc" ? "#EAEAEA" : "#D8D8D8";
    std::string ident = g.fmt(g.nodes[n]);
    if (!m.func_name.empty()) ident += " \u00B7 " + m.func_name;
    if (!marker.empty()) ident = marker + " " + ident;
    ident += fan_suffix(fan, n);

    std::string rows;
    for (const task_arg& a : g.args(t))
        if (a.type == "INPUT" || a.type == "INOUT") rows += arg_row(g, a, true);
    rows += fmt::format(R"(<TR><TD ALIGN="CENTER" BGCOLOR="{}"><B>{}</B></TD></TR>)", header_bg, html_escape(ident));
    for (const task_arg& a : g.args(t))
        if (a.type == "INOUT" || a.type == "OUTPUT" || a.type == "OUTPUT_EXISTING") rows += arg_row(g, a, false);
    const char* border = t.block_num > 1 ? R"(BORDER="1" COLOR="#C62828")" : R"(BORDER="0")";
    return fmt::format(R"(<TABLE {} CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">{}</TABLE>)", border, rows);
}

// out_<idx> of the producer's arg that holds `tensor_id`, if any.
inline std::string producer_port(const deps_graph& g, const task_entry* pred, std::optional<std::uint64_t> tensor_id) {
    if (!pred || !tensor_id) return {};
    for (const task_arg& a : g.args(*pred)) {
        if (a.type != "OUTPUT" && a.type != "OUTPUT_EXISTING" && a.type != "INOUT") continue;
        if (a.tensor_id == tensor_id) return ":out_" + (a.idx ? std::to_string(*a.idx) : std::string("None")) + ":e";
    }
    return {};
}

}  // namespace detail

struct dot_options {
    std::string direction = "LR";
    bool show_tensor_info = false;  // rich nodes; needs the graph loaded with details
    // The Graphviz engine: the force-directed ones (neato, sfdp, fdp) get
    // overlap removal, without which their nodes pile on each other.
    std::string engine = "dot";
    // Per node: draw it (edges only between drawn nodes); null: every node.
    const std::vector<bool>* nodes = nullptr;
};

// Whether `engine` places nodes by forces, overlapping them unless told not to.
inline bool force_directed(std::string_view engine) { return engine == "neato" || engine == "sfdp" || engine == "fdp"; }

// `fan` must be over all edges (the layout edges); `sel.shown` picks the
// edges drawn in front.
inline std::string emit_dot(const deps_graph& g, const edge_selection& sel, const fan_lists& fan, const dot_options& opt) {
    const bool rich = opt.show_tensor_info && !g.tasks.empty();
    const std::vector<std::string> markers = task_markers(g, fan);
    std::string out = fmt::format("digraph deps {{\n  rankdir={};\n  concentrate=false;\n"
                                  "  node [fontname=\"Helvetica\", fontsize=10];\n  edge [color=\"#888\"];\n",
                                  opt.direction);
    // prism: Graphviz's proximity-stress overlap removal (it keeps the layout's
    // shape); sep: a few points of air around each node.
    if (force_directed(opt.engine)) out += "  overlap=prism;\n  sep=\"+6\";\n";
    auto drawn = [&](std::uint32_t n) { return !opt.nodes || (*opt.nodes)[n]; };
    const auto n_nodes = static_cast<std::uint32_t>(g.nodes.size());
    for (std::uint32_t n = 0; n < n_nodes; ++n) {
        if (!drawn(n)) continue;
        const std::string id = dot_node_id(g.nodes[n]);
        if (rich && g.task(n)) {
            out += fmt::format("  {} [shape=none, margin=0, label=<{}>];\n", id,
                               detail::rich_label(g, n, *g.task(n), markers[n], fan));
            continue;
        }
        const detail::node_style st = detail::style_for(g, n);
        out += fmt::format("  {} [label=\"{}\", shape={}, style=\"{}\", fillcolor=\"{}\"{}];\n", id,
                           dot_escape(detail::plain_label(g, n, markers[n]) + fan_suffix(fan, n)), st.shape, st.style,
                           st.fill, g.block_num(n) > 1 ? ", color=\"#C62828\", penwidth=1.5" : "");
    }
    static constexpr std::string_view hidden_attrs = R"(class="hidden-edge", color="#eef2f7", fontcolor="#eef2f7")";
    for (std::size_t e = 0; e < g.edges.size(); ++e) {
        if (!drawn(g.edges[e].first) || !drawn(g.edges[e].second)) continue;
        const bool hidden = !sel.shown[e];
        const std::string pred = dot_node_id(g.nodes[g.edges[e].first]);
        const std::string succ = dot_node_id(g.nodes[g.edges[e].second]);
        if (!rich) {
            out += fmt::format("  {} -> {}{};\n", pred, succ, hidden ? fmt::format(" [{}]", hidden_attrs) : "");
            continue;
        }
        const task_entry* producer = g.task(g.edges[e].first);
        const auto [b, en] = g.pair_rows(e);
        for (const std::uint32_t* r = b; r != en; ++r) {
            const edge_detail& d = g.doc.details[*r];
            std::vector<std::string> attrs;
            if (hidden) attrs.emplace_back(hidden_attrs);
            const std::string head = d.arg && *d.arg >= 0 ? fmt::format(":in_{}:w", *d.arg) : "";
            if (g.doc.edges[*r].source == edge_source::explicit_dep && !hidden) {
                attrs.emplace_back("style=\"dashed\"");
                attrs.emplace_back("color=\"#B0B0B0\"");
            }
            if (!d.overlap.empty() && d.overlap != "covered" && !hidden)
                attrs.push_back(fmt::format("label=\"{}\", fontsize=8, fontcolor=\"#C04040\"", html_escape(d.overlap)));
            std::string attr_list;
            for (const std::string& a : attrs) attr_list += (attr_list.empty() ? " [" : ", ") + a;
            if (!attr_list.empty()) attr_list += "]";
            out += fmt::format("  {}{} -> {}{}{};\n", pred, detail::producer_port(g, producer, d.tensor_id), succ, head,
                               attr_list);
        }
    }
    out += "}\n";
    return out;
}

}  // namespace dfx::convert::deps
