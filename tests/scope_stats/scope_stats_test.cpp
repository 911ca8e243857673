#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <simdjson.h>

#include "dfx/collect.hpp"
#include "dfx/output/scope_stats_host.hpp"

namespace {

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

using set = dfx::collectors<dfx::swimlane_level<0>, dfx::dump_level<0>, dfx::pmu_event<0>, dfx::dep_gen<false>,
                            dfx::scope_stats<true>>;
using sink_type = dfx::orchestrator_sink<set::orchestrator, dfx::block<>>;
using view_type = dfx::orchestrator_view<set::orchestrator, dfx::steady_clock_source, sink_type>;

dfx::ring_capacities default_capacities() {
    dfx::ring_capacities c;
    c.task_window.fill(16384);
    c.heap.fill(268435456);
    c.dep_pool.fill(16384);
    c.tensormap = 65536;
    return c;
}

// Runs `body` on an orchestrator view whose records go through a real
// scope_stats_host, and returns the file it writes.
template <class Body>
std::string run(Body body, dfx::ring_capacities caps = default_capacities()) {
    dfx::channel_registry channels;
    dfx::scope_stats_host<> host(channels, {2, 4});  // tiny buffers: many switches
    for (int r = 0; r < dfx::scope_ring_count; ++r)
        host.set_ring_capacity(r, caps.task_window[static_cast<std::size_t>(r)], caps.heap[static_cast<std::size_t>(r)],
                               caps.dep_pool[static_cast<std::size_t>(r)]);
    host.set_tensormap_capacity(caps.tensormap);
    host.start();
    {
        auto sink = channels.sink<sink_type>(0);
        view_type view{&sink};
        for (int r = 0; r < dfx::scope_ring_count; ++r) view.set_heap_capacity(r, caps.heap[static_cast<std::size_t>(r)]);
        body(view);
    }
    host.stop();
    for (const auto& r : host.report()) CHECK(r.balanced());
    const auto dir = std::filesystem::temp_directory_path() / "dfx_scope_stats_test";
    std::filesystem::remove_all(dir);
    return read_file(host.write(dir));
}

dfx::scope_sample sample(int tail, int head, std::uint64_t reclaim, std::uint64_t alloc, int dp_tail, int dp_top,
                         int tensormap) {
    return {tail, head, reclaim, alloc, dp_tail, dp_top, tensormap};
}

}  // namespace

TEST_CASE("the spec's example (scope-stats-and-framework.md 1.6), written by hand") {
    const std::string text = run([](view_type& v) {
        v.scope_begin([] { return sample(0, 0, 0, 0, 1, 1, 0); }, nullptr, 0);  // the root scope: no site
        v.scope_begin([] { return sample(0, 0, 0, 0, 1, 1, 0); }, "/src/orch/my_orch.cpp", 40);
        v.scope_begin([] { return sample(0, 0, 0, 0, 1, 1, 3); }, "my_orch.cpp", 44);
        v.scope_end([] { return sample(0, 2, 0, 8192, 1, 3, 5); });
        v.scope_end([] { return sample(1, 3, 4096, 12288, 1, 3, 5); });
        v.scope_end([] { return sample(0, 0, 0, 0, 1, 1, 5); });
    });
    CHECK(text ==
          R"({"version": 6, "fatal": false, "dropped": 0, "total": 6, "task_window_max": [16384, 16384, 16384, 16384], "heap_max": [268435456, 268435456, 268435456, 268435456], "dep_pool_max": [16384, 16384, 16384, 16384], "tensormap_max": 65536}
{"site": "(unknown):0", "phase": "begin", "depth": 0, "ring": 0, "task_window_start": 0, "task_window_end": 0, "heap_start": 0, "heap_end": 0, "dep_pool_start": 1, "dep_pool_end": 1, "tensormap": 0}
{"site": "my_orch.cpp:40", "phase": "begin", "depth": 1, "ring": 1, "task_window_start": 0, "task_window_end": 0, "heap_start": 0, "heap_end": 0, "dep_pool_start": 1, "dep_pool_end": 1, "tensormap": 0}
{"site": "my_orch.cpp:44", "phase": "begin", "depth": 2, "ring": 2, "task_window_start": 0, "task_window_end": 0, "heap_start": 0, "heap_end": 0, "dep_pool_start": 1, "dep_pool_end": 1, "tensormap": 3}
{"site": "my_orch.cpp:44", "phase": "end", "depth": 2, "ring": 2, "task_window_start": 0, "task_window_end": 2, "heap_start": 0, "heap_end": 8192, "dep_pool_start": 1, "dep_pool_end": 3, "tensormap": 5}
{"site": "my_orch.cpp:40", "phase": "end", "depth": 1, "ring": 1, "task_window_start": 1, "task_window_end": 3, "heap_start": 4096, "heap_end": 12288, "dep_pool_start": 1, "dep_pool_end": 3, "tensormap": 5}
{"site": "(unknown):0", "phase": "end", "depth": 0, "ring": 0, "task_window_start": 0, "task_window_end": 0, "heap_start": 0, "heap_end": 0, "dep_pool_start": 1, "dep_pool_end": 1, "tensormap": 5}
)");
}

