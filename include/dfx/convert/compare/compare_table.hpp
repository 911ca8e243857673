// compare_table: `dfx compare A B` as rows, one per measure, built from the
// two runs' report measures (report/unit_measures.hpp: the one place each
// measure is computed) so that report and compare always agree:
//
//   makespan, critical_path, utilisation           the unit
//   head.p50/.p90, tail.p50/.p90                   scheduling overhead (level >= 2)
//   kernel:NAME.count/.p50/.p90/.latency_p50/.latency_p90   by kernel name
//   ring:R.task_window / .heap / .dep_pool         high water (scope stats)
//   pmu:NAME.CORE.PIPE                             pipe share of the cycles (pmu.csv)
//   graph.tasks/.edges/.depth, graph.tasks_added/_removed, graph.edges_added/_removed
//
// A measure a run cannot give is a row with that side absent and the
// reason (the missing artefact and the flag that produces it), never an
// error. Each row carries its significance threshold (significance.hpp).
//
//   std::vector<compare_row> rows = compare_units(a, b);   // a, b: measure_unit(..., keep_deps = true)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/compare/graph_changes.hpp"
#include "dfx/convert/compare/significance.hpp"
#include "dfx/convert/report/unit_measures.hpp"

namespace dfx::convert::compare {

struct compare_row {
    std::string section;  // the run unit: "." or "rank<r>/d<k>" in an L3 tree
    std::string measure;  // "makespan", "kernel:matmul.p50", ...
    std::string unit;     // "us", "%", "tasks", "slots", ...
    std::optional<double> a, b;
    std::string absent;   // why a side is missing ("A: no deps.json (--enable-dep-gen)")
    noise rule;
    std::string note;     // e.g. a ring's verdicts "fits -> full"
    bool significant = false;

    [[nodiscard]] bool both() const { return a && b; }
    [[nodiscard]] std::optional<double> delta() const {
        if (!both()) return std::nullopt;
        return *b - *a;
    }
    [[nodiscard]] std::optional<double> ratio() const {
        if (!both() || *a == 0) return std::nullopt;
        return *b / *a;
    }
};

namespace detail {

inline std::string missing_text(const report::missing_artefact& m) { return fmt::format("no {} ({})", m.file, m.flag); }

// Why side `side` ("A"/"B") has no value; empty when it has one.
struct side_reason {
    std::string a, b;
    [[nodiscard]] std::string text() const {
        if (!a.empty() && !b.empty()) return a == b ? "A, B: " + a : "A: " + a + "; B: " + b;
        if (!a.empty()) return "A: " + a;
        if (!b.empty()) return "B: " + b;
        return {};
    }
};

struct row_builder {
    std::string section;
    std::vector<compare_row> rows;

