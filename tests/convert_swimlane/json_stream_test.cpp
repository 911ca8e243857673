// json_stream reads files in chunks: every token must survive a chunk
// boundary at any byte, and what it validates must not depend on chunking.
#include <doctest/doctest.h>

#include <string>
#include <vector>

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