TEST_CASE("the site defaults to the caller's file and line") {
    const std::string text = run([](view_type& v) {
        v.scope_begin([] { return dfx::scope_sample{}; });
        v.scope_end([] { return dfx::scope_sample{}; });
    });
    CHECK(text.find("\"site\": \"scope_stats_test.cpp:" + std::to_string(__LINE__ - 3) + "\", \"phase\": \"begin\"") !=
          std::string::npos);
}

TEST_CASE("heap offsets are unrolled across wraps, per ring and side") {
    auto caps = default_capacities();
    caps.heap = {1024, 4096, 1024, 1024};
    const std::string text = run(
        [](view_type& v) {
            v.scope_begin([] { return dfx::scope_sample{}; }, nullptr, 0);
            v.scope_begin([] { return sample(0, 0, 100, 200, 1, 1, 0); }, "a.cpp", 1);  // ring 1
            v.heap_wrapped(dfx::heap_side::alloc);
            v.heap_wrapped(dfx::heap_side::alloc);
            v.heap_wrapped(dfx::heap_side::reclaim);
            v.scope_end([] { return sample(0, 9, 50, 300, 1, 1, 0); });
            v.scope_end([] { return dfx::scope_sample{}; });
            v.heap_wrapped(dfx::heap_side::alloc);  // outside any scope: charged to no ring
        },
        caps);
    // begin: no wraps yet; end: reclaim 50 + 1 x 4096, alloc 300 + 2 x 4096.
    CHECK(text.find("\"site\": \"a.cpp:1\", \"phase\": \"begin\", \"depth\": 1, \"ring\": 1, \"task_window_start\": 0, "
                    "\"task_window_end\": 0, \"heap_start\": 100, \"heap_end\": 200,") != std::string::npos);
    CHECK(text.find("\"site\": \"a.cpp:1\", \"phase\": \"end\", \"depth\": 1, \"ring\": 1, \"task_window_start\": 0, "
                    "\"task_window_end\": 9, \"heap_start\": 4146, \"heap_end\": 8492,") != std::string::npos);
    CHECK(text.find("\"heap_max\": [1024, 4096, 1024, 1024]") != std::string::npos);
}

