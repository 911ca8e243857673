// dfx report's measures (include/dfx/convert/report/), each against numbers
// worked out by hand from a small input written here.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "dfx/convert/report/findings.hpp"
#include "dfx/convert/report/ring_peaks.hpp"
#include "dfx/convert/report/unit_measures.hpp"

namespace rep = dfx::convert::report;
namespace sw = dfx::convert::swimlane;

namespace {

// a -> b, a -> c, b -> d, c -> d, and e alone (a block entry, no edges).
sw::deps_graph diamond() {
    sw::deps_graph g;
    g.edges_usable = true;
    g.edges = {{1, 2}, {1, 3}, {2, 4}, {3, 4}};
    for (std::uint64_t id : {1, 2, 3, 4, 5}) g.blocks.push_back({id, 1});
    return g;
}

sw::task row(std::uint64_t id, std::uint32_t core, double start, double end, double dispatch = 0) {
    sw::task t;
    t.task_id = id;
    t.core_id = core;
    t.core_type = 0;
    t.start_us = start;
    t.end_us = end;
    t.dispatch_us = dispatch;
    t.joined = dispatch > 0;
    return t;
}

}  // namespace

TEST_CASE("graph shape: counts, levels, width profile and the weighted critical path") {
    // a [0,10), b [10,15), c [10,30), d [30,31), e [0,3): every edge confirmed by the timing.
    const rep::task_durations d{{1, {0, 10}}, {2, {10, 15}}, {3, {10, 30}}, {4, {30, 31}}, {5, {0, 3}}};
    const rep::graph_shape g = rep::measure_graph(diamond(), d);
    CHECK(g.tasks == 5);
    CHECK(g.edges == 4);
    CHECK(g.depth == 3);
    CHECK(g.width == std::vector<std::size_t>{2, 2, 1});  // {a, e}, {b, c}, {d}
    CHECK(g.max_width == 2);
    CHECK(g.critical_path_us == doctest::Approx(31.0));  // a (10) + c (20) + d (1)
    CHECK(g.critical_path_tasks == 3);
    CHECK(g.in_cycle == 0);
    const rep::graph_shape untimed = rep::measure_graph(diamond(), {});
    CHECK_FALSE(untimed.timed);
    CHECK(untimed.critical_path_us == 0.0);
}

TEST_CASE("graph shape: an edge the timing does not confirm does not serialise the weighted path") {
    // c starts at 5, before a ends (10): a -> c was resolved early. Path: a (10) + b (5) + d... d starts at 30
    // after b ends (15) and c ends (30): a b d = 10 + 5 + 1, c d = 25 + 1: the longest is c -> d, 26.
    const rep::task_durations d{{1, {0, 10}}, {2, {10, 15}}, {3, {5, 30}}, {4, {30, 31}}, {5, {0, 3}}};
    const rep::graph_shape g = rep::measure_graph(diamond(), d);
    CHECK(g.critical_path_us == doctest::Approx(26.0));
    CHECK(g.critical_path_tasks == 2);
    CHECK(g.depth == 3);  // levels are of the declared graph
}

TEST_CASE("graph shape: a cycle is counted, not looped on") {
    sw::deps_graph g;
    g.edges_usable = true;
    g.edges = {{1, 2}, {2, 1}, {2, 3}};
    const rep::graph_shape s = rep::measure_graph(g, {});
    CHECK(s.tasks == 3);
    CHECK(s.in_cycle == 3);
}

