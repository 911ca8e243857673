// deps_html: the `deps_viewer --format html` page (dep-gen.md §3.7): the
// Graphviz SVG inlined in one self-contained file (no external resources)
// with pan / zoom, a legend, a HUD and a per-task detail panel.
//
// Keys: f fits the graph to 95 % of the window, r resets to scale 1 at the
// origin, Esc closes the panel. Plain wheel pans, ctrl+wheel (or a trackpad
// pinch) zooms about the cursor, drag pans, click selects a task.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/deps/deps_dot.hpp"
#include "dfx/convert/deps/deps_graph.hpp"
#include "dfx/convert/deps/deps_text.hpp"
#include "dfx/convert/deps/edge_modes.hpp"
#include "dfx/convert/deps/graph_focus.hpp"
#include "dfx/convert/deps/graphviz.hpp"
#include "dfx/convert/deps/task_id.hpp"
#include "dfx/io/json_string.hpp"

namespace dfx::convert::deps {

struct html_options {
    std::string engine = "dot";
    std::string direction = "LR";
    bool show_tensor_info = false;
    // Above this many tasks the page draws the critical path and its
    // neighbours only (graph_focus.hpp); 0 draws every task, as the reference.
    std::size_t max_nodes = 1000;
};

namespace detail {

// A JSON string literal safe inside <script> (io/json_string.hpp).
inline std::string json_quote(std::string_view s) { return io::json_string(s, io::json_string_style::html_script); }

// The name a task is grouped under in the detail panel.
inline std::string name_hint(const deps_graph& g, std::uint32_t n) {
    const task_kind k = g.kind(n);
    if (k == task_kind::alloc) return "alloc";
    if (k == task_kind::dummy) return "dummy";
    const node_meta& m = g.meta[n];
    if (!m.func_name.empty()) return m.func_name;
    if (m.func_id) return "f" + std::to_string(*m.func_id);
    return "unknown";
}

// [[hint, count], ...] by count descending, then hint.
inline std::string hint_counts(const std::vector<std::string>& hints, const std::uint32_t* b, const std::uint32_t* e) {
    std::map<std::string, std::size_t> counts;
    for (const std::uint32_t* p = b; p != e; ++p) ++counts[hints[*p]];
    std::vector<std::pair<std::string, std::size_t>> v(counts.begin(), counts.end());
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& c) { return a.second > c.second; });
    std::string out = "[";
    for (std::size_t i = 0; i < v.size(); ++i) out += fmt::format("{}[{},{}]", i ? "," : "", json_quote(v[i].first), v[i].second);
    return out + "]";
}

// When the task ran (records beside deps.json), as the panel's JSON members.
inline std::string run_time_members(const node_meta& m) {
    if (!m.ran) return {};
    return fmt::format(",\"start_us\":{:.3f},\"duration_us\":{:.3f}", m.ran->start_us, m.ran->duration_us);
}

// `const spmdBlocks` and `const depStats`: keyed by DOT node id, keys sorted;
// only the nodes drawn (`focus`).
inline std::pair<std::string, std::string> page_data(const deps_graph& g, const fan_lists& fan, const graph_focus& focus) {
    const auto n_nodes = static_cast<std::uint32_t>(g.nodes.size());
    std::vector<std::string> hints(n_nodes);
    for (std::uint32_t n = 0; n < n_nodes; ++n) hints[n] = name_hint(g, n);
    std::map<std::string, std::uint32_t> by_id;
    for (std::uint32_t n = 0; n < n_nodes; ++n)
        if (!focus.applied || focus.keep[n]) by_id.emplace(dot_node_id(g.nodes[n]), n);
    std::string spmd = "{", stats = "{";
    for (const auto& [id, n] : by_id) {
        if (const std::int64_t b = g.block_num(n); b > 1) spmd += fmt::format("{}{}:{}", spmd.size() > 1 ? "," : "", json_quote(id), b);
        stats += fmt::format("{}{}:{{\"fanin\":{},\"fanout\":{},\"label\":{},\"name_hint\":{},\"pred_by_hint\":{},\"succ_by_hint\":{}{}}}",
                             stats.size() > 1 ? "," : "", json_quote(id), fan.fanin(n), fan.fanout(n),
                             json_quote(g.fmt(g.nodes[n])), json_quote(hints[n]),
                             hint_counts(hints, fan.preds.data() + fan.pred_begin[n], fan.preds.data() + fan.pred_begin[n + 1]),
                             hint_counts(hints, fan.succs.data() + fan.succ_begin[n], fan.succs.data() + fan.succ_begin[n + 1]),
                             run_time_members(g.meta[n]));
    }
    return {spmd + "}", stats + "}"};
}

