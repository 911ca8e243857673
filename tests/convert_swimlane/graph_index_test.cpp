// The two lookups sched-overhead makes per task id, against the plain
// answer worked out by hand or by a scan:
//  * deps_graph::succs / preds: an id's unique successors in first-seen
//    order and its in-edges, from the 4-byte-a-pred index;
//  * task_id_index: an id's rows folded on demand (earliest dispatch and
//    start, latest end and finish), and find() of ids present or not.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dfx/convert/swimlane/deps_graph.hpp"
#include "dfx/convert/swimlane/overhead_model.hpp"
#include "../support/scratch_dir.hpp"

namespace sw = dfx::convert::swimlane;

namespace {

std::vector<std::uint64_t> succ_ids(const sw::deps_graph& g, std::uint64_t pred) {
    std::vector<std::uint64_t> out;
    auto [lo, hi] = g.succs(pred);
    for (auto e = lo; e != hi; ++e) out.push_back(e->succ);
    return out;
}

std::vector<std::uint64_t> pred_ids(const sw::deps_graph& g, std::uint64_t succ) {
    std::vector<std::uint64_t> out;
    auto [lo, hi] = g.preds(succ);
    for (auto e = lo; e != hi; ++e) out.push_back(g.edges[*e].pred);
    return out;
}

sw::task row(std::uint64_t id, double dispatch, double start, double end, double finish) {
    sw::task t;
    t.task_id = id;
    t.dispatch_us = dispatch;
    t.start_us = start;
    t.end_us = end;
    t.finish_us = finish;
    return t;
}

}  // namespace

TEST_CASE("a pred's successors: unique, in first-seen order, its run ending where the next pred's starts") {
    test_support::scratch_dir dir;
    // Preds first seen in the order 9, 2, 5; 2 -> 7 twice; the largest pred
    // (9) owns the first run and the smallest (2) the middle one, so each
    // run's end is found by the pred changing, and 5's by the table ending.
    const sw::deps_graph g = sw::load_deps_graph(dir.write("deps.json", R"({"edges": [
        {"pred": 9, "succ": 3}, {"pred": 2, "succ": 7}, {"pred": 9, "succ": 1},
        {"pred": 5, "succ": 7}, {"pred": 2, "succ": 7}, {"pred": 2, "succ": 4}, {"pred": 5, "succ": 6}]})"),
                                                 nullptr, sw::deps_policy::required);
    REQUIRE(g.edges.size() == 6);
    CHECK(succ_ids(g, 9) == std::vector<std::uint64_t>{3, 1});
    CHECK(succ_ids(g, 2) == std::vector<std::uint64_t>{7, 4});
    CHECK(succ_ids(g, 5) == std::vector<std::uint64_t>{7, 6});
    for (const std::uint64_t absent : {0, 3, 4, 10}) CHECK(succ_ids(g, absent).empty());
    CHECK(pred_ids(g, 7) == std::vector<std::uint64_t>{2, 5});
    CHECK(pred_ids(g, 3) == std::vector<std::uint64_t>{9});
    CHECK(pred_ids(g, 9).empty());
    CHECK(g.pred_starts.size() == 3);
}

TEST_CASE("a table's task ids, each folded from its rows when asked for") {
    // Sorted by id as load_perf_data leaves them: id 4 has three rows whose
    // minima and maxima come from different rows, 8 one row, 11 two.
    const std::vector<sw::task> tasks{
        row(4, 2.0, 5.0, 9.0, 10.0), row(4, 1.0, 6.0, 12.0, 11.0), row(4, 3.0, 4.0, 8.0, 13.0),
        row(8, 20.0, 21.0, 22.0, 23.0), row(11, 30.0, 32.0, 35.0, 36.0), row(11, 29.0, 33.0, 34.0, 37.0)};
    const sw::task_id_index ids(tasks);
    REQUIRE(ids.size() == 3);

    const sw::task_id_timing a = ids[0];
    CHECK(a.id == 4);
    CHECK(a.first_row == 0);
    CHECK(a.rows == 3);
    CHECK(a.dispatch == 1.0);
    CHECK(a.start == 4.0);
    CHECK(a.end == 12.0);
    CHECK(a.finish == 13.0);

    const sw::task_id_timing c = ids[2];
    CHECK(c.id == 11);
    CHECK(c.first_row == 4);
    CHECK(c.rows == 2);
    CHECK(c.dispatch == 29.0);
    CHECK(c.start == 32.0);
    CHECK(c.end == 35.0);
    CHECK(c.finish == 37.0);

    std::vector<std::uint64_t> visited;
    for (const sw::task_id_timing& f : ids) visited.push_back(f.id);
    CHECK(visited == std::vector<std::uint64_t>{4, 8, 11});

    const std::optional<sw::task_id_timing> b = ids.find(8);
    REQUIRE(b.has_value());
    CHECK(b->first_row == 3);
    CHECK(b->rows == 1);
    CHECK(b->end == 22.0);
    REQUIRE(ids.find(11).has_value());
    CHECK(ids.find(11)->finish == 37.0);
    for (const std::uint64_t absent : {0, 5, 9, 12}) CHECK_FALSE(ids.find(absent).has_value());

    const std::vector<sw::task> none;
    const sw::task_id_index empty(none);
    CHECK(empty.empty());
    CHECK_FALSE(empty.find(4).has_value());

    // Moved from (as the sweep leaves the index it frees): empty, not broken.
    sw::task_id_index spent(tasks);
    const sw::task_id_index taken = std::move(spent);
    CHECK(taken.size() == 3);
    CHECK(spent.size() == 0);  // NOLINT(bugprone-use-after-move): moved-from is empty, by contract
    CHECK(spent.begin() == spent.end());
    CHECK_FALSE(spent.find(8).has_value());
}