TEST_CASE("utilisation: busy union per core, gaps, all-idle time and the timeline") {
    sw::perf_data pd;
    pd.core_type_names = {"aiv"};
    // core 0: [0,10) and [5,20) overlap (counted once: 20), then [30,40); core 1: [50,60).
    pd.tasks = {row(1, 0, 0, 10), row(2, 0, 5, 20), row(3, 0, 30, 40), row(4, 1, 50, 60)};
    const rep::core_utilisation u = rep::measure_utilisation(pd, 6);
    CHECK(u.makespan_us == doctest::Approx(60));
    REQUIRE(u.cores.size() == 2);
    CHECK(u.cores[0].busy_us == doctest::Approx(30));
    CHECK(u.cores[0].utilisation == doctest::Approx(0.5));
    CHECK(u.cores[0].longest_gap_us == doctest::Approx(20));  // 40 -> 60
    CHECK(u.cores[1].longest_gap_us == doctest::Approx(50));  // 0 -> 50
    CHECK(u.all_idle_us == doctest::Approx(20));              // [20,30) and [40,50)
    REQUIRE(u.timeline.busy.size() == 1);
    CHECK(u.timeline.bin_us == doctest::Approx(10));
    // Bin [0,10): core 0 busy the whole bin -> 1 core; [50,60): core 1 -> 1.
    CHECK(u.timeline.busy[0][0] == doctest::Approx(1.0));
    CHECK(u.timeline.busy[0][2] == doctest::Approx(0.0));
    CHECK(u.timeline.busy[0][5] == doctest::Approx(1.0));
}

TEST_CASE("duration stats: median of even and odd counts, p90") {
    const auto odd = rep::stats_of({5, 1, 3});
    CHECK(odd.median == 3);
    CHECK(odd.min == 1);
    CHECK(odd.max == 5);
    CHECK(odd.total == 9);
    const auto even = rep::stats_of({4, 1, 3, 2});
    CHECK(even.median == doctest::Approx(2.5));
    CHECK(rep::stats_of({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}).p90 == 10);
    CHECK(rep::stats_of({}).count == 0);
}

TEST_CASE("scheduler verdict thresholds are sched-overhead's") {
    CHECK(sw::classify_overhead(30) == sw::overhead_class::scheduler_bound);
    CHECK(sw::classify_overhead(25) == sw::overhead_class::scheduler_bound);
    CHECK(sw::classify_overhead(10) == sw::overhead_class::partially_scheduler_limited);
    CHECK(sw::classify_overhead(7.9) == sw::overhead_class::compute_or_dependency_bound);
}

TEST_CASE("pickup gap: start - dispatch over joined rows") {
    sw::perf_data pd;
    pd.level = 2;
    pd.core_type_names = {"aiv"};
    pd.tasks = {row(1, 0, 10, 12, 9), row(2, 0, 20, 22, 17), row(3, 0, 30, 31, 29.5)};
    const rep::scheduling s = rep::measure_scheduling(pd, sw::deps_graph{});
    REQUIRE(s.pickup);
    CHECK(s.pickup->median == doctest::Approx(1.0));
    CHECK(s.pickup->max == doctest::Approx(3.0));
    CHECK_FALSE(s.verdict);  // level 2, and no deps.json
}

TEST_CASE("knob values: powers of two above the floor, the dep pool as is") {
    using rep::knob_value_for;
    using dfx::convert::ring_resource;
    CHECK(knob_value_for(ring_resource::task_window, 6) == 8);
    CHECK(knob_value_for(ring_resource::task_window, 2) == 4);
    CHECK(knob_value_for(ring_resource::task_window, 64) == 64);
    CHECK(knob_value_for(ring_resource::heap, 1000) == 1024);
    CHECK(knob_value_for(ring_resource::heap, 3000) == 4096);
    CHECK(knob_value_for(ring_resource::dep_pool, 2) == 4);
    CHECK(knob_value_for(ring_resource::dep_pool, 300) == 300);
}

namespace {

dfx::convert::scope_boundary boundary(dfx::convert::scope_sites& sites, const char* site, bool begin, int ring,
                                      double tw_start, double tw_end) {
    dfx::convert::scope_boundary b;
    b.site = sites.intern(site);
    b.begin = begin;
    b.ring = static_cast<std::uint8_t>(ring);
    b.depth = ring;
    b.start = {tw_start, 0, 1};
    b.end = {tw_end, 0, 1};
    b.present = {true, true, true};
    return b;
}

}  // namespace

