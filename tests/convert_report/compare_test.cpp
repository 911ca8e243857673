// dfx compare's pieces (include/dfx/convert/compare/): the --fail-if parser
// and evaluation, the significance rule, the graph diff and the rows built
// from two hand-made measure sets (A against A: nothing significant).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "dfx/convert/compare/compare_render.hpp"
#include "dfx/convert/compare/compare_table.hpp"
#include "dfx/convert/compare/fail_if.hpp"
#include "dfx/convert/compare/graph_changes.hpp"
#include "dfx/convert/compare/significance.hpp"

namespace cmp = dfx::convert::compare;
namespace rep = dfx::convert::report;
namespace sw = dfx::convert::swimlane;

namespace {

rep::unit_measures run_with(double makespan, std::vector<double> matmul_us) {
    rep::unit_measures m;
    m.unit.label = ".";
    m.found.records = "records";
    m.found.deps = "deps";
    m.level = 2;
    m.utilisation = rep::core_utilisation{};
    m.utilisation->makespan_us = makespan;
    m.utilisation->mean_utilisation = 0.5;
    rep::kernel_row k;
    k.func_id = 0;
    k.name = "matmul";
    k.exec = rep::stats_of(matmul_us);
    k.latency = rep::stats_of(matmul_us);
    m.kernels.push_back(k);
    m.sched.pickup = rep::stats_of({1, 1, 2, 2});
    m.sched.tail = rep::stats_of({1, 1, 1, 1});
    m.graph = rep::graph_shape{};
    m.graph->tasks = 3;
    m.graph->edges = 2;
    m.graph->timed = true;
    m.graph->critical_path_us = makespan * 0.8;
    sw::deps_graph g;
    g.edges = {{1, 2}, {2, 3}};
    m.digest = rep::digest_of(g);
    return m;
}

const cmp::compare_row& row(const std::vector<cmp::compare_row>& rows, const std::string& name) {
    for (const auto& r : rows)
        if (r.measure == name) return r;
    FAIL("no row " << name);
    return rows.front();
}

}  // namespace

TEST_CASE("fail-if: the three value forms, the operators and the units") {
    const auto rel = cmp::parse_fail_if("makespan>+5%");
    CHECK(rel.measure == "makespan");
    CHECK(rel.greater);
    CHECK_FALSE(rel.or_equal);
    CHECK(rel.kind == cmp::fail_kind::relative);
    CHECK(rel.value == 5.0);
    const auto neg = cmp::parse_fail_if("utilisation<-3%");
    CHECK_FALSE(neg.greater);
    CHECK(neg.value == -3.0);
    const auto delta = cmp::parse_fail_if("kernel:matmul.p50 >= +2ms");
    CHECK(delta.measure == "kernel:matmul.p50");
    CHECK(delta.or_equal);
    CHECK(delta.kind == cmp::fail_kind::delta);
    CHECK(delta.value == 2000.0);
    const auto value = cmp::parse_fail_if("makespan>1500us");
    CHECK(value.kind == cmp::fail_kind::value);
    CHECK(value.value == 1500.0);
    // A kernel name may hold < or >: the operator is the last one.
    CHECK(cmp::parse_fail_if("kernel:add<f16>.p90>+10%").measure == "kernel:add<f16>.p90");
}

TEST_CASE("fail-if: malformed expressions are errors that quote the expression") {
    for (const char* bad : {"makespan", "makespan>", ">5%", "makespan>five", "makespan>+5%%", "makespan>+5kg", "makespan>+",
                            "makespan>1e999", "makespan>+5 %x"}) {
        CAPTURE(bad);
        try {
            (void)cmp::parse_fail_if(bad);
            FAIL("accepted");
        } catch (const cmp::fail_if_error& e) {
            CHECK(std::string(e.what()).find(bad) != std::string::npos);
        }
    }
}