// Decodes the XML character references Graphviz writes in attribute values
// (it writes the '-' of "hidden-edge" as "&#45;").
inline std::string xml_unescape(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '&') {
            out += s[i];
            continue;
        }
        const std::size_t semi = s.find(';', i);
        if (semi == std::string_view::npos) {
            out += s.substr(i);
            break;
        }
        const std::string_view ent = s.substr(i + 1, semi - i - 1);
        if (ent == "amp") out += '&';
        else if (ent == "lt") out += '<';
        else if (ent == "gt") out += '>';
        else if (ent == "quot") out += '"';
        else if (ent == "apos") out += '\'';
        else if (!ent.empty() && ent[0] == '#') {
            const bool hex = ent.size() > 1 && (ent[1] == 'x' || ent[1] == 'X');
            const unsigned long cp = std::strtoul(std::string(ent.substr(hex ? 2 : 1)).c_str(), nullptr, hex ? 16 : 10);
            if (cp < 0x80) out += static_cast<char>(cp);  // class names are ASCII
        } else {
            out += s.substr(i, semi - i + 1);
        }
        i = semi;
    }
    return out;
}

// The whitespace-separated tokens of an element's class attribute.
inline std::vector<std::string> class_tokens(std::string_view start_tag) {
    std::vector<std::string> out;
    const std::size_t at = start_tag.find(" class=\"");
    if (at == std::string_view::npos) return out;
    const std::size_t b = at + 8, e = start_tag.find('"', b);
    const std::string v = xml_unescape(start_tag.substr(b, e - b));
    std::size_t i = 0;
    while (i < v.size()) {
        const std::size_t j = v.find(' ', i);
        if (j != i) out.push_back(v.substr(i, j == std::string::npos ? std::string::npos : j - i));
        if (j == std::string::npos) break;
        i = j + 1;
    }
    return out;
}

// End (one past '>') of the element starting at s[b] == '<', which is not a
// comment. Attribute values are quoted, so '>' inside them is skipped.
inline std::size_t element_end(std::string_view s, std::size_t b) {
    int depth = 0;
    std::size_t i = b;
    while (i < s.size()) {
        if (s.compare(i, 4, "<!--") == 0) {
            const std::size_t e = s.find("-->", i);
            i = e == std::string_view::npos ? s.size() : e + 3;
            continue;
        }
        if (s[i] != '<') {
            ++i;
            continue;
        }
        const bool closing = i + 1 < s.size() && s[i + 1] == '/';
        std::size_t j = i + 1;
        char quote = 0;
        for (; j < s.size(); ++j) {
            if (quote) {
                if (s[j] == quote) quote = 0;
            } else if (s[j] == '"' || s[j] == '\'') {
                quote = s[j];
            } else if (s[j] == '>') {
                break;
            }
        }
        const bool self_closing = j > 0 && s[j - 1] == '/';
        i = j + 1;
        if (closing) --depth;
        else if (!self_closing) ++depth;
        if (depth <= 0) return i;
    }
    return s.size();
}