TEST_CASE("ring peaks: full, at risk and fits, the site and the knob value") {
    dfx::convert::scope_stats_file f;
    f.meta.task_window_max = {16, 4, 4, 0};
    f.meta.heap_max = {1 << 20, 1 << 20, 1 << 20, 0};
    f.meta.dep_pool_max = {256, 256, 256, 0};
    // Ring 1, site a.cpp:1: begin tail 0, end head 6 tail 2 -> high water 6, live 4 (full at capacity 4).
    // Ring 2, site b.cpp:2: begin tail 0, end head 5 tail 3 -> high water 5, live 2 (at risk).
    // Ring 0: high water 3 of 16 (fits).
    auto& s = f.sites;
    f.records = {boundary(s, "(unknown):0", true, 0, 0, 0), boundary(s, "a.cpp:1", true, 1, 0, 0),
                 boundary(s, "a.cpp:1", false, 1, 2, 6), boundary(s, "b.cpp:2", true, 2, 0, 0),
                 boundary(s, "b.cpp:2", false, 2, 3, 5), boundary(s, "(unknown):0", false, 0, 1, 3)};
    const rep::ring_report r = rep::measure_rings(f);
    const auto find = [&](int ring, dfx::convert::ring_resource res) -> const rep::ring_peak& {
        for (const auto& p : r.peaks)
            if (p.ring == ring && p.resource == res) return p;
        FAIL("no peak");
        return r.peaks.front();
    };
    const auto& full = find(1, dfx::convert::ring_resource::task_window);
    CHECK(full.state == rep::ring_state::full);
    CHECK(full.high_water == 6);
    CHECK(full.live_peak == 4);
    CHECK(full.high_water_site == "a.cpp:1");
    CHECK(full.saturated_sites == std::vector<std::string>{"a.cpp:1"});
    CHECK(full.suggested == 8);
    const auto& risk = find(2, dfx::convert::ring_resource::task_window);
    CHECK(risk.state == rep::ring_state::at_risk);
    CHECK(risk.suggested == 8);
    CHECK(find(0, dfx::convert::ring_resource::task_window).state == rep::ring_state::fits);
    CHECK(find(0, dfx::convert::ring_resource::task_window).high_water == 3);
    CHECK(find(1, dfx::convert::ring_resource::dep_pool).state == rep::ring_state::fits);
}

TEST_CASE("findings: a full ring ranks first and names the knob; missing artefacts name their flag") {
    rep::unit_measures m;
    m.unit = {"/nowhere", "."};
    m.found.scope_stats = "/nowhere/scope_stats/scope_stats.jsonl";
    rep::ring_report r;
    rep::ring_peak p;
    p.ring = 2;
    p.capacity = 4;
    p.high_water = 6;
    p.live_peak = 4;
    p.scopes = 10;
    p.scopes_at_capacity = 9;
    p.saturated_sites = {"w.cpp:190"};
    p.state = rep::ring_state::full;
    p.suggested = 8;
    r.peaks.push_back(p);
    m.rings = r;
    const rep::report_findings f = rep::find_issues(m);
    REQUIRE(f.ranked.size() == 1);
    CHECK(f.ranked[0].area == "rings");
    CHECK(f.ranked[0].text.find("Ring 2 task_window was full") != std::string::npos);
    CHECK(f.ranked[0].text.find("ring_task_window above 4 (try 8") != std::string::npos);
    REQUIRE(f.gaps.size() == 3);
    CHECK(f.gaps[0].find("--enable-dep-gen") != std::string::npos);
    CHECK(f.gaps[1].find("--enable-chip-swimlane") != std::string::npos);
    CHECK(f.gaps[2].find("--enable-pmu 2") != std::string::npos);
}

TEST_CASE("artefacts: found beside each other, the L3 units in numeric order") {
    namespace fs = std::filesystem;
    const fs::path root = fs::temp_directory_path() / "dfx_report_units_test";
    fs::remove_all(root);
    for (const char* d : {"rank0/d10", "rank0/d2", "rank1/d0", "rank1/x"}) fs::create_directories(root / d);
    std::ofstream(root / "rank0/d2/deps.json") << "{}";
    const auto units = rep::run_units_of(root);
    REQUIRE(units.size() == 4);
    CHECK(units[1].label == "rank0/d2");
    CHECK(units[2].label == "rank0/d10");
    CHECK(units[3].label == "rank1/d0");
    CHECK(rep::find_artefacts(units[1].dir).deps.has_value());
    CHECK_FALSE(rep::find_artefacts(units[1].dir).records.has_value());
    CHECK_FALSE(rep::find_artefacts(root).any());
    fs::remove_all(root);
}
