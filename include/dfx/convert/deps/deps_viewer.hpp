// deps_viewer: `dfx deps` / `deps_viewer` end to end (dep-gen.md §3): find the
// input, load it with its name map and perf sidecar, apply the edge mode and
// write the text or HTML view next to the input (or where -o says).
//
// Messages follow the reference tool: progress on stdout ("Transitive
// reduction: ...", "Wrote ..."), warnings on stderr. Failures the reference
// leaves as tracebacks are one `error:` line here.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/io_progress.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/common/py_path.hpp"
#include "dfx/convert/deps/deps_graph.hpp"
#include "dfx/convert/deps/deps_html.hpp"
#include "dfx/convert/deps/deps_reader.hpp"
#include "dfx/convert/deps/deps_text.hpp"
#include "dfx/convert/deps/deps_text_streamed.hpp"
#include "dfx/convert/deps/edge_modes.hpp"
#include "dfx/convert/deps/name_map.hpp"
#include "dfx/convert/deps/perf_sidecar.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx::convert::deps {

struct deps_viewer_options {
    std::optional<std::string> input;   // default: the newest deps.json under ./outputs/
    std::optional<std::string> output;  // default: <input dir>/<stem>.txt|.html; "-": stdout
    bool html = false;
    edge_mode mode = edge_mode::full;
    std::string engine = "dot";
    std::string direction = "LR";
    std::optional<std::string> func_names;  // default: auto-discovered name_map*.json
    bool show_tensor_info = false;
    std::size_t max_nodes = html_options{}.max_nodes;  // HTML: above it, the critical path and its neighbours
    // The reference's reading: unusable deps.json entries dropped, a corrupt
    // name map or records sidecar a warning (deps_reader.hpp, name_map.hpp).
    bool lenient = false;
    // The memory the text view of the full graph sorts in (deps_text_streamed.hpp):
    // two thirds for deps.json's sorters, a third for the sidecar's, a 24th
    // for each of its three files before they go to disk.
    std::size_t sort_memory_bytes = std::size_t{192} << 20;
    std::FILE* console = stdout;  // progress lines ("Transitive reduction: ...", "Wrote ...")
};

namespace detail {

// The newest deps.json under ./outputs/ (recursively), by modification time.
inline std::optional<std::string> find_latest_deps_json() {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory("outputs", ec)) return std::nullopt;
    std::optional<fs::path> best;
    fs::file_time_type best_time{};
    for (fs::recursive_directory_iterator it("outputs", ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().filename() != schema::deps_file) continue;
        std::error_code tec;
        const auto t = fs::last_write_time(it->path(), tec);
        if (!tec && (!best || t >= best_time)) {
            best = it->path();
            best_time = t;
        }
    }
    if (!best) return std::nullopt;
    return best->string();
}

}  // namespace detail