TEST_CASE("fail-if: evaluation against rows, globs, unknown measures and absent sides") {
    const auto a = run_with(1000, {10, 10, 10, 10});
    const auto b = run_with(1100, {10, 10, 10, 10});
    const auto rows = cmp::compare_units(a, b);
    auto v = cmp::evaluate(cmp::parse_fail_if("makespan>+5%"), rows);
    REQUIRE(v.size() == 1);
    CHECK(v[0].violated);  // +10%
    CHECK(v[0].why.find("+10%") != std::string::npos);
    CHECK_FALSE(cmp::evaluate(cmp::parse_fail_if("makespan>+15%"), rows)[0].violated);
    CHECK(cmp::evaluate(cmp::parse_fail_if("makespan>+99us"), rows)[0].violated);     // +100 us
    CHECK_FALSE(cmp::evaluate(cmp::parse_fail_if("makespan>1100us"), rows)[0].violated);  // B is 1100
    CHECK(cmp::evaluate(cmp::parse_fail_if("makespan>=1100us"), rows)[0].violated);
    CHECK(cmp::evaluate(cmp::parse_fail_if("kernel:*.p50>+1%"), rows).size() == 1);
    CHECK_FALSE(cmp::evaluate(cmp::parse_fail_if("kernel:*.p50>+1%"), rows)[0].violated);
    CHECK_THROWS_AS((void)cmp::evaluate(cmp::parse_fail_if("kernel:nosuch.p50>+1%"), rows), cmp::fail_if_error);
    CHECK_THROWS_AS((void)cmp::evaluate(cmp::parse_fail_if("graph.tasks>+1us"), rows), cmp::fail_if_error);  // not a time
    // No scope stats on either side: the ring rows are absent, a gate on them cannot vouch: violated.
    const auto ring = cmp::evaluate(cmp::parse_fail_if("ring:*>+1%"), rows);
    REQUIRE(ring.size() == 1);
    CHECK(ring[0].violated);
    CHECK(ring[0].why.find("--enable-scope-stats") != std::string::npos);
}

TEST_CASE("significance: spread rule against the IQR and its floors, relative, points, exact") {
    const auto wide = rep::stats_of({8, 9, 11, 12});  // p25 9, p75 12 (index n/4, 3n/4)
    CHECK(wide.iqr() == doctest::Approx(3.0));
    const cmp::noise n = cmp::spread_noise(wide, rep::stats_of({10, 10, 10, 10}), 10.0);
    CHECK(n.basis == "iqr");
    CHECK(n.threshold == doctest::Approx(3.0));
    CHECK_FALSE(cmp::is_significant(2.9, n));
    CHECK(cmp::is_significant(-3.1, n));
    // B widened by preempted tasks (IQR 600) but its middle half is far above A's: a shift.
    const cmp::noise shifted = cmp::spread_noise(rep::stats_of({1, 1, 1, 1}), rep::stats_of({300, 300, 301, 900, 900}), 1.0, true);
    CHECK(shifted.basis == "boxes");
    CHECK(shifted.threshold == doctest::Approx(600.0));
    CHECK(cmp::is_significant(300.0, shifted));
    CHECK_FALSE(cmp::is_significant(0.05, shifted));  // still not below the floor
    // A p90 row: the boxes say nothing about the tail.
    CHECK_FALSE(cmp::spread_noise(rep::stats_of({1, 1, 1, 1}), rep::stats_of({300, 300, 301, 900, 900}), 1.0).apart);
    const cmp::noise flat = cmp::spread_noise(rep::stats_of({100}), rep::stats_of({100}), 100.0);
    CHECK(flat.basis == "floor");
    CHECK(flat.threshold == doctest::Approx(2.0));  // 2 % of 100 us
    CHECK(cmp::spread_noise(rep::stats_of({1}), rep::stats_of({1}), 1.0).threshold == doctest::Approx(0.1));
    CHECK(cmp::relative_noise(200.0).threshold == doctest::Approx(10.0));
    CHECK(cmp::relative_noise(200.0).basis == "5%");
    const cmp::noise wider = cmp::relative_noise(200.0, 0.2);  // --min-change 20
    CHECK(wider.threshold == doctest::Approx(40.0));
    CHECK(wider.basis == "20%");
    CHECK(cmp::points_noise().threshold == 3.0);
    CHECK(cmp::is_significant(1, cmp::exact_noise()));
    CHECK_FALSE(cmp::is_significant(0, cmp::exact_noise()));
}

