// What dfx-sim prints after a run: the summary (tasks, wall time, stalls,
// kernel check, every collector's records and drops) and one render hint
// per artefact with the exact `dfx ...` command. Nothing is rendered here:
// Graphviz on a large graph can take minutes, so that is the user's call.
// Also the chip's own task graph as JSON (--sim-graph), which the tests
// compare with deps.json.
#pragma once

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <string>

#include "dfx/output/artefact_file.hpp"
#include "dfx/output/text_writer.hpp"
#include "dfx/transport/accounting.hpp"
#include "run.hpp"

namespace sim {

// A path as a POSIX shell word (Python's shlex.quote).
inline std::string shell_quote(const std::string& s) {
    if (!s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./-_") ==
                          std::string::npos)
        return s;
    std::string out = "'";
    for (const char c : s) out += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
    return out + "'";
}

inline double ms(std::chrono::nanoseconds d) { return std::chrono::duration<double, std::milli>(d).count(); }

inline void print_summary(std::FILE* out, const run_result& r, const char* indent = "") {
    std::fprintf(out, "%stasks run: %" PRIu64 " of %" PRIu64 " submitted (%" PRIu64 " dispatches to cores, %" PRIu64
                      " retired); dependencies: %" PRIu64 " inferred, %" PRIu64 " wired to live producers\n",
                 indent, r.tasks_completed, r.tasks_submitted, r.dispatches, r.tasks_retired, r.edges_inferred,
                 r.edges_wired);
    std::fprintf(out, "%swall time: %.2f ms\n", indent, ms(r.wall));
    // Completed tasks over the wall time from the first thread started to the
    // last joined: the end-to-end rate the collectors' overhead is judged by.
    const double seconds = std::chrono::duration<double>(r.wall).count();
    std::fprintf(out, "%sthroughput: %.0f tasks/s (wall)\n", indent, seconds > 0 ? double(r.tasks_completed) / seconds : 0.0);
    bool any_stall = false;
    for (int ring = 0; ring < ring_count; ++ring)
        for (int what = 0; what < 3; ++what) {
            const stall_stats& s = r.stalls[static_cast<std::size_t>(ring)][static_cast<std::size_t>(what)];
            if (s.count == 0) continue;
            std::fprintf(out, "%sorchestrator stalled on ring %d %s: %" PRIu64 " submits waited, %.2f ms in total\n",
                         indent, ring, resource_knob(static_cast<resource>(what)), s.count, ms(s.time));
            any_stall = true;
        }
    if (!any_stall) std::fprintf(out, "%sorchestrator stalls: none (every ring had room)\n", indent);
    if (!r.fatal.empty()) {  // an error, so on stderr (after the report so far)
        std::fflush(out);
        std::fprintf(stderr, "%sFATAL: %s\n", indent, r.fatal.c_str());
    }
    if (r.check)
        std::fprintf(out, "%skernel check: %s (max error %.3g)%s%s\n", indent, r.check->ok ? "OK" : "MISMATCH",
                     r.check->max_error, r.check->ok ? "" : ": ", r.check->detail.c_str());
    else
        std::fprintf(out, "%skernel check: not run (the run ended early)\n", indent);
    for (const auto& a : r.accounting) {
        std::fprintf(out, "%s", indent);
        dfx::write_accounting(out, a.title.c_str(), a.reports);
    }
    if (r.dump) {
        std::fprintf(out, "%s", indent);
        dfx::write_args_dump_report(out, *r.dump);
    }
    if (r.pmu) {
        std::fprintf(out, "%s", indent);
        dfx::write_pmu_report(out, *r.pmu);
    }
    if (!r.deps_refused.empty()) std::fprintf(out, "%s%s\n", indent, r.deps_refused.c_str());
}

struct hint_options {
    bool deps = true;  // the deps hint (not printed for a deps.json the user did not ask for)
};

inline void print_hints(std::FILE* out, const run_result& r, hint_options options = {}) {
    if (!r.records.empty()) {
        const std::string p = shell_quote(r.records.string());
        std::fprintf(out, "chip_swimlane_records.json written to: %s\n  convert it to a Perfetto trace with:\n    dfx swimlane %s\n",
                     p.c_str(), p.c_str());
    }
    if (!r.deps.empty() && options.deps) {
        const std::string p = shell_quote(r.deps.string());
        std::fprintf(out,
                     "deps.json written to: %s\n  render it with:\n    dfx deps %s\n"
                     "    # large graphs: the scalable force-directed engine\n"
                     "    dfx deps %s --format html --engine sfdp\n"
                     "    # engines: dot | sfdp | fdp | neato | circo | twopi\n",
                     p.c_str(), p.c_str(), p.c_str());
    }
    if (!r.scope_stats.empty()) {
        const std::string p = shell_quote(r.scope_stats.string());
        std::fprintf(out, "scope_stats written to: %s\n  render an HTML report with:\n    dfx scope-stats %s\n", p.c_str(),
                     p.c_str());
    }
    if (!r.args_dump.empty()) {
        const std::string p = shell_quote(r.args_dump.string());
        std::fprintf(out, "args_dump written to: %s\n  inspect it with:\n    dfx dump %s\n", p.c_str(), p.c_str());
    }
    if (!r.pmu_csv.empty()) {
        const std::string p = shell_quote(r.pmu_csv.string());
        std::fprintf(out, "pmu.csv written to: %s\n  summarize it with:\n    dfx pmu %s\n", p.c_str(), p.c_str());
    }
    if (!r.name_map.empty())
        std::fprintf(out, "kernel names: %s (dfx swimlane and dfx deps pick it up beside the artefacts)\n",
                     shell_quote(r.name_map.string()).c_str());
}

// {"workload":..., "tasks_run":N, "dispatches":N, "tasks":[...], "edges":[...]}
// with task ids as decimal strings, as deps.json writes them; a task's
// arg_types are dfx::arg_type codes, dumps its level-1 marks.
inline void write_sim_graph(const std::filesystem::path& path, const std::string& workload, const run_result& r) {
    dfx::write_artefact(path, [&](std::FILE* f) {
        dfx::text_writer out(f);
        out.raw("{\"workload\":").string(workload);
        out.raw(",\"tasks_run\":").number(r.tasks_completed).raw(",\"dispatches\":").number(r.dispatches);
        out.raw(",\"tasks\":[");
        for (std::size_t i = 0; i < r.graph_tasks.size(); ++i) {
            const graph_task& t = r.graph_tasks[i];
            out.raw(i ? ",{" : "{").raw("\"task_id\":\"").number(t.id).raw("\",\"func_id\":");
            out.number(static_cast<std::int32_t>(t.kernel)).raw(",\"block_num\":").number(t.block_num);
            out.raw(",\"arg_types\":[");
            for (std::size_t a = 0; a < t.arg_types.size(); ++a)
                out.raw(a ? "," : "").number(static_cast<int>(t.arg_types[a]));
            out.raw("],\"scalars\":").number(t.scalars).raw(",\"dumps\":[");
            for (std::size_t a = 0; a < t.dumps.size(); ++a) out.raw(a ? "," : "").number(t.dumps[a]);
            out.raw("]}");
        }
        out.raw("],\"edges\":[");
        for (std::size_t i = 0; i < r.graph_edges.size(); ++i) {
            const graph_edge& e = r.graph_edges[i];
            out.raw(i ? ",{" : "{").raw("\"pred\":\"").number(e.pred).raw("\",\"succ\":\"").number(e.succ);
            out.raw("\",\"source\":").string(edge_source_name(e.source)).raw(",\"arg\":").number(e.arg).raw("}");
        }
        out.raw("]}\n");
        return out.flush();
    });
}

}  // namespace sim
