// dfx-sim --workload stream: the long throughput workload, run small (2000
// tasks) with every collector at its highest level, its artefacts counted
// against the shape the workload defines (N tasks, one AICore row each, the
// dependency edges its rounds imply, nothing lost); and --tasks checked: a
// bad or out-of-range N is one error line naming the flag, exit 2.
#include <doctest/doctest.h>


#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <simdjson.h>

#include "sim_run.hpp"

namespace fs = std::filesystem;

namespace {

using sim_test::contains;
using sim_test::read_text;

sim_test::sim_run run_stream(const std::string& name, const std::vector<std::string>& args) {
    return sim_test::run_sim("stream_" + name, args);
}

// "<title>: P records produced, C collected, D dropped": returns P, checks C == P and D == 0.
unsigned long long produced_of(const std::string& out, const std::string& title) {
    CAPTURE(title);
    const auto at = out.find("\n" + title + ": ");
    REQUIRE(at != std::string::npos);
    unsigned long long produced = 0, collected = 0, dropped = 0;
    REQUIRE(std::sscanf(out.c_str() + at + title.size() + 3, "%llu records produced, %llu collected, %llu dropped",
                        &produced, &collected, &dropped) == 3);
    CHECK(collected == produced);
    CHECK(dropped == 0);
    return produced;
}

std::size_t lines_of(const fs::path& file) {
    std::istringstream in(read_text(file));
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) n += line.empty() ? 0 : 1;
    return n;
}

}  // namespace

TEST_CASE("stream: 2000 tasks with every collector at its highest level, artefacts counted") {
    // 4 streams, each in steps of 4 lanes + 1 reduce; a round (scope) is one step of each.
    constexpr std::uint64_t tasks = 2000, streams = 4, steps = tasks / 5, rounds = steps / streams;
    const sim_test::sim_run r = run_stream("all", {"--workload", "stream", "--tasks", std::to_string(tasks),
                                            "--chip-swimlane-level", "4", "--enable-dep-gen", "--enable-scope-stats",
                                            "--dump-args", "2", "--enable-pmu", "4"});
    CAPTURE(r.out);
    CAPTURE(r.err);
    REQUIRE(r.status == 0);
    CHECK(contains(r.out, "tasks run: 2000 of 2000 submitted (2000 dispatches to cores, 2000 retired)"));
    CHECK(contains(r.out, "kernel check: OK"));
    CHECK(contains(r.out, " tasks/s (wall)\n"));
    CHECK(!contains(r.out + r.err, "LOST"));
    for (const char* c : {"chip swimlane", "dep_gen", "scope stats", "args dump", "PMU"}) CHECK(produced_of(r.out, c) > 0);
    CHECK(produced_of(r.out, "dep_gen") == tasks);  // one record per submit (its arguments inside)

    // deps.json: every task, and the edges the steps imply: a stream's first
    // reduce waits on its 4 lanes; every later lane on its stream's last
    // reduce (its input) and on its own previous write (INOUT), every later
    // reduce on its 4 lanes and on the previous reduce (INOUT on the state).
    simdjson::dom::parser parser;
    simdjson::dom::element deps = parser.load((r.outputs() / "deps.json").string());
    CHECK(simdjson::dom::array(deps["tasks"]).size() == tasks);
    constexpr std::uint64_t edges = streams * 4 + (steps - streams) * (4 * 2 + 4 + 1);
    CHECK(simdjson::dom::array(deps["edges"]).size() == edges);
    CHECK(contains(r.out, "dependencies: " + std::to_string(edges) + " inferred"));

    // Level 4: one AICore row, one AICPU row and one orchestrator submit per task.
    simdjson::dom::parser records_parser;
    simdjson::dom::element records = records_parser.load((r.outputs() / "chip_swimlane_records.json").string());
    CHECK(simdjson::dom::array(records["aicore_tasks"]).size() == tasks);
    CHECK(simdjson::dom::array(records["aicpu_tasks"]).size() == tasks);
    std::uint64_t submits = 0;
    for (simdjson::dom::element lane : records["aicpu_orchestrator_phases"].get_array())
        submits += simdjson::dom::array(lane).size();
    CHECK(submits == tasks);

    // Scope stats: a begin and an end per scope (the root and one per round).
    CHECK(lines_of(r.outputs() / "scope_stats" / "scope_stats.jsonl") >= 2 * (rounds + 1));
    CHECK(lines_of(r.outputs() / "pmu.csv") == tasks + 1);  // a header, then a row per task
}

TEST_CASE("stream: a partial last round and a single task run and check") {
    for (const char* n : {"2003", "1", "6"}) {
        CAPTURE(n);
        const sim_test::sim_run r = run_stream(std::string("tail_") + n, {"--workload", "stream", "--tasks", n});
        CAPTURE(r.out);
        CHECK(r.status == 0);
        CHECK(contains(r.out, std::string("tasks run: ") + n + " of " + n + " submitted"));
        CHECK(contains(r.out, "kernel check: OK"));
        CHECK(!fs::exists(r.outputs()));  // no collector, no directory
    }
}

TEST_CASE("stream: a bad --tasks is one error line naming the flag, exit 2") {
    const std::vector<std::vector<std::string>> cases = {
        {"--workload", "stream", "--tasks", "0"},        {"--workload", "stream", "--tasks", "10000001"},
        {"--workload", "stream", "--tasks", "-5"},       {"--workload", "stream", "--tasks", "12k"},
        {"--workload", "stream", "--tasks", ""},         {"--workload", "stream", "--tasks", "99999999999999999999"},
        {"--workload", "chain", "--tasks", "100"},
    };
    int i = 0;
    for (const auto& args : cases) {
        CAPTURE(args.back());
        CAPTURE(args[1]);
        const sim_test::sim_run r = run_stream("bad_" + std::to_string(i++), args);
        CHECK(r.status == 2);
        CHECK(r.err.rfind("dfx-sim: error: --tasks: ", 0) == 0);
        CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
        CHECK(r.out.empty());
    }
}