// Moves every edge group of the graph group into two layers inserted before
// the first node: background (hidden) edges, then selected ones, so selected
// edges draw over background edges and nodes draw over both. A comment that
// precedes an element moves with it. Returns the SVG unchanged if its shape
// is not the one Graphviz writes.
inline std::string layer_svg_edges(const std::string& svg) {
    const std::size_t graph_at = svg.find("<g id=\"graph0\" class=\"graph\"");
    if (graph_at == std::string::npos) return svg;
    const std::size_t children = svg.find('>', graph_at) + 1;
    struct child {
        std::string text;
        enum { other, node, edge, hidden_edge } kind;
    };
    std::vector<child> kids;
    std::string pending;  // whitespace and comments before the next element
    std::size_t i = children;
    while (i < svg.size()) {
        if (svg.compare(i, 4, "<!--") == 0) {
            const std::size_t e = svg.find("-->", i);
            if (e == std::string::npos) return svg;
            pending += svg.substr(i, e + 3 - i);
            i = e + 3;
        } else if (svg.compare(i, 2, "</") == 0) {
            break;  // the graph group's own end tag
        } else if (svg[i] == '<') {
            const std::size_t e = element_end(svg, i);
            const std::size_t tag_end = svg.find('>', i);
            const std::vector<std::string> cls = class_tokens(std::string_view(svg).substr(i, tag_end - i));
            auto has = [&](const char* c) { return std::find(cls.begin(), cls.end(), c) != cls.end(); };
            const bool is_g = svg.compare(i, 3, "<g ") == 0;
            auto kind = !is_g ? child::other : has("edge") ? (has("hidden-edge") ? child::hidden_edge : child::edge)
                      : has("node") ? child::node : child::other;
            kids.push_back({pending + svg.substr(i, e - i), kind});
            pending.clear();
            i = e;
        } else {
            pending += svg[i++];
        }
    }
    if (std::none_of(kids.begin(), kids.end(), [](const child& c) { return c.kind == child::hidden_edge; })) return svg;
    std::string hidden = "\n<g class=\"edge-layer hidden-edge-layer\">", visible = "\n<g class=\"edge-layer visible-edge-layer\">";
    std::string body;
    bool layers_placed = false;
    for (const child& c : kids) {
        if (c.kind == child::hidden_edge) hidden += c.text;
        else if (c.kind == child::edge) visible += c.text;
    }
    hidden += "\n</g>";
    visible += "\n</g>";
    for (const child& c : kids) {
        if (c.kind == child::edge || c.kind == child::hidden_edge) continue;
        if (c.kind == child::node && !layers_placed) {
            body += hidden + visible;
            layers_placed = true;
        }
        body += c.text;
    }
    if (!layers_placed) body += hidden + visible;
    return svg.substr(0, children) + body + pending + svg.substr(i);
}

inline constexpr std::string_view page_style = R"CSS(
  html, body { margin: 0; height: 100%; overflow: hidden; background: #eef2f7;
    font: 12px system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #0f172a; }
  .panel { position: fixed; z-index: 10; background: rgba(255,255,255,0.95); border: 1px solid #cbd5e1;
    border-radius: 8px; box-shadow: 0 6px 20px rgba(15,23,42,0.12); }
  #hud { top: 10px; left: 10px; padding: 6px 10px; display: flex; gap: 6px; align-items: center; flex-wrap: wrap;
    max-width: calc(50vw - 30px); }
  #hud b { color: #020617; }
  #hud kbd { font: 11px ui-monospace, Menlo, monospace; background: #f1f5f9; border: 1px solid #cbd5e1;
    border-radius: 4px; padding: 0 4px; }
  #legend { top: 10px; right: 10px; padding: 6px 10px; display: flex; gap: 4px 12px; align-items: center; flex-wrap: wrap;
    max-width: calc(50vw - 30px); }
  #legend span { display: inline-flex; gap: 5px; align-items: center; white-space: nowrap; }
  #detail { display: none; top: 56px; left: 10px; width: min(360px, calc(100vw - 20px)); max-height: calc(100vh - 80px);
    overflow: auto; padding: 10px 12px; }
  #detail.open { display: block; }
  #detail .title { font-weight: 600; font-size: 13px; padding-right: 24px; }
  #detail .sub { color: #64748b; margin: 2px 0 8px; }
  #detail h3 { font-size: 11px; text-transform: uppercase; color: #475569; margin: 10px 0 4px; }
  #detail table { width: 100%; border-collapse: collapse; }
  #detail td { padding: 2px 0; font-family: ui-monospace, Menlo, monospace; }
  #detail td.n { text-align: right; font-weight: 600; }
  #detail .none { color: #94a3b8; }
  #detail button { position: absolute; top: 8px; right: 8px; border: 0; background: #f1f5f9; border-radius: 4px;
    cursor: pointer; }
  #stage { position: fixed; inset: 0; overflow: hidden; cursor: grab; }
  #stage.panning { cursor: grabbing; }
  #stage > svg { transform-origin: 0 0; max-width: none; overflow: visible; }
  #stage .node { cursor: pointer; }
  #stage .node.selected polygon, #stage .node.selected ellipse, #stage .node.selected path {
    stroke: #2563eb !important; stroke-width: 3px !important; }
)CSS";

