// critical_path: `dfx critical-path` (dep-gen.md §4): the critical path of each
// run directory that holds chip_swimlane_records.json (or l2_perf_records.json),
// deps.json and a name_map*.json.
//
//   static CPM     the longest duration-weighted path through the
//                  happens-before graph: the dependency-limited floor.
//   observed path  walked back from the last task to finish through whichever
//                  predecessor (data dependency or previous task on the same
//                  core) released it last; its compute and stall segments
//                  tile the makespan exactly.
//
// Outputs per directory: a Markdown report beside the records file, and,
// when a merged_swimlane*.json is there, CPM_static.json / CPM_observed.json:
// copies of that trace whose Worker View bars off the path are renamed ·(tY).
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dfx/io/json_string.hpp"
#include "dfx/convert/common/id_index.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/json_object_stream.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/common/py_json.hpp"
#include "dfx/convert/deps/critical_path_inputs.hpp"
#include "dfx/convert/deps/deps_reader.hpp"
#include "dfx/convert/deps/name_map.hpp"
#include "dfx/convert/swimlane/labels.hpp"
#include "dfx/convert/swimlane/records_reader.hpp"
#include "dfx/schema/artefact_names.hpp"
#include "dfx/schema/converter_outputs.hpp"

namespace dfx::convert::deps {

struct cp_segment {
    std::uint64_t task;
    std::string name;
    std::int64_t dur, compute, stall;
    std::string kind;  // data-wait / core-wait / front-gap
};

struct cp_result {
    std::string label;
    std::int64_t freq = 0;
    std::int64_t makespan = 0;
    std::int64_t cpm_len = 0;
    std::vector<std::uint64_t> cpm_path;
    std::vector<cp_segment> segments;
    std::int64_t compute_total = 0, stall_total = 0;
    std::vector<std::pair<std::string, std::int64_t>> stall_by_kind;  // first-seen order
    std::size_t ntasks = 0, kept_edges = 0;
};

namespace detail {

// Strips an optional trailing block index and/or _aic/_aiv: gate_0_aic -> gate.
inline std::string kernel_family(std::string name) {
    auto ends_with = [&](std::string_view s) {
        return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
    };
    if (ends_with("_aic") || ends_with("_aiv")) name.resize(name.size() - 4);
    std::size_t i = name.size();
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
    if (i < name.size() && i > 0 && name[i - 1] == '_') name.resize(i - 1);
    return name;
}

inline double to_us(std::int64_t ticks, std::int64_t freq) { return static_cast<double>(ticks) / static_cast<double>(freq) * 1e6; }
inline double pct(std::int64_t part, std::int64_t whole) {
    return whole ? static_cast<double>(part) / static_cast<double>(whole) * 100 : 0.0;
}

}  // namespace detail

// Analyses one run directory. Throws input_error on bad input.
inline cp_result analyze_critical_path(const std::filesystem::path& dir, const std::filesystem::path& records,
                                       const std::filesystem::path& name_map_path, std::string label, std::int64_t tol,
                                       bool lenient = false) {
    constexpr std::uint32_t none = id_index::npos;
    cp_result r;
    r.label = std::move(label);
    detail::cp_records rec = detail::read_cp_records(records.string(), lenient);
    r.freq = rec.freq;
    deps_load_options load;
    load.lenient = lenient;
    detail::cp_deps_sink deps(rec, tol);
    read_deps((dir / schema::deps_file).string(), deps, load);
    name_map names = load_name_map(name_map_path.string(), lenient);
    const auto n = static_cast<std::uint32_t>(rec.id.size());
    const std::vector<std::int64_t>& start = rec.start;
    const std::vector<std::int64_t>& end = rec.end;

    // Happens-before edges: p finished (within tol) before s started, and started strictly earlier.
    const detail::cp_lists hb_pred = detail::happens_before(rec, deps.hb);
    r.kept_edges = hb_pred.items.size();

    // Same-core predecessor: the task holding the running maximum end on the
    // core, cores in ascending order, each core's slices by (start, end, task id).
    std::vector<std::uint32_t> prev_task(n, none);  // per task: its same-core predecessor
    std::vector<std::int64_t> prev_end(n, 0);       // ... and that one's end
    {
        std::vector<detail::cp_slice>& sl = rec.slices;
        std::sort(sl.begin(), sl.end(), [&](const detail::cp_slice& a, const detail::cp_slice& b) {
            return std::tie(a.core, a.start, a.end, rec.id[a.task]) < std::tie(b.core, b.start, b.end, rec.id[b.task]);
        });
        for (std::size_t i = 0; i < sl.size();) {
            std::uint32_t best_task = none;
            std::int64_t best_end = INT64_MIN;
            for (const std::uint32_t core = sl[i].core; i < sl.size() && sl[i].core == core; ++i) {
                const detail::cp_slice& s = sl[i];
                if (best_task != none && best_task != s.task && best_end <= s.start + tol && s.start == start[s.task]) {
                    if (prev_task[s.task] == none || best_end > prev_end[s.task]) {
                        prev_task[s.task] = best_task;
                        prev_end[s.task] = best_end;
                    }
                }
                if (s.end > best_end) {
                    best_end = s.end;
                    best_task = s.task;
                }
            }
        }
        std::vector<detail::cp_slice>().swap(sl);
    }

    // Topological order (Kahn) over the happens-before edges; successors in
    // the order the tasks were first seen.
    std::vector<std::uint32_t> topo;
    {
        detail::cp_lists succ;
        succ.begin.assign(n + 1, 0);
        std::vector<std::uint32_t> indeg(n, 0);
        for (std::uint32_t s = 0; s < n; ++s)
            for (const std::uint32_t* p = hb_pred.first(s); p != hb_pred.last(s); ++p) {
                ++succ.begin[*p + 1];
                ++indeg[s];
            }
        for (std::uint32_t t = 0; t < n; ++t) succ.begin[t + 1] += succ.begin[t];
        succ.items.resize(hb_pred.items.size());
        std::vector<std::uint32_t> fill(succ.begin.begin(), succ.begin.end() - 1);
        for (std::uint32_t s = 0; s < n; ++s)
            for (const std::uint32_t* p = hb_pred.first(s); p != hb_pred.last(s); ++p) succ.items[fill[*p]++] = s;
        std::vector<std::uint32_t>().swap(fill);
        topo.reserve(n);
        for (std::uint32_t t = 0; t < n; ++t)
            if (indeg[t] == 0) topo.push_back(t);
        for (std::size_t h = 0; h < topo.size(); ++h)
            for (const std::uint32_t* v = succ.first(topo[h]); v != succ.last(topo[h]); ++v)
                if (--indeg[*v] == 0) topo.push_back(*v);
    }
    if (topo.size() != n)
        throw input_error(fmt::format("{}: happens-before graph is cyclic ({}/{})", dir.string(), topo.size(), n));

    // Static CPM.
    {
        std::vector<std::int64_t> finish(n, 0);
        std::vector<std::uint32_t> choice(n, none);
        for (const std::uint32_t v : topo) {
            std::int64_t best_f = 0;
            for (const std::uint32_t* p = hb_pred.first(v); p != hb_pred.last(v); ++p)
                if (finish[*p] > best_f) {
                    best_f = finish[*p];
                    choice[v] = *p;
                }
            finish[v] = best_f + (end[v] - start[v]);
        }
        std::uint32_t sink = topo.front();
        for (const std::uint32_t t : topo)  // the first task, in topological order, with the maximum finish
            if (finish[t] > finish[sink]) sink = t;
        for (std::uint32_t v = sink; v != none; v = choice[v]) r.cpm_path.push_back(rec.id[v]);
        std::reverse(r.cpm_path.begin(), r.cpm_path.end());
        r.cpm_len = finish[sink];
    }

    // Observed path, walked backwards from the first task with the maximum end.
    std::uint32_t last = 0;
    for (std::uint32_t t = 0; t < n; ++t)
        if (end[t] > end[last]) last = t;
    std::vector<std::pair<std::uint32_t, std::string>> walk;
    std::vector<bool> visited(n, false);
    for (std::uint32_t v = last; v != none && !visited[v];) {
        visited[v] = true;
        std::optional<std::tuple<std::int64_t, std::uint64_t, std::string>> best;
        std::uint32_t best_task = none;
        auto consider = [&](std::int64_t e, std::uint32_t p, const char* kind) {
            std::tuple<std::int64_t, std::uint64_t, std::string> c{e, rec.id[p], kind};
            if (!best || c > *best) {
                best = c;
                best_task = p;
            }
        };
        for (const std::uint32_t* p = hb_pred.first(v); p != hb_pred.last(v); ++p)
            if (end[*p] <= start[v] + tol && start[*p] < start[v]) consider(end[*p], *p, "data-wait");
        if (const std::uint32_t pt = prev_task[v]; pt != none)
            if (prev_end[v] <= start[v] + tol && start[pt] < start[v]) consider(prev_end[v], pt, "core-wait");
        if (!best) {
            walk.emplace_back(v, "front-gap");
            break;
        }
        walk.emplace_back(v, std::get<2>(*best));
        v = best_task;
    }
    std::reverse(walk.begin(), walk.end());

    // The names of the path's tasks: of each id's last task entry (a dict's last assignment wins).
    id_index on_path;
    std::vector<std::int64_t> kernel_of;  // per path task: its first active kernel id, -1 none
    std::vector<bool> listed;             // ... and whether deps.json lists it
    for (const auto& step : walk)
        if (on_path.emplace(rec.id[step.first], static_cast<std::uint32_t>(kernel_of.size())).second) {
            kernel_of.push_back(-1);
            listed.push_back(false);
        }
    for (const auto& [id, kernel] : deps.kernels)
        if (const std::uint32_t i = on_path.find(id); i != id_index::npos) {
            kernel_of[i] = kernel;
            listed[i] = true;
        }
    auto name_of = [&](std::uint64_t t) -> std::string {
        const std::uint32_t i = on_path.find(t);
        if (!listed[i] || kernel_of[i] < 0) return "unknown";
        const std::string* name = names.find(kernel_of[i]);
        return name ? *name : "cid" + std::to_string(kernel_of[i]);
    };

    // Tile [t0, end of the last task] into compute and stall.
    const std::int64_t t0 = *std::min_element(start.begin(), start.end());
    const std::int64_t t1 = *std::max_element(end.begin(), end.end());
    r.makespan = t1 - t0;
    std::int64_t frontier = t0;
    for (const auto& step : walk) {
        const std::uint32_t t = step.first;
        const std::string& kind = step.second;  // (not a structured binding: lambdas capture it)
        const std::int64_t s = start[t], e = end[t];
        const std::int64_t gap = std::max<std::int64_t>(0, s - frontier);
        const std::int64_t eff = std::max<std::int64_t>(0, e - std::max(s, frontier));
        r.segments.push_back({rec.id[t], name_of(rec.id[t]), e - s, eff, gap, kind});
        auto it = std::find_if(r.stall_by_kind.begin(), r.stall_by_kind.end(), [&](const auto& kv) { return kv.first == kind; });
        if (it == r.stall_by_kind.end()) r.stall_by_kind.emplace_back(kind, gap);
        else it->second += gap;
        r.compute_total += eff;
        r.stall_total += gap;
        frontier = std::max(frontier, e);
    }
    r.ntasks = n;
    return r;
}

// The Markdown report of a set of results.
inline std::string render_cp_report(const std::vector<cp_result>& results, std::size_t top) {
    using detail::pct;
    using detail::to_us;
    std::string o;
    auto w = [&](const std::string& s) { o += s + "\n"; };
    w("# Critical-path report (chip swimlane)\n");
    w("Generated by `dfx critical-path`. Times are device wall-clock; percentages are of each rank's makespan.\n");
    w("- **Static CPM path**: dependency-limited latency floor (unlimited cores).");
    w("- **Observed path**: the as-executed critical path; its per-task compute + the runtime-scheduling stall "
      "before each task tile the makespan exactly.");
    w("- **stall kinds**: `data-wait` = waiting on an upstream producer; `core-wait` = waiting for the assigned "
      "core to be freed (resource serialization); `front-gap` = launch/dispatch delay before the first task.\n");
    for (const cp_result& r : results) {
        const std::int64_t ms = r.makespan;
        w(fmt::format("\n## Rank `{}`\n", r.label));
        w(fmt::format("- tasks: {} | happens-before edges: {}", r.ntasks, r.kept_edges));
        w(fmt::format("- **makespan**: {:.3f} ms", to_us(ms, r.freq) / 1e3));
        w(fmt::format("- **static CPM path**: {:.3f} ms ({:.1f}% of makespan) over {} tasks", to_us(r.cpm_len, r.freq) / 1e3,
                      pct(r.cpm_len, ms), r.cpm_path.size()));
        w(fmt::format("- **observed critical path**: {} tasks", r.segments.size()));
        w(fmt::format("  - compute: {:.3f} ms ({:.1f}%)", to_us(r.compute_total, r.freq) / 1e3, pct(r.compute_total, ms)));
        w(fmt::format("  - stall (runtime scheduling): {:.3f} ms ({:.1f}%)", to_us(r.stall_total, r.freq) / 1e3,
                      pct(r.stall_total, ms)));
        auto kinds = r.stall_by_kind;
        std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
        for (const auto& [kind, val] : kinds)
            if (val) w(fmt::format("    - {}: {:.3f} ms ({:.1f}%)", kind, to_us(val, r.freq) / 1e3, pct(val, ms)));
        const std::int64_t check = r.compute_total + r.stall_total;
        w(fmt::format("  - tiling check: compute+stall = {} ticks vs makespan {} ticks ({})", check, ms,
                      check == ms ? std::string("exact") : fmt::format("diff {}", check - ms)));

        // Kernel families on the observed path, by compute (ties: first seen).
        std::vector<std::string> fam_order;
        std::map<std::string, std::tuple<std::int64_t, std::int64_t, std::size_t>> fam;  // compute, stall, count
        for (const cp_segment& s : r.segments) {
            const std::string f = detail::kernel_family(s.name);
            if (!fam.count(f)) fam_order.push_back(f);
            auto& [c, st, n] = fam[f];
            c += s.compute;
            st += s.stall;
            ++n;
        }
        std::stable_sort(fam_order.begin(), fam_order.end(),
                         [&](const std::string& a, const std::string& b) { return std::get<0>(fam[a]) > std::get<0>(fam[b]); });
        w("\n### Time on the observed critical path, by kernel family\n");
        w("| kernel family | compute ms | % makespan | stall ms | # on path |");
        w("|---|---:|---:|---:|---:|");
        for (std::size_t i = 0; i < fam_order.size() && i < top; ++i) {
            const auto& [c, st, n] = fam[fam_order[i]];
            w(fmt::format("| {} | {:.3f} | {:.1f}% | {:.3f} | {} |", fam_order[i], to_us(c, r.freq) / 1e3, pct(c, ms),
                          to_us(st, r.freq) / 1e3, n));
        }
        w(fmt::format("\n### Observed critical path \u2014 all {} tasks\n", r.segments.size()));
        w("| # | kernel | task \u00B5s | compute \u00B5s (%mk) | stall \u00B5s (%mk) | stall kind |");
        w("|---:|---|---:|---:|---:|---|");
        for (std::size_t i = 0; i < r.segments.size(); ++i) {
            const cp_segment& s = r.segments[i];
            w(fmt::format("| {} | {} | {:.1f} | {:.1f} ({:.2f}%) | {:.1f} ({:.2f}%) | {} |", i, s.name, to_us(s.dur, r.freq),
                          to_us(s.compute, r.freq), pct(s.compute, ms), to_us(s.stall, r.freq), pct(s.stall, ms),
                          s.stall ? s.kind : ""));
        }
    }
    o += "\n";
    return o;
}

// One summary line per result, as printed on stdout.
inline std::string render_cp_summary(const cp_result& r) {
    using detail::pct;
    using detail::to_us;
    auto kinds = r.stall_by_kind;
    std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string detail_s;
    for (const auto& [k, v] : kinds)
        if (v) detail_s += (detail_s.empty() ? "" : ", ") + fmt::format("{} {:.1f}%", k, pct(v, r.makespan));
    return fmt::format("[{}] makespan={:.3f}ms  CPM={:.2f}ms({:.0f}%)  compute={:.1f}%  stall={:.1f}% ({})", r.label,
                       to_us(r.makespan, r.freq) / 1e3, to_us(r.cpm_len, r.freq) / 1e3, pct(r.cpm_len, r.makespan),
                       pct(r.compute_total, r.makespan), pct(r.stall_total, r.makespan), detail_s);
}


// ---- Perfetto critical-path traces ---------------------------------------------

namespace detail {

// args.taskId of a Worker View bar (ph "X", pid 4), as text; nullopt otherwise.
inline std::optional<std::string> worker_task_id(simdjson::ondemand::object ev) {
    using simdjson::ondemand::json_type;
    std::optional<std::string> ph, task;
    std::optional<std::int64_t> pid;
    for (auto member : ev) {
        const std::string_view key = member.unescaped_key();
        simdjson::ondemand::value v = member.value();
        if (key == "ph") ph = string_or_none(v);
        else if (key == "pid" && v.type() == json_type::number) pid = py_int(v);
        else if (key == "args" && v.type() == json_type::object) {
            simdjson::ondemand::value id;
            simdjson::ondemand::object args = v.get_object();
            if (args.find_field_unordered("taskId").get(id) == simdjson::SUCCESS && id.type() != json_type::null) {
                if (id.type() == json_type::string) task = std::string(std::string_view(id.get_string()));
                else if (const auto n = py_int_u64(id)) task = std::to_string(*n);
            }
        }
    }
    if (ph == "X" && pid == 4 && task) return task;
    return std::nullopt;
}

// ·(tY), or ·(rXtY) on ring X >= 1: the anonymous name of a bar off the path.
inline std::string anonymous_task_name(const std::string& task_id) {
    std::uint64_t id = 0;
    for (char c : task_id) id = id * 10 + static_cast<std::uint64_t>(c - '0');
    return swimlane::anonymous_task_label(id);
}

// Walks a merged trace (an object with traceEvents, or a bare array of
// events), calling the sink in document order:
//   object_begin() / object_end()       around a top-level object
//   member(key, raw_json)                 every other top-level member
//   events_begin() / event(ev) / events_end()   the event list
template <class Sink>
void walk_trace(const std::string& path, Sink& sink) {
    struct handler final : json_member_handler {
        Sink& sink;
        std::string path;
        bool object = false, found = false;
        handler(Sink& s, std::string p) : sink(s), path(std::move(p)) {}
        member_use use(std::string_view key) override {
            if (key.empty() && !object && !found) {  // a bare array of events
                found = true;
                sink.events_begin();
                return member_use::elements;
            }
            if (!object) {
                object = true;
                sink.object_begin();
            }
            if (key == "traceEvents") {
                found = true;
                sink.member(key, "");  // not {}: a null data() would reach memcpy (undefined even for 0 bytes)
                sink.events_begin();
                return member_use::elements;
            }
            return member_use::value;
        }
        void value(std::string_view key, simdjson::padded_string_view json) override {
            if (key == "traceEvents" || key.empty())
                throw input_error(path + ": merged swimlane JSON must contain a traceEvents list");
            sink.member(key, std::string_view(json));
        }
        void element(std::string_view, std::size_t index, simdjson::padded_string_view json) override {
            if (std::string_view(json).front() != '{')
                throw input_error(path + ": merged swimlane JSON must contain a traceEvents list of objects");
            try {  // simdjson validates what the stream did not (UTF-8) and throws its own error
                sink.event(json);
            } catch (const simdjson::simdjson_error& e) {
                throw input_error(fmt::format("{}: traceEvents[{}]: {}", path, index, e.what()));
            }
        }
        void array_end(std::string_view key, std::size_t) override {
            if (key == "traceEvents" || key.empty()) sink.events_end();
        }
    } h(sink, path);
    json_object_stream(path, /*allow_top_array=*/true).run(h);
    if (!h.found) throw input_error(path + ": merged swimlane JSON must contain a traceEvents list");
    if (h.object) sink.object_end();
}

}  // namespace detail

// Writes <dir>/CPM_static.json and <dir>/CPM_observed.json from the merged
// trace; returns their paths. Throws input_error when the trace is invalid
// or lacks a critical task (then neither file is written).
inline std::vector<std::string> write_cpm_traces(const std::string& merged, const std::string& dir, const cp_result& r) {
    std::unordered_set<std::string> on_static, on_observed;
    for (std::uint64_t t : r.cpm_path) on_static.insert(std::to_string(t));
    for (const cp_segment& s : r.segments) on_observed.insert(std::to_string(s.task));

    simdjson::ondemand::parser parser;
    // Pass 1: which tasks have a Worker View bar.
    struct collect {
        simdjson::ondemand::parser& parser;
        std::unordered_set<std::string> visible;
        void object_begin() {}
        void object_end() {}
        void member(std::string_view, std::string_view) {}
        void events_begin() {}
        void events_end() {}
        void event(simdjson::padded_string_view ev) {
            auto doc = parser.iterate(ev);
            if (const auto id = detail::worker_task_id(doc.get_object())) visible.insert(*id);
        }
    } pass1{parser, {}};
    detail::walk_trace(merged, pass1);
    const std::unordered_set<std::string>& visible = pass1.visible;
    std::vector<std::string> missing;
    for (const auto* set : {&on_static, &on_observed})
        for (const std::string& t : *set)
            if (!visible.count(t) && std::find(missing.begin(), missing.end(), t) == missing.end()) missing.push_back(t);
    if (!missing.empty()) {
        std::sort(missing.begin(), missing.end());
        std::string sample;
        for (std::size_t i = 0; i < missing.size() && i < 5; ++i) sample += (i ? ", " : "") + missing[i];
        throw input_error(fmt::format("merged Worker View is missing {} critical task(s): {}", missing.size(), sample));
    }

    // Pass 2: both copies at once, renaming the bars off each path.
    const std::string static_path = dir + "/" + std::string(schema::cpm_static_file),
                      observed_path = dir + "/" + std::string(schema::cpm_observed_file);
    json_file_writer out_static(static_path), out_observed(observed_path);
    struct copy {
        simdjson::ondemand::parser& parser;
        json_file_writer& a;
        json_file_writer& b;
        const std::unordered_set<std::string>& on_a;
        const std::unordered_set<std::string>& on_b;
        bool first_member = true, first_event = true, object = false;

        void both(std::string_view t) {
            a.append(t);
            b.append(t);
        }
        void object_begin() {
            object = true;
            both("{");
        }
        void object_end() { both("\n}\n"); }
        void member(std::string_view key, std::string_view raw) {
            both(first_member ? "\n  " : ",\n  ");
            first_member = false;
            std::string quoted;
            io::append_json_string(quoted, key, io::json_string_style::utf8);
            both(quoted + ": ");
            both(raw);  // empty for traceEvents: the events follow
        }
        void events_begin() { both("["); }
        void events_end() { both(first_event ? "]" : "\n  ]"); }
        void event(simdjson::padded_string_view ev) {
            both(first_event ? "\n  " : ",\n  ");
            first_event = false;
            auto doc = parser.iterate(ev);
            const auto id = detail::worker_task_id(doc.get_object());
            write(a, on_a, id, ev);
            write(b, on_b, id, ev);
            a.maybe_flush();
            b.maybe_flush();
        }
        void write(json_file_writer& out, const std::unordered_set<std::string>& on_path,
                   const std::optional<std::string>& id, simdjson::padded_string_view ev) {
            if (!id || on_path.count(*id)) {
                out.append(std::string_view(ev));
                return;
            }
            // The event with its name replaced; every other member verbatim.
            auto doc = parser.iterate(ev);
            bool first = true, named = false;
            out.append("{");
            for (auto member : doc.get_object()) {
                const std::string key(std::string_view(member.unescaped_key()));
                simdjson::ondemand::value v = member.value();
                out.append(first ? "" : ", ");
                first = false;
                io::append_json_string(out, key, io::json_string_style::utf8);
                out.append(": ");
                if (key == "name") {
                    io::append_json_string(out, detail::anonymous_task_name(*id), io::json_string_style::utf8);
                    named = true;
                } else {
                    out.append(std::string_view(simdjson::to_json_string(v)));
                }
            }
            if (!named) {
                out.append(first ? "\"name\": " : ", \"name\": ");
                io::append_json_string(out, detail::anonymous_task_name(*id), io::json_string_style::utf8);
            }
            out.append("}");
        }
    } pass2{parser, out_static, out_observed, on_static, on_observed};
    detail::walk_trace(merged, pass2);
    if (!pass2.object) pass2.both("\n");  // a bare array: end the file with a newline
    out_static.commit();
    out_observed.commit();
    return {static_path, observed_path};
}

}  // namespace dfx::convert::deps
