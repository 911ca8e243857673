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
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dfx/io/json_string.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/json_object_stream.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/common/py_json.hpp"
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

struct cp_slice {
    std::int64_t core, start, end;
    std::uint64_t task;
};

// clock_freq_hz and the AICore slices of a records file, read by the
// swimlane's records_reader: the one reader of that file, so critical-path
// checks what swimlane checks (integer, non-negative cycle counts, UTF-8, the
// whole grammar, no repeated top-level key).
inline std::pair<std::int64_t, std::vector<cp_slice>> read_cp_records(const std::string& path, bool lenient = false) {
    const swimlane::records_file rf = swimlane::records_reader(path).lenient(lenient).read();
    if (!rf.level || *rf.level < 1 || *rf.level > 4)
        throw input_error(path + ": chip_swimlane_level: expected 1, 2, 3 or 4" + (rf.level ? ", found " + to_decimal(*rf.level) : ": missing"));
    if (rf.meta.clock_freq_hz <= 0 || rf.meta.clock_freq_hz > INT64_MAX)
        throw input_error(path + ": metadata.clock_freq_hz missing or not positive");
    std::vector<cp_slice> slices;
    slices.reserve(rf.aicore.size());
    for (const swimlane::aicore_row& r : rf.aicore)
        slices.push_back({static_cast<std::int64_t>(r.core), static_cast<std::int64_t>(r.start),
                          static_cast<std::int64_t>(r.end), r.token});
    if (slices.empty()) throw input_error(path + ": no aicore_tasks records (empty or failed profiling run?)");
    return {static_cast<std::int64_t>(rf.meta.clock_freq_hz), std::move(slices)};
}

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
    cp_result r;
    r.label = std::move(label);
    auto [freq, slices] = detail::read_cp_records(records.string(), lenient);
    r.freq = freq;
    deps_load_options load;
    load.lenient = lenient;
    const deps_document deps = read_deps((dir / schema::deps_file).string(), load);
    name_map names = load_name_map(name_map_path.string(), lenient);

    // Per task: first start, last end, slices.
    std::unordered_map<std::uint64_t, std::pair<std::int64_t, std::int64_t>> span;
    std::vector<std::uint64_t> order_seen;  // first-seen order, the reference's dict order
    for (const detail::cp_slice& s : slices) {
        auto [it, inserted] = span.try_emplace(s.task, s.start, s.end);
        if (inserted) order_seen.push_back(s.task);
        it->second.first = std::min(it->second.first, s.start);
        it->second.second = std::max(it->second.second, s.end);
    }
    std::unordered_map<std::uint64_t, const task_entry*> tinfo;
    for (const task_entry& t : deps.tasks) tinfo[t.id] = &t;
    auto name_of = [&](std::uint64_t t) -> std::string {
        const auto it = tinfo.find(t);
        if (it == tinfo.end()) return "unknown";
        for (std::int64_t k : it->second->slots)
            if (k >= 0) {
                const std::string* n = names.find(k);
                return n ? *n : "cid" + std::to_string(k);
            }
        return "unknown";
    };
    auto start = [&](std::uint64_t t) { return span.at(t).first; };
    auto end = [&](std::uint64_t t) { return span.at(t).second; };

    // Happens-before edges: p finished (within tol) before s started, and started strictly earlier.
    std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> hb_pred;
    std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
    for (const edge_key& e : deps.edges) {
        const std::uint64_t p = e.pred, s = e.succ;
        if (p == s || !span.count(p) || !span.count(s) || !seen.emplace(p, s).second) continue;
        if (end(p) <= start(s) + tol && start(p) < start(s)) {
            hb_pred[s].push_back(p);
            ++r.kept_edges;
        }
    }

    // Same-core predecessor: the task holding the running maximum end on the core.
    std::map<std::int64_t, std::vector<std::tuple<std::int64_t, std::int64_t, std::uint64_t>>> by_core;
    for (const detail::cp_slice& s : slices) by_core[s.core].emplace_back(s.start, s.end, s.task);
    std::unordered_map<std::uint64_t, std::pair<std::uint64_t, std::int64_t>> core_prev;
    for (auto& [core, sl] : by_core) {
        std::sort(sl.begin(), sl.end());
        std::optional<std::uint64_t> best_task;
        std::int64_t best_end = INT64_MIN;
        for (const auto& [st, en, t] : sl) {
            if (best_task && *best_task != t && best_end <= st + tol && st == start(t)) {
                const auto cur = core_prev.find(t);
                if (cur == core_prev.end() || best_end > cur->second.second) core_prev[t] = {*best_task, best_end};
            }
            if (en > best_end) {
                best_end = en;
                best_task = t;
            }
        }
    }

    // Topological order (Kahn) over the happens-before edges.
    std::unordered_map<std::uint64_t, std::size_t> indeg;
    std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> succ;
    for (std::uint64_t t : order_seen) indeg[t] = 0;
    for (std::uint64_t s : order_seen)
        if (const auto it = hb_pred.find(s); it != hb_pred.end())
            for (std::uint64_t p : it->second) {
                succ[p].push_back(s);
                ++indeg[s];
            }
    std::vector<std::uint64_t> topo;
    for (std::uint64_t t : order_seen)
        if (indeg[t] == 0) topo.push_back(t);
    for (std::size_t h = 0; h < topo.size(); ++h)
        for (std::uint64_t v : succ[topo[h]])
            if (--indeg[v] == 0) topo.push_back(v);
    if (topo.size() != order_seen.size())
        throw input_error(fmt::format("{}: happens-before graph is cyclic ({}/{})", dir.string(), topo.size(), order_seen.size()));

    // Static CPM.
    std::unordered_map<std::uint64_t, std::int64_t> finish;
    std::unordered_map<std::uint64_t, std::optional<std::uint64_t>> choice;
    for (std::uint64_t v : topo) {
        std::optional<std::uint64_t> best_p;
        std::int64_t best_f = 0;
        if (const auto it = hb_pred.find(v); it != hb_pred.end())
            for (std::uint64_t p : it->second)
                if (finish[p] > best_f) {
                    best_f = finish[p];
                    best_p = p;
                }
        finish[v] = best_f + (end(v) - start(v));
        choice[v] = best_p;
    }
    std::uint64_t sink = topo.front();
    for (std::uint64_t t : topo)  // the first task, in topological order, with the maximum finish
        if (finish[t] > finish[sink]) sink = t;
    for (std::optional<std::uint64_t> v = sink; v; v = choice[*v]) r.cpm_path.push_back(*v);
    std::reverse(r.cpm_path.begin(), r.cpm_path.end());
    r.cpm_len = finish[sink];

    // Observed path, walked backwards from the first task with the maximum end.
    std::uint64_t last = order_seen.front();
    for (std::uint64_t t : order_seen)
        if (end(t) > end(last)) last = t;
    std::vector<std::pair<std::uint64_t, std::string>> walk;
    std::unordered_set<std::uint64_t> visited;
    for (std::optional<std::uint64_t> v = last; v && visited.insert(*v).second;) {
        std::optional<std::tuple<std::int64_t, std::uint64_t, std::string>> best;
        auto consider = [&](std::int64_t e, std::uint64_t p, const char* kind) {
            std::tuple<std::int64_t, std::uint64_t, std::string> c{e, p, kind};
            if (!best || c > *best) best = c;
        };
        if (const auto it = hb_pred.find(*v); it != hb_pred.end())
            for (std::uint64_t p : it->second)
                if (end(p) <= start(*v) + tol && start(p) < start(*v)) consider(end(p), p, "data-wait");
        if (const auto cp = core_prev.find(*v); cp != core_prev.end()) {
            const auto [pt, pend] = cp->second;
            if (pend <= start(*v) + tol && span.count(pt) && start(pt) < start(*v)) consider(pend, pt, "core-wait");
        }
        if (!best) {
            walk.emplace_back(*v, "front-gap");
            break;
        }
        walk.emplace_back(*v, std::get<2>(*best));
        v = std::get<1>(*best);
    }
    std::reverse(walk.begin(), walk.end());

    // Tile [t0, end of the last task] into compute and stall.
    std::int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (const auto& [t, se] : span) {
        t0 = std::min(t0, se.first);
        t1 = std::max(t1, se.second);
    }
    r.makespan = t1 - t0;
    std::int64_t frontier = t0;
    for (const auto& step : walk) {
        const std::uint64_t t = step.first;
        const std::string& kind = step.second;  // (not a structured binding: lambdas capture it)
        const std::int64_t s = start(t), e = end(t);
        const std::int64_t gap = std::max<std::int64_t>(0, s - frontier);
        const std::int64_t eff = std::max<std::int64_t>(0, e - std::max(s, frontier));
        r.segments.push_back({t, name_of(t), e - s, eff, gap, kind});
        auto it = std::find_if(r.stall_by_kind.begin(), r.stall_by_kind.end(), [&](const auto& kv) { return kv.first == kind; });
        if (it == r.stall_by_kind.end()) r.stall_by_kind.emplace_back(kind, gap);
        else it->second += gap;
        r.compute_total += eff;
        r.stall_total += gap;
        frontier = std::max(frontier, e);
    }
    r.ntasks = span.size();
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