inline constexpr std::string_view page_legend = R"HTML(<div id="legend" class="panel">
  <span><svg width="20" height="14"><rect x="1" y="2" width="18" height="10" rx="3" fill="#66A3FF" stroke="#333"/></svg>AIC (cube)</span>
  <span><svg width="20" height="14"><ellipse cx="10" cy="7" rx="9" ry="5" fill="#FFB366" stroke="#333"/></svg>AIV (vector)</span>
  <span><svg width="20" height="14"><polygon points="10,1 19,7 10,13 1,7" fill="#66CC99" stroke="#333"/></svg>mix</span>
  <span><svg width="20" height="14"><path d="M2,2 L14,2 L18,6 L18,12 L2,12 Z" fill="#EAEAEA" stroke="#333" stroke-dasharray="2,1"/></svg>alloc</span>
  <span><svg width="36" height="14"><rect x="1" y="2" width="18" height="10" rx="3" fill="none" stroke="#C62828"/><text x="21" y="10" fill="#C62828" font-size="8" font-weight="700">xN</text></svg>SPMD block num</span>
  <span>&#8595;N &#8593;M = pred / succ</span>
  <span title="where the reference draws a fire emoji">&#9889; alloc or early dispatch</span>
  <span title="where the reference draws a star emoji">&#9733; all predecessors &#9889;</span>
</div>
)HTML";

// What the page draws when it is not every task, for the HUD (HTML).
inline std::string focus_note(const graph_focus& f, std::size_t max_nodes) {
    if (!f.applied) return {};
    return fmt::format("<span id=\"focus-note\" title=\"more than --max-nodes {}: dfx deps --max-nodes 0 draws every task; "
                       "--format text lists every edge\"> &#124; drawn: {}</span>",
                       max_nodes, focus_summary(f, "&#181;s"));
}

