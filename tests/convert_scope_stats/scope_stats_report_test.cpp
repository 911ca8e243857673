#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "dfx/convert/scope_stats/scope_stats_html.hpp"

namespace {

// The spec's example (scope-stats-and-framework.md 1.6), copied by hand.
constexpr const char* spec_example =
    R"({"version": 6, "fatal": false, "dropped": 0, "total": 6, "task_window_max": [16384, 16384, 16384, 16384], "heap_max": [268435456, 268435456, 268435456, 268435456], "dep_pool_max": [16384, 16384, 16384, 16384], "tensormap_max": 65536}
{"site": "(unknown):0", "phase": "begin", "depth": 0, "ring": 0, "task_window_start": 0, "task_window_end": 0, "heap_start": 0, "heap_end": 0, "dep_pool_start": 1, "dep_pool_end": 1, "tensormap": 0}
{"site": "my_orch.cpp:40", "phase": "begin", "depth": 1, "ring": 1, "task_window_start": 0, "task_window_end": 0, "heap_start": 0, "heap_end": 0, "dep_pool_start": 1, "dep_pool_end": 1, "tensormap": 0}
{"site": "my_orch.cpp:44", "phase": "begin", "depth": 2, "ring": 2, "task_window_start": 0, "task_window_end": 0, "heap_start": 0, "heap_end": 0, "dep_pool_start": 1, "dep_pool_end": 1, "tensormap": 3}
{"site": "my_orch.cpp:44", "phase": "end", "depth": 2, "ring": 2, "task_window_start": 0, "task_window_end": 2, "heap_start": 0, "heap_end": 8192, "dep_pool_start": 1, "dep_pool_end": 3, "tensormap": 5}
{"site": "my_orch.cpp:40", "phase": "end", "depth": 1, "ring": 1, "task_window_start": 1, "task_window_end": 3, "heap_start": 4096, "heap_end": 12288, "dep_pool_start": 1, "dep_pool_end": 3, "tensormap": 5}
{"site": "(unknown):0", "phase": "end", "depth": 0, "ring": 0, "task_window_start": 0, "task_window_end": 0, "heap_start": 0, "heap_end": 0, "dep_pool_start": 1, "dep_pool_end": 1, "tensormap": 5}
)";

std::string write_temp(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
}