TEST_CASE("compare rows: A against A has no significant delta; a slower kernel is") {
    const auto a = run_with(1000, {10, 10, 11, 12});
    const auto same = cmp::compare_units(a, a);
    for (const auto& r : same) {
        CAPTURE(r.measure);
        CHECK_FALSE(r.significant);
        if (r.both()) CHECK(*r.delta() == 0.0);
    }
    const auto slow = cmp::compare_units(a, run_with(1000, {20, 20, 21, 22}));
    CHECK(row(slow, "kernel:matmul.p50").significant);
    CHECK(*row(slow, "kernel:matmul.p50").delta() == doctest::Approx(10.0));
    CHECK_FALSE(row(slow, "makespan").significant);
    const auto text = cmp::render_compare_text("A", "B", slow, {});
    CHECK(text.find("matmul: p50 +10.00 us per task") != std::string::npos);
}

TEST_CASE("compare rows: a missing artefact is an absent side with the flag, not an error") {
    auto a = run_with(1000, {10});
    auto b = run_with(1000, {10});
    b.found.records.reset();
    b.utilisation.reset();
    b.kernels.clear();
    const auto rows = cmp::compare_units(a, b);
    const auto& m = row(rows, "makespan");
    CHECK(m.a);
    CHECK_FALSE(m.b);
    CHECK(m.absent == "B: no chip_swimlane_records.json (--enable-chip-swimlane)");
    CHECK(row(rows, "kernel:matmul.p50").absent.find("B: no chip_swimlane_records.json") != std::string::npos);
    CHECK(row(rows, "pmu:*").absent == "A, B: no pmu.csv (--enable-pmu 2)");
}

TEST_CASE("graph changes: tasks and edges added and removed, by id") {
    sw::deps_graph a, b;
    a.edges = {{1, 2}, {2, 3}, {3, 3}};
    a.blocks = {{7, 1}};
    b.edges = {{1, 2}, {1, 3}, {3, 4}};
    const auto c = cmp::diff_graphs(rep::digest_of(a), rep::digest_of(b));
    CHECK(c.tasks_added == 1);  // 4
    CHECK(c.examples_added == std::vector<std::uint64_t>{4});
    CHECK(c.tasks_removed == 1);  // 7
    CHECK(c.edges_added == 2);    // 1->3, 3->4
    CHECK(c.edges_removed == 1);  // 2->3 (the self edge is no edge)
    CHECK_FALSE(cmp::diff_graphs(rep::digest_of(a), rep::digest_of(a)).any());
}

TEST_CASE("csv and json carry the stable field names") {
    const auto a = run_with(1000, {10});
    const auto rows = cmp::compare_units(a, a);
    const auto csv = cmp::render_compare_csv(rows);
    CHECK(csv.rfind("section,measure,unit,a,b,delta,ratio,significant,threshold,basis,absent,note\n", 0) == 0);
    CHECK(csv.find("\n.,makespan,us,1000,1000,0,1,false,50,5%,,\n") != std::string::npos);
    const auto json = cmp::render_compare_json("A", "B", rows, {});
    CHECK(json.find(R"({"section": ".", "measure": "makespan", "unit": "us", "a": 1000, "b": 1000, "delta": 0, "ratio": 1, )"
                    R"("significant": false, "threshold": 50, "basis": "5%", "absent": null, "note": ""})") != std::string::npos);
}
