// sched_overhead_output: `dfx sched-overhead --stats json|csv`, the numbers
// of the six parts sched_overhead.hpp prints, machine-readable. Each number is
// one (part, key, measure, value) record; the measure's name carries its unit
// (_us, _ns, _pct; none: a count).
//
//   part           key       measures
//   run            -         tasks, window_us
//   verdict        -         all_overhead_us/_pct, has_overhead_us/_pct, verdict
//                  engine    overhead_us, overhead_pct            (engine: aic, aiv, mix)
//   switch         engine    cores, min_per_core_us, mean_per_core_us, max_per_core_us,
//                            events, mean_per_event_us, during_overhead_pct, independent_pct
//                  -         bound_lower_us, bound_upper_us
//   head_oh,       -         count, p10_us p25_us p50_us p75_us p90_us p95_us p99_us,
//   tail_oh                  max_us, mean_us, total_us            (absent without tasks)
//   loop           thread    loops, tasks, ns_per_loop, total_us  (absent without phase records)
//                  phase     total_us, share_pct, per_task_us     (complete, async_poll, dispatch, idle)
//                  -         loops, tasks, finishes, avg_loop_ns, fanout_edges, fanout_max,
//                            fanout_avg, fanin_edges, fanin_max, fanin_avg, pop_hit, pop_miss,
//                            pop_hit_rate_pct, avg_tail_oh_us, tail_in_loops
//   critical_path  -         hops, span_us, exec_us, exec_pct, sched_us, sched_pct, other_us
//                            (absent when no path resolves)
//
// JSON: {"<part>": {"<measure>": value, ..., "<key>s": [{"<key>": name, "<measure>": value}]}}
// CSV:  part,key,name,measure,value   (key and name empty for a part's own measures)
//
//   const auto recs = sched_overhead_records(pd, compute_sched_overhead(pd, deps));
//   std::string json = render_sched_overhead_json(recs);
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/csv_table.hpp"
#include "dfx/convert/common/json_value.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"
#include "dfx/convert/swimlane/sched_overhead.hpp"
#include "dfx/io/json_string.hpp"

namespace dfx::convert::swimlane {

struct overhead_measure {
    std::string part, key, name, measure;
    std::string value;    // a JSON number, or the text of a string
    bool text = false;    // value is a string (the verdict)
};

namespace sched_output_detail {

inline std::string number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }

struct recorder {
    std::vector<overhead_measure>& out;
    std::string part, key, name;
    void operator()(const std::string& measure, double v) const { out.push_back({part, key, name, measure, number(v), false}); }
    void count(const std::string& measure, const std::string& digits) const { out.push_back({part, key, name, measure, digits, false}); }
    void text(const std::string& measure, const std::string& s) const { out.push_back({part, key, name, measure, s, true}); }
};

inline void distribution(std::vector<overhead_measure>& out, const char* part, std::vector<double> vals) {
    if (vals.empty()) return;
    std::sort(vals.begin(), vals.end());
    const std::size_t n = vals.size();
    const recorder r{out, part, "", ""};
    r.count("count", std::to_string(n));
    for (const int p : {10, 25, 50, 75, 90, 95, 99}) r(fmt::format("p{}_us", p), vals[std::min(n * static_cast<std::size_t>(p) / 100, n - 1)]);
    double sum = 0.0;
    for (const double v : vals) sum += v;
    r("max_us", vals.back());
    r("mean_us", sum / static_cast<double>(n));
    r("total_us", sum);
}

}  // namespace sched_output_detail