TEST_CASE("a site is written as the reference writes it, UTF-8 as is, and still valid JSON") {
    // The reference prints the site unescaped: a UTF-8 file name comes out as
    // its bytes. A quote or a control character, which would break the
    // reference's line, is escaped.
    const std::string text = run([](view_type& v) {
        v.scope_begin([] { return dfx::scope_sample{}; }, nullptr, 0);
        v.scope_begin([] { return dfx::scope_sample{}; }, "caf\xc3\xa9.cpp", 3);
        v.scope_begin([] { return dfx::scope_sample{}; }, "a\"b\x01" "c\td.cpp", 4);  // no / or \\: those start the basename
        v.scope_end([] { return dfx::scope_sample{}; });
        v.scope_end([] { return dfx::scope_sample{}; });
        v.scope_end([] { return dfx::scope_sample{}; });
    });
    CHECK(text.find("{\"site\": \"caf\xc3\xa9.cpp:3\", \"phase\": \"begin\"") != std::string::npos);
    CHECK(text.find(R"({"site": "a\"b\u0001c\td.cpp:4", "phase": "begin")") != std::string::npos);
}

TEST_CASE("rings stop at 3; scopes beyond the depth cap are not recorded, begin nor end") {
    const std::string text = run([](view_type& v) {
        for (int d = 0; d < 70; ++d) v.scope_begin([] { return dfx::scope_sample{}; }, "deep.cpp", d);
        for (int d = 0; d < 70; ++d) v.scope_end([] { return dfx::scope_sample{}; });
    });
    std::istringstream lines(text);
    std::string line;
    std::getline(lines, line);
    CHECK(line.find("\"total\": 128") != std::string::npos);
    int begins = 0, ends = 0, max_depth = -1, max_ring = -1;
    std::vector<int> open;  // begin/end must pair up like brackets
    bool paired = true;
    simdjson::dom::parser parser;
    while (std::getline(lines, line)) {
        simdjson::dom::element e = parser.parse(line);
        const int depth = static_cast<int>(int64_t(e["depth"]));
        const int ring = static_cast<int>(int64_t(e["ring"]));
        CHECK(ring == (depth < 3 ? depth : 3));
        if (std::string_view(e["phase"]) == "begin") {
            ++begins;
            open.push_back(depth);
        } else {
            ++ends;
            paired = paired && !open.empty() && open.back() == depth;
            if (!open.empty()) open.pop_back();
        }
        max_depth = std::max(max_depth, depth);
        max_ring = std::max(max_ring, ring);
    }
    CHECK(begins == 64);
    CHECK(ends == 64);
    CHECK(paired);
    CHECK(open.empty());
    CHECK(max_depth == 63);
    CHECK(max_ring == 3);
}

TEST_CASE("a fatal in the middle of a scope latches, flushes, and stops recording") {
    const std::string text = run([](view_type& v) {
        v.scope_begin([] { return dfx::scope_sample{}; }, nullptr, 0);
        v.scope_begin([] { return dfx::scope_sample{}; }, "f.cpp", 7);
        v.fatal();
        v.scope_end([] { return dfx::scope_sample{}; });  // ignored: the orchestrator is dead
        v.scope_begin([] { return dfx::scope_sample{}; }, "f.cpp", 9);
    });
    std::istringstream lines(text);
    std::string line;
    std::getline(lines, line);
    CHECK(line.rfind("{\"version\": 6, \"fatal\": true, \"dropped\": 0, \"total\": 2,", 0) == 0);
    int records = 0;
    while (std::getline(lines, line)) ++records;
    CHECK(records == 2);
    CHECK(text.find("f.cpp:7") != std::string::npos);
    CHECK(text.find("f.cpp:9") == std::string::npos);
}

TEST_CASE("the reference's scope_stats.jsonl round-trips byte for byte") {
    const std::string path = std::string(DFX_CONFORMANCE_DIR) + "/l3_deps/scope_stats/scope_stats.jsonl";
    const std::string expected = read_file(path);
    std::istringstream lines(expected);
    std::string line;
    simdjson::dom::parser parser;
    std::getline(lines, line);
    simdjson::dom::element meta = parser.parse(line);
    dfx::scope_stats_capture_summary summary;
    summary.fatal = bool(meta["fatal"]);
    summary.dropped = uint64_t(meta["dropped"]);
    summary.total = uint64_t(meta["total"]);
    for (int r = 0; r < 4; ++r) {
        summary.capacities.task_window[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(int64_t(meta["task_window_max"].at(static_cast<std::size_t>(r))));
        summary.capacities.heap[static_cast<std::size_t>(r)] = uint64_t(meta["heap_max"].at(static_cast<std::size_t>(r)));
        summary.capacities.dep_pool[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(int64_t(meta["dep_pool_max"].at(static_cast<std::size_t>(r))));
    }
    summary.capacities.tensormap = static_cast<std::int32_t>(int64_t(meta["tensormap_max"]));
    std::vector<dfx::scope_stats_record> records;
    while (std::getline(lines, line)) {
        simdjson::dom::element e = parser.parse(line);
        dfx::scope_stats_record r;
        const std::string site{std::string_view(e["site"])};
        const auto colon = site.rfind(':');
        site.copy(r.site, colon);
        r.site_line = std::stoi(site.substr(colon + 1));
        r.phase = std::string_view(e["phase"]) == "begin" ? dfx::scope_phase::begin : dfx::scope_phase::end;
        r.depth = static_cast<std::int16_t>(int64_t(e["depth"]));
        r.ring = static_cast<std::int16_t>(int64_t(e["ring"]));
        r.task_start = static_cast<std::int32_t>(int64_t(e["task_window_start"]));
        r.task_end = static_cast<std::int32_t>(int64_t(e["task_window_end"]));
        r.heap_start = uint64_t(e["heap_start"]);
        r.heap_end = uint64_t(e["heap_end"]);
        r.dep_pool_start = static_cast<std::int32_t>(int64_t(e["dep_pool_start"]));
        r.dep_pool_end = static_cast<std::int32_t>(int64_t(e["dep_pool_end"]));
        r.tensormap_used = static_cast<std::int32_t>(int64_t(e["tensormap"]));
        records.push_back(r);
    }
    REQUIRE(records.size() == 20);
    char* data = nullptr;
    std::size_t size = 0;
    std::FILE* f = open_memstream(&data, &size);
    {
        dfx::text_writer out(f);
        dfx::write_scope_stats_jsonl(out, summary, records);
    }
    std::fclose(f);
    const std::string ours(data, size);
    std::free(data);
    CHECK(ours == expected);
}