    compare_row& add(std::string measure, std::string unit, std::optional<double> a, std::optional<double> b,
                     const side_reason& why, noise rule) {
        compare_row r;
        r.section = section;
        r.measure = std::move(measure);
        r.unit = std::move(unit);
        r.a = a;
        r.b = b;
        if (!a || !b) r.absent = why.text();
        r.rule = std::move(rule);
        if (const auto d = r.delta()) r.significant = is_significant(*d, r.rule);
        rows.push_back(std::move(r));
        return rows.back();
    }
};

inline std::string records_reason(const report::unit_measures& m) {
    return m.found.records ? std::string() : missing_text(report::records_missing);
}

inline std::string level2_reason(const report::unit_measures& m) {
    if (!m.found.records) return missing_text(report::records_missing);
    if (m.level < report::pickup_gap_level)
        return fmt::format("level {} records (--chip-swimlane-level {})", m.level, report::pickup_gap_level);
    return {};
}

inline const char* state_name(report::ring_state s) {
    switch (s) {
        case report::ring_state::full: return "full";
        case report::ring_state::at_risk: return "at risk";
        case report::ring_state::fits: break;
    }
    return "fits";
}

// Kernel rows by a unique name: a name two func ids share gets "#<id>".
inline std::map<std::string, const report::kernel_row*> kernels_by_name(const std::vector<report::kernel_row>& rows,
                                                                        std::vector<std::string>& order) {
    std::map<std::string, std::size_t> seen;
    for (const auto& r : rows) ++seen[r.name];
    std::map<std::string, const report::kernel_row*> out;
    for (const auto& r : rows) {
        std::string key = seen[r.name] > 1 ? fmt::format("{}#{}", r.name, r.func_id) : r.name;
        if (out.emplace(key, &r).second) order.push_back(key);
    }
    return out;
}

}  // namespace detail

// `min_change`: the relative floor of the single-sample measures (significance.hpp).
inline std::vector<compare_row> compare_units(const report::unit_measures& a, const report::unit_measures& b,
                                              double min_change = relative_floor) {
    using detail::side_reason;
    detail::row_builder out{b.unit.label, {}};
    const side_reason rec{detail::records_reason(a), detail::records_reason(b)};
    const auto makespan = [](const report::unit_measures& m) -> std::optional<double> {
        if (m.utilisation) return m.utilisation->makespan_us;
        return std::nullopt;
    };
    out.add("makespan", "us", makespan(a), makespan(b), rec, relative_noise(makespan(a).value_or(0), min_change));

    // The static critical path needs deps.json and the records' durations.
    const auto cp = [](const report::unit_measures& m) -> std::optional<double> {
        if (m.graph && m.graph->timed) return m.graph->critical_path_us;
        return std::nullopt;
    };
    const auto cp_reason = [](const report::unit_measures& m) {
        if (!m.found.deps) return detail::missing_text(report::deps_missing);
        return detail::records_reason(m);
    };
    out.add("critical_path", "us", cp(a), cp(b), {cp_reason(a), cp_reason(b)}, relative_noise(cp(a).value_or(0), min_change));

    const auto util = [](const report::unit_measures& m) -> std::optional<double> {
        if (m.utilisation) return m.utilisation->mean_utilisation * 100;
        return std::nullopt;
    };
    out.add("utilisation", "%", util(a), util(b), rec, points_noise());

    // Head (the pickup gap) and tail overhead, level >= 2.
    const side_reason l2{detail::level2_reason(a), detail::level2_reason(b)};
    const auto overhead = [&](const char* name, const std::optional<report::duration_stats>& sa,
                              const std::optional<report::duration_stats>& sb) {
        for (const bool p90 : {false, true}) {
            const auto pick = [&](const std::optional<report::duration_stats>& s) -> std::optional<double> {
                if (!s) return std::nullopt;
                return p90 ? s->p90 : s->median;
            };
            const noise n = sa && sb ? spread_noise(*sa, *sb, *pick(sa), !p90) : noise{};
            out.add(fmt::format("{}.{}", name, p90 ? "p90" : "p50"), "us", pick(sa), pick(sb), l2, n);
        }
    };
    overhead("head", a.sched.pickup, b.sched.pickup);
    overhead("tail", a.sched.tail, b.sched.tail);

    // Kernels, matched by name: A's order (by total time), then those only in B.
    std::vector<std::string> names;
    const auto ka = detail::kernels_by_name(a.kernels, names);
    const auto kb = detail::kernels_by_name(b.kernels, names);
    std::vector<std::string> order;
    for (const auto& n : names)
        if (std::find(order.begin(), order.end(), n) == order.end()) order.push_back(n);
    for (const auto& name : order) {
        const auto ia = ka.find(name), ib = kb.find(name);
        const report::kernel_row* ra = ia == ka.end() ? nullptr : ia->second;
        const report::kernel_row* rb = ib == kb.end() ? nullptr : ib->second;
        const side_reason why{ra ? "" : (a.found.records ? "kernel not in this run" : detail::records_reason(a)),
                              rb ? "" : (b.found.records ? "kernel not in this run" : detail::records_reason(b))};
        const auto count = [](const report::kernel_row* r) -> std::optional<double> {
            if (!r) return std::nullopt;
            return static_cast<double>(r->exec.count);
        };
        out.add(fmt::format("kernel:{}.count", name), "tasks", count(ra), count(rb), why, exact_noise());
        const auto stat = [&](const char* suffix, bool latency, bool p90) {
            const auto of = [&](const report::kernel_row* r) -> const report::duration_stats* {
                if (!r) return nullptr;
                if (!latency) return &r->exec;
                return r->latency ? &*r->latency : nullptr;
            };
            const report::duration_stats *sa = of(ra), *sb = of(rb);
            const auto value = [&](const report::duration_stats* s) -> std::optional<double> {
                if (!s) return std::nullopt;
                return p90 ? s->p90 : s->median;
            };
            side_reason w = why;
            if (latency) {
                if (ra && !sa) w.a = detail::level2_reason(a);
                if (rb && !sb) w.b = detail::level2_reason(b);
            }
            const noise n = sa && sb ? spread_noise(*sa, *sb, *value(sa), !p90) : noise{};
            out.add(fmt::format("kernel:{}.{}", name, suffix), "us", value(sa), value(sb), w, n);
        };
        stat("p50", false, false);
        stat("p90", false, true);
        stat("latency_p50", true, false);
        stat("latency_p90", true, true);
    }

    // Rings: the high water of each (ring, resource) either run saw.
    const side_reason ss{a.rings ? "" : detail::missing_text(report::scope_stats_missing),
                         b.rings ? "" : detail::missing_text(report::scope_stats_missing)};
    std::vector<std::pair<int, int>> ring_keys;
    for (const auto* r : {&a.rings, &b.rings})
        if (*r)
            for (const auto& p : (*r)->peaks)
                if (std::find(ring_keys.begin(), ring_keys.end(), std::pair{p.ring, static_cast<int>(p.resource)}) ==
                    ring_keys.end())
                    ring_keys.emplace_back(p.ring, static_cast<int>(p.resource));
    std::sort(ring_keys.begin(), ring_keys.end());
    const auto peak_of = [](const std::optional<report::ring_report>& r, std::pair<int, int> k) -> const report::ring_peak* {
        if (!r) return nullptr;
        for (const auto& p : r->peaks)
            if (p.ring == k.first && static_cast<int>(p.resource) == k.second) return &p;
        return nullptr;
    };
    if (ring_keys.empty() && (!a.rings || !b.rings))
        out.add("ring:*", "", std::nullopt, std::nullopt, ss, exact_noise());
    for (const auto& k : ring_keys) {
        const report::ring_peak *pa = peak_of(a.rings, k), *pb = peak_of(b.rings, k);
        side_reason why = ss;
        if (a.rings && !pa) why.a = "ring not used";
        if (b.rings && !pb) why.b = "ring not used";
        const auto hw = [](const report::ring_peak* p) -> std::optional<double> {
            if (!p) return std::nullopt;
            return p->high_water;
        };
        const double capacity = std::max(pa ? pa->capacity : 0.0, pb ? pb->capacity : 0.0);
        auto& row = out.add(fmt::format("ring:{}.{}", k.first, ring_resource_name[k.second]),
                            report::ring_unit[k.second], hw(pa), hw(pb), why, ring_noise(capacity));
        if (pa && pb) {
            row.note = fmt::format("{} -> {} (capacity {} -> {})", detail::state_name(pa->state),
                                   detail::state_name(pb->state), pa->capacity, pb->capacity);
            if (pa->state != pb->state) row.significant = true;
        }
    }

    // PMU: each kernel's pipe shares, matched by name, core type and pipe.
    const side_reason pm{a.pmu_present ? "" : detail::missing_text(report::pmu_missing),
                         b.pmu_present ? "" : detail::missing_text(report::pmu_missing)};
    std::vector<std::string> pipe_keys;
    std::map<std::string, double> pa, pb;
    for (const auto& [side, map] : {std::pair{&a, &pa}, std::pair{&b, &pb}})
        for (const auto& k : side->pipes)
            for (const auto& p : k.pipes) {
                std::string key = fmt::format("pmu:{}.{}.{}", k.name, k.core_type, p.pipe);
                if (std::find(pipe_keys.begin(), pipe_keys.end(), key) == pipe_keys.end()) pipe_keys.push_back(key);
                (*map)[key] = p.pct;
            }
    if (pipe_keys.empty() && (!a.pmu_present || !b.pmu_present))
        out.add("pmu:*", "", std::nullopt, std::nullopt, pm, exact_noise());
    for (const auto& key : pipe_keys) {
        side_reason why = pm;
        const auto value = [&](const std::map<std::string, double>& m, bool present, std::string& reason) -> std::optional<double> {
            const auto it = m.find(key);
            if (it != m.end()) return it->second;
            if (present) reason = "no such kernel / pipe in pmu.csv";
            return std::nullopt;
        };
        const auto va = value(pa, a.pmu_present, why.a), vb = value(pb, b.pmu_present, why.b);
        out.add(key, "%", va, vb, why, points_noise());
    }

    // The graph: its size, and what changed (deps.json of both runs).
    const side_reason dg{a.graph ? "" : detail::missing_text(report::deps_missing),
                         b.graph ? "" : detail::missing_text(report::deps_missing)};
    const auto count = [](const std::optional<report::graph_shape>& g, std::size_t report::graph_shape::*f) -> std::optional<double> {
        if (!g) return std::nullopt;
        return static_cast<double>((*g).*f);
    };
    out.add("graph.tasks", "tasks", count(a.graph, &report::graph_shape::tasks), count(b.graph, &report::graph_shape::tasks), dg, exact_noise());
    out.add("graph.edges", "edges", count(a.graph, &report::graph_shape::edges), count(b.graph, &report::graph_shape::edges), dg, exact_noise());
    out.add("graph.depth", "levels", count(a.graph, &report::graph_shape::depth), count(b.graph, &report::graph_shape::depth), dg, exact_noise());
    std::optional<graph_changes> ch;
    if (a.digest && b.digest) ch = diff_graphs(*a.digest, *b.digest);
    const auto change = [&](const char* name, const char* unit, std::size_t graph_changes::*f, const std::vector<std::uint64_t>* ex) {
        const std::optional<double> zero = ch ? std::optional<double>(0.0) : std::nullopt;
        const std::optional<double> n = ch ? std::optional<double>(static_cast<double>((*ch).*f)) : std::nullopt;
        auto& row = out.add(name, unit, zero, n, dg, exact_noise());
        if (ch && ex && !ex->empty()) {
            row.note = "task ids";
            for (const auto id : *ex) row.note += fmt::format(" {}", id);
            if (static_cast<double>(ex->size()) < *n) row.note += " ...";
        }
    };
    change("graph.tasks_added", "tasks", &graph_changes::tasks_added, ch ? &ch->examples_added : nullptr);
    change("graph.tasks_removed", "tasks", &graph_changes::tasks_removed, ch ? &ch->examples_removed : nullptr);
    change("graph.edges_added", "edges", &graph_changes::edges_added, nullptr);
    change("graph.edges_removed", "edges", &graph_changes::edges_removed, nullptr);
    return std::move(out.rows);
}

}  // namespace dfx::convert::compare
