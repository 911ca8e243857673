// json_stream reads files in chunks: every token must survive a chunk
// boundary at any byte, and what it validates must not depend on chunking.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

#include "dfx/convert/common/json_stream.hpp"
#include "dfx/convert/swimlane/records_reader.hpp"
#include "scratch_dir.hpp"

using swimlane_test::scratch_dir;

namespace {

// Walks {"key": [elements...], ...} and returns "key=" + each captured element.
std::vector<std::string> walk(const std::string& path, std::size_t chunk) {
    dfx::convert::json_stream js(path, chunk);
    std::vector<std::string> out;
    js.enter_object();
    std::string key;
    while (js.next_key(key)) {
        if (js.peek() != '[') {
            js.skip();
            out.push_back(key + " skipped");
            continue;
        }
        js.enter_array();
        while (js.next_item()) {
            js.capture();
            out.push_back(key + "=" + std::string(js.captured_text()));
        }
    }
    js.expect_end();
    return out;
}

}  // namespace

TEST_CASE("json_stream: tokens split at every possible chunk boundary") {
    scratch_dir dir;
    const std::string doc = R"( { "a\"b\u00e9": [ [1, -2.5e+3, 18446744073709551615], {"k": "x\\y\/z\n"}, "str", true, null ],
        "skip": {"deep": [[[{"x": [false, 0.0, -0]}]]]}, "e": [] } )";
    const auto path = dir.write("doc.json", doc);
    const auto reference = walk(path, 1 << 20);
    REQUIRE(reference.size() == 6);
    CHECK(reference[0] == "a\"b\xc3\xa9=[1, -2.5e+3, 18446744073709551615]");
    CHECK(reference[1] == "a\"b\xc3\xa9={\"k\": \"x\\\\y\\/z\\n\"}");
    CHECK(reference[5] == "skip skipped");
    for (std::size_t chunk = 1; chunk <= 40; ++chunk) {
        CAPTURE(chunk);
        CHECK(walk(path, chunk) == reference);
    }
}

TEST_CASE("json_stream: truncation is reported at any cut") {
    scratch_dir dir;
    const std::string doc = R"({"a": [[1, 2], {"k": "v\"w"}], "b": true})";
    for (std::size_t cut = 0; cut < doc.size(); ++cut) {
        CAPTURE(cut);
        const auto path = dir.write("cut.json", doc.substr(0, cut));
        CHECK_THROWS_AS(walk(path, 3), dfx::convert::input_error);
    }
}

TEST_CASE("records reader: the result does not depend on the chunk size") {
    scratch_dir dir;
    const auto path = dir.write("r.json", R"({"chip_swimlane_level": 3,
      "metadata": {"clock_freq_hz": 50000000, "core_types": ["aic", "aiv"], "core_to_thread": [0, 1]},
      "aicore_tasks": [[0, 4294967296, 1, 1000120, 1000620, 5], [1, 4294967297, 1, 1000660, 1001160]],
      "aicpu_tasks": [[0, 1, 1000108, 1000630], [1, 1, 1000648, 1001170]],
      "aicpu_scheduler_phases": [[{"kind": "complete", "start_cycles": 1000625, "end_cycles": 1000640,
         "loop_iter": 40, "tasks_processed": 1, "shared_at_start": [0,0,0], "shared_at_end": [0,1,0]}], []]})");
    const auto whole = dfx::convert::swimlane::records_reader(path).read();
    for (std::size_t chunk = 1; chunk <= 64; chunk += 3) {
        CAPTURE(chunk);
        const auto r = dfx::convert::swimlane::records_reader(path, chunk).read();
        REQUIRE(r.aicore.size() == 2);
        CHECK(r.aicore[1].end == whole.aicore[1].end);
        CHECK(r.aicore[1].r2s == 0);
        CHECK(r.aicpu[1].finish == whole.aicpu[1].finish);
        REQUIRE(r.sched.size() == 2);
        CHECK(r.sched[0][0].depth_end[1] == 1);
        CHECK(r.meta.core_to_thread == whole.meta.core_to_thread);
        CHECK(r.base_cycles == whole.base_cycles);
    }
}

namespace {

// The "i" of each element of {"a": [{"i": ..., "s": ...}, ...]} through
// for_each_batch (checking "s" on the way).
std::vector<std::int64_t> batched(const std::string& path, std::size_t chunk, std::size_t batch_bytes) {
    dfx::convert::json_stream js(path, chunk);
    std::vector<std::int64_t> out;
    js.enter_object();
    std::string key;
    REQUIRE(js.next_key(key));
    js.enter_array();
    simdjson::ondemand::parser parser;
    js.for_each_batch(batch_bytes, [&](simdjson::padded_string_view batch, std::uint64_t) {
        auto doc = parser.iterate(batch);
        for (auto el : doc.get_array()) {
            simdjson::ondemand::object o = el.get_object();
            out.push_back(o["i"].get_int64());
            CHECK(std::string_view(o["s"].get_string()) == "x\"]");
        }
    });
    CHECK_FALSE(js.next_key(key));
    js.expect_end();
    return out;
}

std::string numbered_array(int n, std::string_view tail = "]") {
    std::string doc = R"({"a": [)";
    for (int i = 0; i < n; ++i) doc += (i ? ", " : "") + std::string(R"({"i": )") + std::to_string(i) + R"(, "s": "x\"]"})";
    return doc + std::string(tail) + "}";
}

}  // namespace