std::string error_of(const std::string& text) {
    const std::string path = write_temp("dfx_bad_scope_stats.jsonl", text);
    try {
        (void)dfx::convert::read_scope_stats(path);
    } catch (const dfx::convert::input_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("pairs and metrics: the spec's derived values for ring 1") {
    const auto file = dfx::convert::read_scope_stats(write_temp("dfx_spec_scope_stats.jsonl", spec_example));
    CHECK(file.meta.version == 6);
    CHECK(file.meta.total == 6);
    CHECK(file.meta.heap_max[1] == 268435456);
    REQUIRE(file.records.size() == 6);

    const auto pairs = dfx::convert::pair_scopes(file);
    CHECK(pairs.pair_count() == 3);
    CHECK(pairs.unmatched_ends == 0);
    CHECK(pairs.unpaired_begins == 0);
    REQUIRE(pairs.by_ring[1].size() == 1);
    const auto& ring1 = pairs.by_ring[1][0];
    // "task_window: high water 3, live at exit 2, alloc 3; heap: high water 12,288 B, live 8,192 B, alloc 12,288 B"
    CHECK(ring1.high_water[0] == 3);
    CHECK(ring1.live[0] == 2);
    CHECK(ring1.alloc[0] == 3);
    CHECK(ring1.high_water[1] == 12288);
    CHECK(ring1.live[1] == 8192);
    CHECK(ring1.alloc[1] == 12288);
    // tensormap: pairs from every ring in end-record order (ring 2's end comes first)
    REQUIRE(pairs.tensormap.size() == 3);
    CHECK(pairs.tensormap[0]->ring == 2);
    CHECK(pairs.tensormap[2]->ring == 0);
    CHECK(pairs.tensormap[2]->tensormap == 5);
}

TEST_CASE("the report is self-contained and shows each ring's panel and the peaks") {
    const auto file = dfx::convert::read_scope_stats(write_temp("dfx_spec_scope_stats.jsonl", spec_example));
    const std::string html = dfx::convert::render_scope_stats_html(file, "scope_stats.jsonl");
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("http") == std::string::npos);  // nothing fetched from anywhere
    CHECK(html.find("Healthy: no fatal, no dropped") != std::string::npos);
    CHECK(html.find("3 total paired scopes") != std::string::npos);
    CHECK(html.find("task_window &middot; ring_depth 1 &middot; 1 scopes &middot; peak 3 slots (0.02% of capacity)") !=
          std::string::npos);
    CHECK(html.find("tensormap &middot; global &middot; peak 5 entries") != std::string::npos);
    CHECK(html.find("<svg class=\"chart\"") != std::string::npos);
    CHECK(html.find("<td>heap</td><td>ring_depth 1</td><td>scope_high_water</td><td>0.01 MiB</td>") !=
          std::string::npos);
}

TEST_CASE("the reference's file: every scope pairs up") {
    const auto file =
        dfx::convert::read_scope_stats(std::string(DFX_CONFORMANCE_DIR) + "/l3_deps/scope_stats/scope_stats.jsonl");
    CHECK(file.records.size() == file.meta.total);
    const auto pairs = dfx::convert::pair_scopes(file);
    CHECK(pairs.pair_count() * 2 == file.records.size());
    CHECK(pairs.unmatched_ends == 0);
    CHECK(pairs.unpaired_begins == 0);
    const std::string html = dfx::convert::render_scope_stats_html(file, "scope_stats.jsonl");
    CHECK(html.find("Dominant scope site") != std::string::npos);
}

TEST_CASE("the dominant site: most paired scopes, a tie to the name first in byte order") {
    // Sites are ids in first-seen order; the page must not follow that order.
    const auto scope = [](const char* site, const char* phase) {
        return std::string(R"({"site": ")") + site + R"(", "phase": ")" + phase + R"(", "depth": 1, "ring": 1})" + "\n";
    };
    const std::string head = R"({"version": 6, "fatal": false, "dropped": 0, "total": 4})" "\n";
    const std::string tie = head + scope("b.cpp:2", "begin") + scope("b.cpp:2", "end") + scope("a.cpp:1", "begin") +
                            scope("a.cpp:1", "end");
    CHECK(dfx::convert::render_scope_stats_html(dfx::convert::read_scope_stats(write_temp("dfx_tie_scope_stats.jsonl", tie)), "x")
              .find("Dominant scope site: <b>a.cpp:1</b> (1 paired scopes)") != std::string::npos);
    std::string more = R"({"version": 6, "fatal": false, "dropped": 0, "total": 6})" "\n";
    more += scope("b.cpp:2", "begin") + scope("b.cpp:2", "end") + scope("a.cpp:1", "begin") + scope("a.cpp:1", "end") +
            scope("b.cpp:2", "begin") + scope("b.cpp:2", "end");
    CHECK(dfx::convert::render_scope_stats_html(dfx::convert::read_scope_stats(write_temp("dfx_more_scope_stats.jsonl", more)), "x")
              .find("Dominant scope site: <b>b.cpp:2</b> (2 paired scopes)") != std::string::npos);
}

TEST_CASE("paired as read (dfx scope-stats): the page the kept records give") {
    for (const std::string& path : {write_temp("dfx_spec_scope_stats.jsonl", spec_example),
                                    std::string(DFX_CONFORMANCE_DIR) + "/l3_deps/scope_stats/scope_stats.jsonl"}) {
        CAPTURE(path);
        const auto kept = dfx::convert::read_scope_stats(path);
        dfx::convert::scope_pairer pairer;
        const auto streamed =
            dfx::convert::read_scope_stats(path, [&](const dfx::convert::scope_boundary& b) { pairer.add(b); });
        CHECK(streamed.records.empty());
        const auto pairs = std::move(pairer).finish();
        CHECK(pairs.pair_count() == dfx::convert::pair_scopes(kept).pair_count());
        std::string page;
        dfx::convert::write_scope_stats_html(page, streamed, pairs, "scope_stats.jsonl");
        CHECK(page == dfx::convert::render_scope_stats_html(kept, "scope_stats.jsonl"));
    }
}

TEST_CASE("fatal and dropped runs are flagged") {
    std::string fatal = spec_example;
    fatal.replace(fatal.find("\"fatal\": false"), 14, "\"fatal\": true");
    const auto file = dfx::convert::read_scope_stats(write_temp("dfx_fatal_scope_stats.jsonl", fatal));
    CHECK(dfx::convert::render_scope_stats_html(file, "x").find(">Fatal<") != std::string::npos);
}

TEST_CASE("bad input: one error naming the file and line") {
    CHECK(error_of("{\"version\": 6}\n{\"site\": \"a:1\", \"phase\": \"begin\"").find(":2: not a JSON object") !=
          std::string::npos);
    CHECK(error_of("{\"version\": 6}\n{\"site\": \"a:1\", \"ring\": 0}\n").find(
              ":2: a scope record needs \"site\", \"phase\" and \"ring\"") != std::string::npos);
    CHECK(error_of("{\"version\": 6}\n{\"site\": \"a:1\", \"phase\": \"middle\", \"ring\": 0}\n")
              .find(":2: \"phase\": expected \"begin\" or \"end\"") != std::string::npos);
    CHECK(error_of("{\"version\": 6}\n{\"site\": \"a:1\", \"phase\": \"end\", \"ring\": 7}\n")
              .find(":2: \"ring\": ring in [0, 3] expected") != std::string::npos);
    CHECK(error_of("{\"version\": 6, \"heap_max\": [1, 2, 3, 4, 5]}\n").find("more than 4 entries") != std::string::npos);
    CHECK(error_of("{\"version\": 6}\n{\"site\": \"a:1\", \"phase\": \"end\", \"ring\": 0, \"heap_start\": \"x\"}\n")
              .find("\"heap_start\": expected a non-negative integer") != std::string::npos);
    // Checked, not trusted: a negative or fractional level, a repeated key, and a file whose
    // rows do not add up to its metadata's total (issue 18).
    CHECK(error_of("{\"version\": 6}\n{\"site\": \"a:1\", \"phase\": \"end\", \"ring\": 0, \"heap_start\": -5}\n")
              .find(":2: \"heap_start\": expected a non-negative integer") != std::string::npos);
    CHECK(error_of("{\"version\": 6}\n{\"site\": \"a:1\", \"phase\": \"end\", \"ring\": 0, \"heap_start\": 1.5}\n")
              .find("expected a non-negative integer") != std::string::npos);
    CHECK(error_of("{\"version\": 6}\n{\"site\": \"a:1\", \"site\": \"b:2\", \"phase\": \"end\", \"ring\": 0}\n")
              .find(":2: duplicate key \"site\"") != std::string::npos);
    // A key with a control character in it (escaped in the file) stays on one line.
    CHECK(error_of("{\"version\": 6, \"\\u000a\": 1, \"\\n\": 2}\n").find(":1: duplicate key \"\\x0a\"") != std::string::npos);
    CHECK(error_of("{\"version\": 6}\n{\"site\": \"a:1\", \"\\n\": 1, \"\\n\": 2}\n").find(":2: duplicate key \"\\x0a\"") !=
          std::string::npos);
    // Trailing data after a line's object (a comma flipped to '}' in CI's mutation run): the
    // rest of the row would be dropped silently.
    CHECK(error_of("{\"version\": 6}\n{\"site\": \"a:1\", \"phase\": \"end\"} \"ring\": 0}\n")
              .find(":2: trailing data after the JSON object") != std::string::npos);
    CHECK(error_of("{\"version\": 6} \"total\": 1}\n{\"site\": \"a:1\", \"phase\": \"end\", \"ring\": 0}\n")
              .find(":1: trailing data after the JSON object") != std::string::npos);
    CHECK(error_of("").find("file is empty") != std::string::npos);
    CHECK(error_of("{\"version\": 6, \"total\": 0}\n").find("no scope records") != std::string::npos);
    std::string short_file = spec_example;
    short_file.erase(short_file.rfind('{'));  // the last record gone: 5 rows, total 6
    CHECK(error_of(short_file).find("says total 6 records (0 dropped), but the file has 5") != std::string::npos);
    CHECK_THROWS_WITH_AS(dfx::convert::read_scope_stats("/nonexistent/scope_stats.jsonl"),
                         "/nonexistent/scope_stats.jsonl: cannot open: No such file or directory", dfx::convert::input_error);
}

TEST_CASE("long runs are drawn as a min/max envelope with the exact peak, in bounded size") {
    // 5000 depth-1 scopes on one site, each holding 2 task slots, but scope
    // #3777 holds 900: the spike must survive the bucketing and be the marked peak.
    std::string text =
        R"({"version": 6, "fatal": false, "dropped": 0, "total": 10000, "task_window_max": [16384, 16384, 16384, 16384], "heap_max": [268435456, 268435456, 268435456, 268435456], "dep_pool_max": [16384, 16384, 16384, 16384], "tensormap_max": 65536})"
        "\n";
    const auto line = [](const char* phase, int start, int end) {
        return std::string(R"({"site": "loop.cpp:7", "phase": ")") + phase +
               R"(", "depth": 1, "ring": 1, "task_window_start": )" + std::to_string(start) +
               R"(, "task_window_end": )" + std::to_string(end) + "}\n";
    };
    int pos = 0;
    for (int i = 0; i < 5000; ++i) {
        const int held = i == 3777 ? 900 : 2;
        text += line("begin", pos, pos);
        text += line("end", pos, pos + held);
        pos += held;
    }
    const auto file = dfx::convert::read_scope_stats(write_temp("dfx_long_scope_stats.jsonl", text));
    const std::string html = dfx::convert::render_scope_stats_html(file, "long.jsonl");
    CHECK(html.find("5000 scopes: lines join the min and max of each 10") != std::string::npos);
    CHECK(html.find("High water: scope #3777, y=900,") != std::string::npos);  // the peak's own marker
    CHECK(html.find("High water: scope #3776,") == std::string::npos);         // no per-point markers
    CHECK(html.find("<td>task_window</td><td>ring_depth 1</td><td>scope_high_water</td><td>900 slots</td>") !=
          std::string::npos);
    CHECK(html.size() < 200000);  // every point marked would be about 1.5 MB
}

namespace {

// The y tick labels of a chart (right-aligned texts; x ticks are centred).
std::vector<std::string> y_ticks(const std::string& svg) {
    std::vector<std::string> out;
    const std::string open = "text-anchor=\"end\">";
    for (std::size_t at = svg.find(open); at != std::string::npos; at = svg.find(open, at + 1)) {
        const std::size_t b = at + open.size();
        out.push_back(svg.substr(b, svg.find('<', b) - b));
    }
    return out;
}

}  // namespace

TEST_CASE("charts: a labelled y axis, ticks printed once each, the capacity on or off scale") {
    using namespace dfx::convert::detail;
    const unit mib{"MiB", 1048576.0}, slots{"slots", 1};
    dfx::convert::scope_sites names;
    const std::vector<std::uint32_t> sites(3, names.intern("a.cpp:1"));
    // A chart over three scopes of one site, as a string. (The series view
    // their values: the vectors are temporaries of the calling expression.)
    const auto draw = [&](const std::vector<series>& lines, double capacity, const unit& u, const char* y_label) {
        std::string svg;
        dfx::convert::detail::line_chart(svg, lines, sites, names, capacity, u, y_label);
        return svg;
    };
    using values = std::vector<double>;

    SUBCASE("an all-zero chart has the one tick 0 and says so") {
        const std::string svg = draw({{"High water", "#dc2626", values{0, 0, 0}}}, 0, mib, "MiB in use");
        CHECK(y_ticks(svg) == std::vector<std::string>{"0"});
        CHECK(svg.find("every value is 0") != std::string::npos);
    }
    SUBCASE("MiB ticks at a step in MiB, with the decimals the step needs") {
        // A peak of 0.9 MiB: y up to 0.99 MiB, a 0.2 MiB step.
        const std::string svg = draw({{"High water", "#dc2626", values{0, 0.9 * 1048576, 0.3 * 1048576}}}, 0, mib, "MiB in use");
        CHECK(y_ticks(svg) == std::vector<std::string>{"0.0", "0.2", "0.4", "0.6", "0.8"});
        CHECK(svg.find(">MiB in use</text>") != std::string::npos);
        // A peak of 3.3 MiB: a 1 MiB step (not 0.75: 0.00, 0.75, 1.50, ...).
        const std::string big = draw({{"High water", "#dc2626", values{0, 3.3 * 1048576, 0}}}, 0, mib, "MiB in use");
        CHECK(y_ticks(big) == std::vector<std::string>{"0", "1", "2", "3"});
    }
    SUBCASE("a capacity within reach of the data is a dashed line with a legend entry") {
        const std::string svg = draw({{"High water", "#dc2626", values{10, 50, 30}}}, 100, slots, "slots in use");
        CHECK(svg.find("class=\"capacity\"") != std::string::npos);
        CHECK(svg.find("</svg> capacity</span>") != std::string::npos);
        CHECK(svg.find("off scale") == std::string::npos);
    }
    SUBCASE("a capacity far above the data is named as off scale, not drawn") {
        const std::string svg = draw({{"High water", "#dc2626", values{10, 50, 30}}}, 16384, slots, "slots in use");
        CHECK(svg.find("class=\"capacity\"") == std::string::npos);
        CHECK(svg.find("capacity 16384 slots is off scale: the peak uses 0.31% of it") != std::string::npos);
    }
    SUBCASE("a second line drawn over the first is dashed, in the chart and its legend") {
        const std::string svg = draw({{"High water", "#dc2626", values{1, 2, 3}}, {"Live at exit", "#059669", values{1, 2, 3}, "5 4"}},
                                     0, slots, "slots in use");
        CHECK(svg.find("stroke=\"#059669\" stroke-width=\"2\" stroke-dasharray=\"5 4\" points=") != std::string::npos);
        CHECK(svg.find("stroke=\"#059669\" stroke-width=\"2\" stroke-dasharray=\"5 4\"/></svg> Live at exit") != std::string::npos);
    }
}