inline std::vector<overhead_measure> sched_overhead_records(const perf_data& pd, const sched_overhead_report& rep) {
    using namespace sched_output_detail;
    using detail::pct;
    std::vector<overhead_measure> out;
    const double window = rep.window.length();
    const recorder run{out, "run", "", ""};
    run.count("tasks", std::to_string(pd.tasks.size()));
    run("window_us", window);

    const overhead_verdict& v = rep.verdict;
    const recorder verdict{out, "verdict", "", ""};
    const double has_pct = pct(v.has_overhead, window);
    verdict("all_overhead_us", v.all_overhead);
    verdict("all_overhead_pct", pct(v.all_overhead, window));
    verdict("has_overhead_us", v.has_overhead);
    verdict("has_overhead_pct", has_pct);
    const overhead_class cls = classify_overhead(has_pct);
    verdict.text("verdict", cls == overhead_class::scheduler_bound               ? "scheduler_bound"
                            : cls == overhead_class::partially_scheduler_limited ? "partially_scheduler_limited"
                                                                                 : "compute_or_dependency_bound");
    for (std::size_t i = 0; i < v.present.size(); ++i) {
        const recorder e{out, "verdict", "engine", pd.core_type_names[v.present[i]]};
        e("overhead_us", v.overhead_by_type[i]);
        e("overhead_pct", pct(v.overhead_by_type[i], window));
    }

    const switch_summary sw_sum = summarise_switches(rep.switches, v.present);
    for (const auto& se : sw_sum.engines) {
        const recorder e{out, "switch", "engine", pd.core_type_names[se.type]};
        e.count("cores", std::to_string(se.cores));
        e("min_per_core_us", se.min_per_core);
        e("mean_per_core_us", se.mean_per_core);
        e("max_per_core_us", se.max_per_core);
        e.count("events", std::to_string(se.events));
        e("mean_per_event_us", se.mean_per_event);
        e("during_overhead_pct", pct(se.during_overhead, se.during_overhead + se.independent));
        e("independent_pct", pct(se.independent, se.during_overhead + se.independent));
    }
    const recorder sw{out, "switch", "", ""};
    sw("bound_lower_us", sw_sum.bound_lower);
    sw("bound_upper_us", sw_sum.bound_upper);

    distribution(out, "head_oh", rep.head_tail_oh.heads);
    distribution(out, "tail_oh", rep.head_tail_oh.tails);

    const loop_breakdown& b = rep.loops;
    if (!b.threads.empty()) {
        for (const auto& t : b.threads) {
            const recorder th{out, "loop", "thread", std::to_string(t.thread)};
            th.count("loops", std::to_string(t.loops));
            th.count("tasks", to_decimal(t.completed));
            th("ns_per_loop", t.loops ? t.total_us * 1000 / static_cast<double>(t.loops) : 0.0);
            th("total_us", t.total_us);
        }
        const char* phase_names[] = {"complete", "async_poll", "dispatch", "idle"};
        const auto phases = detail::loop_phases(b);
        for (std::size_t i = 0; i < phases.size(); ++i) {
            const recorder ph{out, "loop", "phase", phase_names[i]};
            ph("total_us", phases[i].total);
            ph("share_pct", pct(phases[i].total, b.total_us));
            ph("per_task_us", b.per_completed(phases[i].total));
        }
        const recorder l{out, "loop", "", ""};
        l.count("loops", to_decimal(b.total_loops));
        l.count("tasks", to_decimal(b.total_completed));
        l.count("finishes", to_decimal(b.total_finishes));
        l("avg_loop_ns", b.avg_loop_us() * 1000);
        l.count("fanout_edges", std::to_string(b.fanout_edges));
        l.count("fanout_max", std::to_string(b.fanout_max));
        l("fanout_avg", b.per_completed(static_cast<double>(b.fanout_edges)));
        l.count("fanin_edges", std::to_string(b.fanin_edges));
        l.count("fanin_max", std::to_string(b.fanin_max));
        l("fanin_avg", b.per_completed(static_cast<double>(b.fanin_edges)));
        l.count("pop_hit", to_decimal(b.pop_hit));
        l.count("pop_miss", to_decimal(b.pop_miss));
        l("pop_hit_rate_pct", pct(static_cast<double>(b.pop_hit), static_cast<double>(b.pop_hit + b.pop_miss)));
        const auto& tails = rep.head_tail_oh.tails;
        double tail_sum = 0.0;
        for (const double x : tails) tail_sum += x;
        const double avg_tail = tails.empty() ? 0.0 : tail_sum / static_cast<double>(tails.size());
        l("avg_tail_oh_us", avg_tail);
        l("tail_in_loops", b.avg_loop_us() > 0 ? avg_tail / b.avg_loop_us() : 0.0);
    }
    const critical_path_share& p = rep.path;
    if (p.span > 0) {
        const recorder cp{out, "critical_path", "", ""};
        cp.count("hops", std::to_string(p.hops));
        cp("span_us", p.span);
        cp("exec_us", p.exec);
        cp("exec_pct", p.exec / p.span * 100);
        cp("sched_us", p.sched);
        cp("sched_pct", p.sched / p.span * 100);
        cp("other_us", std::max(0.0, p.span - p.exec - p.sched));
    }
    return out;
}

inline std::string render_sched_overhead_csv(const std::vector<overhead_measure>& recs) {
    std::string o = csv_line({"part", "key", "name", "measure", "value"});
    for (const auto& r : recs) o += csv_line({r.part, r.key, r.name, r.measure, r.value == "null" && !r.text ? "" : r.value});
    return o;
}

// Parts in record order; within a part, its own measures, then one array per key kind.
inline std::string render_sched_overhead_json(const std::vector<overhead_measure>& recs) {
    const auto str = [](const std::string& s) { return io::json_string(s, io::json_string_style::utf8); };
    const auto value = [&](const overhead_measure& r) { return r.text ? str(r.value) : r.value; };
    std::vector<std::string> parts;
    for (const auto& r : recs)
        if (std::find(parts.begin(), parts.end(), r.part) == parts.end()) parts.push_back(r.part);
    std::string o = "{";
    for (std::size_t pi = 0; pi < parts.size(); ++pi) {
        const std::string& part = parts[pi];
        std::string body;
        std::vector<std::string> keys;
        for (const auto& r : recs) {
            if (r.part != part) continue;
            if (r.key.empty()) body += (body.empty() ? "" : ", ") + str(r.measure) + ": " + value(r);
            else if (std::find(keys.begin(), keys.end(), r.key) == keys.end()) keys.push_back(r.key);
        }
        for (const auto& key : keys) {
            std::string items, current;
            std::string item;
            for (const auto& r : recs) {
                if (r.part != part || r.key != key) continue;
                if (item.empty() || r.name != current) {
                    if (!item.empty()) items += (items.empty() ? "" : ", ") + item + "}";
                    current = r.name;
                    item = "{" + str(key) + ": " + str(r.name);
                }
                item += ", " + str(r.measure) + ": " + value(r);
            }
            if (!item.empty()) items += (items.empty() ? "" : ", ") + item + "}";
            body += (body.empty() ? "" : ", ") + str(key + "s") + ": [" + items + "]";
        }
        o += (pi ? ", " : "") + str(part) + ": {" + body + "}";
    }
    return o + "}\n";
}

}  // namespace dfx::convert::swimlane