TEST_CASE("json_stream: for_each_batch scans ahead on a thread and keeps file order") {
    scratch_dir dir;
    const auto path = dir.write("many.json", numbered_array(2000));
    const auto one_batch = batched(path, 1 << 20, 1 << 30);  // the whole array in one batch: no thread
    REQUIRE(one_batch.size() == 2000);
    CHECK(one_batch[1999] == 1999);
    for (const std::size_t batch_bytes : {1u, 64u, 1000u}) {
        for (const std::size_t chunk : {7u, 4096u}) {
            CAPTURE(batch_bytes);
            CAPTURE(chunk);
            CHECK(batched(path, chunk, batch_bytes) == one_batch);
        }
    }
    const auto small = dir.write("small.json", R"({"a": []})");
    CHECK(batched(small, 3, 1).empty());
}

TEST_CASE("json_stream: for_each_batch reports a scan error after the batches before it") {
    scratch_dir dir;
    const auto path = dir.write("bad.json", numbered_array(500, ", }]"));
    dfx::convert::json_stream js(path, 64);
    js.enter_object();
    std::string key;
    REQUIRE(js.next_key(key));
    js.enter_array();
    std::size_t batches = 0;
    std::uint64_t last_end = 0;
    CHECK_THROWS_WITH_AS(js.for_each_batch(100,
                                           [&](simdjson::padded_string_view, std::uint64_t end) {
                                               CHECK(end > last_end);  // batches arrive in file order
                                               last_end = end;
                                               ++batches;
                                           }),
                         doctest::Contains("unexpected character '}'"), dfx::convert::input_error);
    CHECK(batches > 10);  // everything before the error was delivered first
}

TEST_CASE("json_stream: an exception from the batch callback stops the scan-ahead thread") {
    scratch_dir dir;
    const auto path = dir.write("many.json", numbered_array(3000));
    struct stop_here {};
    for (int stop_at : {0, 1, 5}) {
        CAPTURE(stop_at);
        dfx::convert::json_stream js(path, 128);
        js.enter_object();
        std::string key;
        REQUIRE(js.next_key(key));
        js.enter_array();
        int seen = 0;
        CHECK_THROWS_AS(js.for_each_batch(50,
                                          [&](simdjson::padded_string_view, std::uint64_t) {
                                              if (seen++ == stop_at) throw stop_here{};
                                          }),
                        stop_here);
        CHECK(seen == stop_at + 1);
    }
}

TEST_CASE("json_stream: for_each_batch reports truncation at any cut") {
    scratch_dir dir;
    const std::string doc = numbered_array(40);
    for (std::size_t cut = 8; cut < doc.size(); cut += 5) {
        CAPTURE(cut);
        const auto path = dir.write("cut.json", doc.substr(0, cut));
        CHECK_THROWS_AS(batched(path, 16, 30), dfx::convert::input_error);
    }
}

TEST_CASE("records reader: scanning ahead gives the same records and names the failing row") {
    scratch_dir dir;
    std::string rows;
    for (int i = 0; i < 400; ++i) {
        rows += fmt::format("{}[{}, {}, {}, {}, {}, 5]", i ? ", " : "", i % 4, 4294967296 + i, i + 1, 1000000 + 10 * i,
                            1000005 + 10 * i);
    }
    const std::string head = R"({"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 50000000}, "aicore_tasks": [)";
    const auto path = dir.write("r.json", head + rows + "]}");
    const auto whole = dfx::convert::swimlane::records_reader(path).read();
    const auto ahead = dfx::convert::swimlane::records_reader(path, 64, 100).read();
    REQUIRE(ahead.aicore.size() == 400);
    for (std::size_t i = 0; i < 400; ++i) {
        CHECK(ahead.aicore[i].end == whole.aicore[i].end);
        CHECK(ahead.aicore[i].reg == whole.aicore[i].reg);
    }
    const auto bad = dir.write("bad.json", head + rows + R"(, [0, 1, -2, 3, 4, 5]]})");
    CHECK_THROWS_WITH_AS(dfx::convert::swimlane::records_reader(bad, 64, 100).read(),
                         doctest::Contains("aicore_tasks[400]: reg_task_id must not be negative"),
                         dfx::convert::input_error);
}