// The page script. Coordinates: the SVG is drawn at `scale`, translated by
// (tx, ty) through one CSS transform on the <svg> element.
inline constexpr std::string_view page_script = R"JS(
(function () {
  const stage = document.getElementById('stage');
  const svg = stage.querySelector('svg');
  if (!svg) return;
  svg.removeAttribute('width');
  svg.removeAttribute('height');
  const NS = 'http://www.w3.org/2000/svg';

  // Badges "xN" right of every SPMD task (nodes found through one map: a
  // search per badge is quadratic on big graphs).
  const nodeById = new Map([...svg.querySelectorAll('g.node')].map((g) => [g.querySelector('title')?.textContent, g]));
  for (const [id, blocks] of Object.entries(spmdBlocks)) {
    const node = nodeById.get(id);
    if (!node) continue;
    const box = node.getBBox();
    const badge = document.createElementNS(NS, 'text');
    badge.setAttribute('class', 'spmd-badge');
    badge.setAttribute('x', box.x + box.width + 1);
    badge.setAttribute('y', box.y + box.height / 2 - 3);
    badge.setAttribute('fill', '#C62828');
    badge.setAttribute('font-size', '8');
    badge.setAttribute('font-weight', '700');
    badge.textContent = 'x' + blocks;
    const tip = document.createElementNS(NS, 'title');
    tip.textContent = 'SPMD block num: ' + blocks;
    badge.appendChild(tip);
    node.parentNode.appendChild(badge);
  }

  let scale = 1, tx = 0, ty = 0;
  const apply = () => { svg.style.transform = `translate(${tx}px, ${ty}px) scale(${scale})`; };
  const fit = () => {
    // The unscaled on-screen size: what is drawn now, divided by the current scale.
    const box = svg.getBoundingClientRect();
    const w = box.width / scale, h = box.height / scale;
    if (!w || !h) return;
    scale = Math.min(stage.clientWidth / w, stage.clientHeight / h) * 0.95;
    tx = (stage.clientWidth - w * scale) / 2;
    ty = (stage.clientHeight - h * scale) / 2;
    apply();
  };
  const reset = () => { scale = 1; tx = 0; ty = 0; apply(); };
  // On-screen pixels per Graphviz point (labels are 10 pt) at the current view.
  const pxPerPoint = () => svg.getBoundingClientRect().width / (svg.viewBox.baseVal?.width || svg.getBBox().width);
  // The first view: a fit, unless a fit shrinks the labels below what can be
  // read (READABLE px per point: 10 pt labels at about 7 px); then that size,
  // with the critical path's first task (else the first task by id) at the
  // left, half-way down; f still fits the whole graph.
  const READABLE = 0.7;
  let firstView = 'fit';
  const first = () => {
    fit();
    const px = pxPerPoint();
    if (!(px < READABLE)) return;
    scale *= READABLE / px;
    apply();
    const start = nodeById.get(startNode), s = stage.getBoundingClientRect();
    if (start) {
      const r = start.getBoundingClientRect();
      tx += s.left + 40 - r.left;
      ty += s.top + s.height / 2 - (r.top + r.height / 2);
    }
    firstView = 'readable';
    apply();
  };
  window.dfxDeps = { fit, reset, state: () => ({ scale, tx, ty }), firstView: () => firstView, pxPerPoint, readable: READABLE };

  stage.addEventListener('wheel', (e) => {
    e.preventDefault();
    let dx = e.deltaX, dy = e.deltaY;
    if (e.deltaMode === 1) { dx *= 16; dy *= 16; }
    else if (e.deltaMode === 2) { dx *= stage.clientWidth; dy *= stage.clientHeight; }
    if (e.ctrlKey) {  // ctrl+wheel, or a trackpad pinch
      const r = stage.getBoundingClientRect();
      const cx = e.clientX - r.left, cy = e.clientY - r.top;
      const factor = Math.min(1.25, Math.max(0.8, Math.exp(-dy * 0.003)));
      const next = Math.min(20, Math.max(0.02, scale * factor));
      tx = cx - (cx - tx) * (next / scale);
      ty = cy - (cy - ty) * (next / scale);
      scale = next;
    } else {
      tx -= dx;
      ty -= dy;
    }
    apply();
  }, { passive: false });

  let dragging = false, moved = false, lastX = 0, lastY = 0, downX = 0, downY = 0;
  stage.addEventListener('mousedown', (e) => {
    if (e.button !== 0) return;
    dragging = true; moved = false;
    lastX = downX = e.clientX; lastY = downY = e.clientY;
    stage.classList.add('panning');
  });
  window.addEventListener('mousemove', (e) => {
    if (!dragging) return;
    if (Math.abs(e.clientX - downX) > 3 || Math.abs(e.clientY - downY) > 3) moved = true;
    tx += e.clientX - lastX; ty += e.clientY - lastY;
    lastX = e.clientX; lastY = e.clientY;
    apply();
  });
  window.addEventListener('mouseup', () => { dragging = false; stage.classList.remove('panning'); });

  const detail = document.getElementById('detail');
  let selected = null;
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
  const table = (rows) => rows.length
    ? '<table>' + rows.map(([hint, n]) => `<tr><td>${esc(hint)}</td><td class="n">${n}</td></tr>`).join('') + '</table>'
    : '<div class="none">none</div>';
  const close = () => {
    detail.classList.remove('open');
    if (selected) selected.classList.remove('selected');
    selected = null;
  };
  const open = (node) => {
    const id = node.querySelector('title')?.textContent;
    const s = depStats[id];
    if (!s) return;
    if (selected) selected.classList.remove('selected');
    selected = node;
    node.classList.add('selected');
    detail.innerHTML =
      '<button type="button" aria-label="Close">&#215;</button>' +
      `<div class="title">${esc(s.label)} &#183; ${esc(s.name_hint)}</div>` +
      `<div class="sub">&#8595;${s.fanin} predecessors &#183; &#8593;${s.fanout} successors</div>` +
      (s.duration_us === undefined ? '' :
        `<div class="sub ran">ran ${s.duration_us.toFixed(3)} &#181;s, from ${s.start_us.toFixed(3)} &#181;s after the first task started</div>`) +
      `<h3>Predecessors by name_hint (${s.fanin})</h3>` + table(s.pred_by_hint) +
      `<h3>Successors by name_hint (${s.fanout})</h3>` + table(s.succ_by_hint);
    detail.querySelector('button').addEventListener('click', (e) => { e.stopPropagation(); close(); });
    detail.classList.add('open');
  };
  stage.addEventListener('click', (e) => {
    if (moved) return;
    const node = e.target.closest('g.node');
    if (node && svg.contains(node)) open(node); else close();
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'f') fit();
    else if (e.key === 'r') reset();
    else if (e.key === 'Escape') close();
  });
  requestAnimationFrame(first);
})();
)JS";

}  // namespace detail