// Runs the viewer; returns the process exit code. Bad input throws input_error.
inline int run_deps_viewer(const deps_viewer_options& opt) {
    // The streamed text view's memory, whatever the number of tasks.
    const std::size_t deps_budget = opt.sort_memory_bytes / 3 * 2, sidecar_budget = opt.sort_memory_bytes / 3,
                      file_memory = opt.sort_memory_bytes / 24;
    namespace fs = std::filesystem;
    std::optional<std::string> input = opt.input;
    if (!input) input = detail::find_latest_deps_json();
    if (!input) throw input_error("No deps.json given and no candidate found under ./outputs/.");
    const std::string input_path = py_path(*input);
    std::error_code ec;
    if (!fs::exists(input_path, ec)) throw input_error(input_path + " not found.");
    const std::string dir = py_path_parent(input_path);

    const bool dataflow = opt.mode == edge_mode::reduced_dataflow || opt.mode == edge_mode::omitted_dataflow;
    deps_load_options load;
    load.details = (opt.html && opt.show_tensor_info) || dataflow;
    load.geometry = dataflow;
    load.lenient = opt.lenient;
    // The swimlane records beside deps.json (core types per task) are read on
    // another thread while deps.json is, one core each; a failure is an
    // error, or leniently a warning, given below in the reference's order. Alone, deps.json gets
    // both cores.
    // The text view (but for the dataflow modes, which prove edges from the
    // rows' details) reads no per-node metadata and of the sidecar only its
    // task ids: a lean graph (finish_graph_lean), and only the ids read.
    const bool lean = !opt.html && !dataflow;
    const std::string sidecar_path = py_path_join(dir, schema::records_file);
    std::future<sidecar_tasks> sidecar_read;
    std::future<std::vector<std::uint64_t>> sidecar_ids_read;
    std::future<sidecar_task_ids> sidecar_sorted_read;
    // The full graph as text is written from sorted files on disk, in
    // bounded memory (deps_text_streamed.hpp): the graph is never held.
    const bool streamed = lean && opt.mode == edge_mode::full;
    // (a symlink that does not resolve is a sidecar that is there and broken)
    if (fs::exists(sidecar_path, ec) || fs::is_symlink(sidecar_path, ec)) {
        if (streamed)
            sidecar_sorted_read = std::async(std::launch::async, [&sidecar_path, lenient = opt.lenient, sidecar_budget] {
                return read_perf_sidecar_ids_sorted(sidecar_path, lenient, sidecar_budget);
            });
        else if (lean)
            sidecar_ids_read = std::async(std::launch::async, [&sidecar_path, lenient = opt.lenient] {
                return read_perf_sidecar_ids(sidecar_path, lenient);
            });
        else
            sidecar_read = std::async(std::launch::async, [&sidecar_path, lenient = opt.lenient, html = opt.html] {
                return read_perf_sidecar(sidecar_path, lenient, /*run_times=*/html);  // the page's panel shows them
            });
    }
    const bool sidecar_there = sidecar_read.valid() || sidecar_ids_read.valid() || sidecar_sorted_read.valid();
    const reader_threads threads = sidecar_there ? reader_threads::one_thread : reader_threads::pipelined;
    auto warn_dropped = [&](std::size_t dropped) {
        if (dropped > 0)
            std::fprintf(stderr, "warning: %s: ignored %zu edge entr%s that %s not an object or %s no usable pred/succ\n",
                         input_path.c_str(), dropped, dropped == 1 ? "y" : "ies", dropped == 1 ? "is" : "are",
                         dropped == 1 ? "has" : "have");
    };
    auto load_names = [&] {
        name_map names;
        if (opt.func_names) names = load_name_map(*opt.func_names, opt.lenient);
        else if (const auto found = discover_name_map(dir == "." ? fs::path() : fs::path(dir)))
            names = load_name_map(found->string(), opt.lenient);
        return names;
    };
    // A sidecar that fails to read is an error, or leniently a warning.
    auto get_sidecar = [&](auto& future) {
        std::optional<std::decay_t<decltype(future.get())>> got;
        if (!future.valid()) return got;
        try {
            got = future.get();
        } catch (const spill_error&) {
            throw;  // (no disk room is no broken sidecar)
        } catch (const input_error& e) {
            if (!opt.lenient) throw;
            std::fprintf(stderr, "Warning: couldn't read %s\n", e.what());
        }
        return got;
    };
    auto output_path = [&](const std::string& stem) {
        return opt.output ? (*opt.output == "-" ? *opt.output : py_path(*opt.output))
                          : py_path_join(dir, stem + (opt.html ? ".html" : ".txt"));
    };

    if (streamed) {
        text_spill spill(deps_budget);
        warn_dropped(read_deps(input_path, spill, load, threads).dropped_edges);
        const name_map names = load_names();
        std::optional<sidecar_task_ids> sidecar = get_sidecar(sidecar_sorted_read);
        std::optional<text_view_files> view_files;
        {
            const io_progress::stage_scope stage("sorting the graph");  // (at 10^7 tasks 1-2 s of no bytes moving)
            view_files.emplace(spill, names, sidecar ? &*sidecar : nullptr, file_memory);
        }
        text_view_files& view = *view_files;
        sidecar.reset();
        const std::string out_path = output_path("deps_viewer");
        json_file_writer out(out_path);
        write_deps_text(out, view.summary, view.fmt, input_path, view);
        out.commit();
        fmt::print(opt.console, "Wrote {} ({} tasks, {} unique edges, {} annotated edges, format=text)\n", out_path,
                   view.summary.tasks, view.summary.unique_edges, view.summary.annotated_edges);
        return 0;
    }

    deps_document doc = read_deps(input_path, load, threads);
    warn_dropped(doc.dropped_edges);
    const name_map names = load_names();

    deps_graph g = start_graph(std::move(doc));  // while the sidecar may still be read
    if (lean) {
        const std::optional<std::vector<std::uint64_t>> sidecar_ids = get_sidecar(sidecar_ids_read);
        finish_graph_lean(g, names, sidecar_ids ? &*sidecar_ids : nullptr);
    } else {
        const std::optional<sidecar_tasks> sidecar = get_sidecar(sidecar_read);
        finish_graph(g, names, sidecar ? &*sidecar : nullptr);
    }
    const edge_selection sel = select_edges(g, opt.mode);

    if (sel.cycle_fallback) {
        std::fprintf(stderr,
                     "warning: dependency graph has a cycle; transitive reduction skipped, emitting full graph "
                     "(--edge-mode %s ignored)\n",
                     to_string(opt.mode));
    } else if (sel.reduction_applied()) {
        const bool reduced = opt.mode == edge_mode::reduced || opt.mode == edge_mode::reduced_dataflow;
        const std::size_t total = g.edges.size(), removed = sel.removed.size();
        if (reduced)
            fmt::print(opt.console, "{}: removed {} redundant edge(s) of {} ({} kept)\n",
                       dataflow ? "Dataflow-verified transitive reduction" : "Transitive reduction", removed, total,
                       sel.kept_count);
        else
            fmt::print(opt.console, "{}: showing {} redundant edge(s) of {}\n",
                       dataflow ? "Dataflow-verified redundant edges only" : "Redundant edges only", removed, total);
        for (std::size_t e : sel.removed)
            fmt::print(opt.console, "  - {} -> {}\n", g.fmt(g.nodes[g.edges[e].first]), g.fmt(g.nodes[g.edges[e].second]));
        if (opt.html)
            fmt::print(opt.console, "HTML layout preserves all {} edge(s); {} unselected edge(s) are colored as background\n", total,
                       total - sel.shown_count);
    }

    const std::string out_path = output_path(sel.stem());
    json_file_writer out(out_path);
    if (!opt.html) {
        write_deps_text(out, g, sel, input_path);
        out.commit();
        fmt::print(opt.console, "Wrote {} ({} tasks, {} unique edges, {} annotated edges, format=text)\n", out_path,
                   g.nodes.size(), sel.shown_count, annotated_rows(g, sel.shown));
        return 0;
    }
    html_options h;
    h.engine = opt.engine;
    h.direction = opt.direction;
    h.show_tensor_info = opt.show_tensor_info;
    h.max_nodes = opt.max_nodes;
    const graph_focus focus = write_deps_html(out, g, sel, h);
    out.commit();
    if (focus.applied)
        std::fprintf(stderr, "warning: %zu tasks are more than --max-nodes %zu: the page draws %s (--max-nodes 0 draws all; "
                             "--format text lists every edge)\n",
                     g.nodes.size(), opt.max_nodes, focus_summary(focus, "\u00b5s").c_str());
    if (sel.shown_count != g.edges.size())  // some edges are drawn as background
        fmt::print(opt.console, "Wrote {} ({} nodes, {} visible edges, {} layout edges, engine={}, format=html)\n", out_path,
                   g.nodes.size(), sel.shown_count, g.edges.size(), opt.engine);
    else
        fmt::print(opt.console, "Wrote {} ({} nodes, {} edges, engine={}, format=html)\n", out_path, g.nodes.size(),
                   g.edges.size(), opt.engine);
    return 0;
}

}  // namespace dfx::convert::deps