// Lays the graph out with Graphviz and writes the page to `out` (anything
// with append(std::string_view)). Throws graphviz_error when layout fails.
// Returns which tasks it drew (all of them unless more than opt.max_nodes).
template <class Out>
graph_focus write_deps_html(Out& out, const deps_graph& g, const edge_selection& sel, const html_options& opt) {
    const std::vector<bool> all(g.edges.size(), true);
    const fan_lists fan(g, all);  // labels and the panel count every layout edge
    graph_focus focus = focus_on_critical_path(g, fan, opt.max_nodes);
    dot_options dopt;
    dopt.direction = opt.direction;
    dopt.show_tensor_info = opt.show_tensor_info;
    dopt.engine = opt.engine;
    if (focus.applied) dopt.nodes = &focus.keep;
    std::string svg = render_svg(emit_dot(g, sel, fan, dopt), opt.engine);
    if (const std::size_t at = svg.find("<svg"); at != std::string::npos) svg.erase(0, at);
    if (sel.shown_count != g.edges.size()) svg = detail::layer_svg_edges(svg);
    const auto [spmd, stats] = detail::page_data(g, fan, focus);

    out.append(fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                           "<title>deps.json \u2014 {} nodes, {} edges</title>\n<style>{}</style>\n</head>\n<body>\n",
                           g.nodes.size(), sel.shown_count, detail::page_style));
    out.append(fmt::format("<div id=\"hud\" class=\"panel\"><b>{} nodes</b> &#183; <b>{} edges</b> &#124; "
                           "<kbd>drag</kbd> pan <kbd>scroll</kbd> pan <kbd>ctrl+scroll</kbd> zoom "
                           "<kbd>click</kbd> task <kbd>f</kbd> fit <kbd>r</kbd> reset <kbd>esc</kbd> close{}</div>\n",
                           g.nodes.size(), sel.shown_count, detail::focus_note(focus, opt.max_nodes)));
    out.append(detail::page_legend);
    out.append("<div id=\"detail\" class=\"panel\"></div>\n<div id=\"stage\">\n");
    out.append(svg);
    out.append("\n</div>\n<script>\nconst spmdBlocks = ");
    out.append(spmd);
    out.append(";\nconst startNode = ");
    out.append(g.nodes.empty() ? "null" : detail::json_quote(dot_node_id(g.nodes[focus.applied ? focus.path_start : 0])));
    out.append(";\nconst depStats = ");
    out.append(stats);
    out.append(";");
    out.append(detail::page_script);
    out.append("</script>\n</body>\n</html>\n");
    return focus;
}

}  // namespace dfx::convert::deps
