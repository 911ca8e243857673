// json_object_stream's batches: runs of an array's elements delivered as one
// "[...]" document, flat or one level down (lanes of phases), must not depend
// on where the blocks or the batches are cut, must keep file order through
// the pipelined handler, and must locate every element in the file. The
// records reader built on them gives the same records whatever the cuts.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

#include "dfx/convert/common/json_object_stream.hpp"
#include "dfx/convert/common/pipelined_handler.hpp"
#include "dfx/convert/swimlane/records_reader.hpp"
#include "../support/scratch_dir.hpp"

using dfx::convert::element_batch;
using dfx::convert::input_error;
using dfx::convert::json_member_handler;
using dfx::convert::json_object_stream;
using dfx::convert::member_use;
using test_support::scratch_dir;

namespace {

// Records every delivery as text: "key[outer](first)=element" for each
// element of a batch (split back out with simdjson), "key@offset" checks
// that value_offset points at the element's first byte in the file.
struct batch_recorder final : json_member_handler {
    explicit batch_recorder(std::string file_text) : file(std::move(file_text)) {}
    std::string file;
    std::vector<std::string> seen;
    std::size_t batches = 0;
    simdjson::ondemand::parser parser;
    simdjson::dom::parser dom;

    member_use use(std::string_view key) override {
        if (key == "flat") return member_use::batches;
        if (key == "lanes") return member_use::nested_batches;
        if (key == "counted") return member_use::lanes_only;
        return member_use::skip;
    }
    void value(std::string_view key, simdjson::padded_string_view json) override {
        seen.push_back(fmt::format("{} value {}", key, std::string_view(json)));
    }
    void element(std::string_view key, std::size_t index, simdjson::padded_string_view json) override {
        seen.push_back(fmt::format("{}[{}] not an array: {}", key, index, std::string_view(json)));
    }
    void batch(std::string_view key, const element_batch& at, simdjson::padded_string_view json) override {
        ++batches;
        const std::string_view text(json);
        REQUIRE(text.front() == '[');
        REQUIRE(text.back() == ']');
        // The bytes between the brackets are the file's, from value_offset on.
        CHECK(file.compare(value_offset, text.size() - 2, text.substr(1, text.size() - 2)) == 0);
        // ... and make one whole document: no bracket of the file's own at either end
        // (On-Demand below would not notice trailing content).
        CHECK(dom.parse(text.data(), text.size()).error() == simdjson::SUCCESS);
        auto doc = parser.iterate(json);
        std::size_t k = 0;
        for (auto el : doc.get_array()) {
            std::string_view raw;
            simdjson::ondemand::value v = el.value();
            if (v.type() == simdjson::ondemand::json_type::array) {
                simdjson::ondemand::array a = v.get_array();
                raw = a.raw_json();
            } else if (v.type() == simdjson::ondemand::json_type::object) {
                simdjson::ondemand::object o = v.get_object();
                raw = o.raw_json();
            } else {
                raw = v.raw_json_token();
            }
            while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n')) raw.remove_suffix(1);
            seen.push_back(fmt::format("{}[{}]({})={}", key, at.outer, at.first + k, raw));
            ++k;
        }
        CHECK(k == at.count);
    }
    void array_end(std::string_view key, std::size_t n) override { seen.push_back(fmt::format("{} len {}", key, n)); }
};

std::vector<std::string> run_batches(const std::string& path, const std::string& text, std::size_t block,
                                     std::size_t batch_bytes, bool pipelined, std::size_t* batches = nullptr) {
    batch_recorder r(text);
    json_object_stream s(path, false, block, batch_bytes);
    if (pipelined) dfx::convert::run_pipelined(std::move(s), r);
    else s.run(r);
    if (batches) *batches = r.batches;
    return r.seen;
}

}  // namespace

TEST_CASE("json_object_stream: batches and nested batches do not depend on block or batch size") {
    scratch_dir dir;
    const std::string text = R"({"skip": [[1, 2]], "flat": [ [1, 2], {"s": "x\"]"} , -2.5e3, "str",[] ],
      "lanes": [[{"k": 1}, {"k": [2, [3]]}], [], null, "oops", [[7], 8 ]], "flat2": [1], "after": {"a": [1]}})";
    const auto path = dir.write("b.json", text);
    const std::vector<std::string> want = {
        "skip len 1",
        "flat[0](0)=[1, 2]", R"(flat[0](1)={"s": "x\"]"})", "flat[0](2)=-2.5e3", R"(flat[0](3)="str")", "flat[0](4)=[]",
        "flat len 5",
        R"(lanes[0](0)={"k": 1})", R"(lanes[0](1)={"k": [2, [3]]})", "lanes[2] not an array: null",
        R"(lanes[3] not an array: "oops")", "lanes[4](0)=[7]", "lanes[4](1)=8", "lanes len 5",
        "flat2 len 1"};  // skipped, its length still reported; "after" is no array
    std::size_t one_batch_count = 0;
    const auto whole = run_batches(path, text, std::size_t{1} << 20, std::size_t{1} << 20, false, &one_batch_count);
    CHECK(whole == want);
    CHECK(one_batch_count == 3);  // one per array: flat, lanes[0], lanes[4]
    for (std::size_t block : {1, 2, 3, 7, 16, 64}) {
        for (std::size_t batch_bytes : {1, 5, 30}) {
            CAPTURE(block);
            CAPTURE(batch_bytes);
            CHECK(run_batches(path, text, block, batch_bytes, false) == whole);
            CHECK(run_batches(path, text, block, batch_bytes, true) == whole);
        }
    }
    std::size_t small_batches = 0;
    run_batches(path, text, 5, 1, false, &small_batches);
    CHECK(small_batches == 9);  // batch_bytes 1: every element is its own batch
}

TEST_CASE("json_object_stream: lanes_only counts the inner arrays and delivers none of their elements") {
    scratch_dir dir;
    const std::string text =
        R"({"counted": [[{"k": 1}, {"k": [2, [3]]}], [], null, "oops", [[7], 8 ]], "flat": [1], "counted2": 5})";
    const auto path = dir.write("c.json", text);
    // The same as nested_batches ("lanes" above) without the batches.
    const std::vector<std::string> want = {R"(counted[2] not an array: null)", R"(counted[3] not an array: "oops")",
                                           "counted len 5", "flat[0](0)=1", "flat len 1"};
    for (std::size_t block : {1, 3, 16, 1 << 20}) {
        CAPTURE(block);
        std::size_t batches = 0;
        CHECK(run_batches(path, text, block, 4, false, &batches) == want);
        CHECK(batches == 1);  // flat's
        CHECK(run_batches(path, text, block, 4, true) == want);
    }
    // Not delivered is not unchecked: the grammar inside a lane is still the stream's.
    for (const std::string bad : {R"([[1, 2,]])", R"([[1 2]])", R"([[{"k": }]])", R"([["\x"]])", "[[1, 2]"}) {
        CAPTURE(bad);
        const std::string t = R"({"counted": )" + bad + "}";
        CHECK_THROWS_AS(run_batches(dir.write("bad.json", t), t, 3, 4, true), input_error);
    }
}

TEST_CASE("json_object_stream: a member asked for in batches that is no array is delivered whole") {
    scratch_dir dir;
    for (const std::string v : {"null", "{\"a\": [1]}", "17", "\"s\""}) {
        const std::string text = R"({"flat": )" + v + R"(, "lanes": )" + v + "}";
        const auto path = dir.write("v.json", text);
        CHECK(run_batches(path, text, 3, 4, true) ==
              std::vector<std::string>{"flat value " + v, "lanes value " + v});
    }
}

TEST_CASE("json_object_stream: a repeated top-level key is one error line, control characters shown escaped") {
    scratch_dir dir;
    const std::string text = R"({"a\u000ab": 1, "a\nb": 2})";
    const auto path = dir.write("dup.json", text);
    CHECK_THROWS_WITH_AS(run_batches(path, text, 4, 6, true),
                         (path + R"(: at byte 16: duplicate top-level key "a\x0ab")").c_str(), input_error);
}

TEST_CASE("json_object_stream: truncation inside batches is an error at every cut") {
    scratch_dir dir;
    const std::string text = R"({"flat": [[1, 2], {"s": "x"}], "lanes": [[{"k": 1}], [2]]})";
    for (std::size_t cut = 0; cut < text.size(); ++cut) {
        CAPTURE(cut);
        const auto path = dir.write("cut.json", text.substr(0, cut));
        CHECK_THROWS_AS(run_batches(path, text, 4, 6, true), input_error);
    }
}

TEST_CASE("json_object_stream: pipelined batches keep the first error in file order") {
    scratch_dir dir;
    std::string rows;
    for (int i = 0; i < 3000; ++i) rows += fmt::format("{}[{}, {}]", i ? ", " : "", i, i * 7);
    struct stop_here {};
    struct counting final : json_member_handler {
        int stop_at = -1;
        int seen = 0;
        std::size_t last_first = 0;
        member_use use(std::string_view) override { return member_use::batches; }
        void value(std::string_view, simdjson::padded_string_view) override {}
        void element(std::string_view, std::size_t, simdjson::padded_string_view) override {}
        void batch(std::string_view, const element_batch& at, simdjson::padded_string_view) override {
            if (seen > 0) CHECK(at.first > last_first);  // batches arrive in file order
            last_first = at.first;
            if (seen++ == stop_at) throw stop_here{};
        }
    };
    // A grammar error near the end: every batch before it is delivered first.
    const auto bad = dir.write("bad.json", R"({"flat": [)" + rows + ", }]}");
    counting c;
    CHECK_THROWS_WITH_AS(dfx::convert::run_pipelined(json_object_stream(bad, false, 128, 100), c),
                         doctest::Contains("expected a JSON value"), input_error);
    CHECK(c.seen > 100);
    // An exception from the handler stops the scan, and is the one that is thrown.
    const auto good = dir.write("good.json", R"({"flat": [)" + rows + "]}");
    for (int stop_at : {0, 1, 5}) {
        CAPTURE(stop_at);
        counting h;
        h.stop_at = stop_at;
        CHECK_THROWS_AS(dfx::convert::run_pipelined(json_object_stream(good, false, 128, 50), h), stop_here);
        CHECK(h.seen == stop_at + 1);
    }
}

TEST_CASE("records reader: the result does not depend on the block or batch size") {
    scratch_dir dir;
    const auto path = dir.write("r.json", R"({"chip_swimlane_level": 3,
      "metadata": {"clock_freq_hz": 50000000, "core_types": ["aic", "aiv"], "core_to_thread": [0, 1]},
      "aicore_tasks": [[0, 4294967296, 1, 1000120, 1000620, 5], [1, 4294967297, 1, 1000660, 1001160]],
      "aicpu_tasks": [[0, 1, 1000108, 1000630], [1, 1, 1000648, 1001170]],
      "aicpu_scheduler_phases": [[{"kind": "complete", "start_cycles": 1000625, "end_cycles": 1000640,
         "loop_iter": 40, "tasks_processed": 1, "shared_at_start": [0,0,0], "shared_at_end": [0,1,0]}], [], null],
      "aicpu_orchestrator_phases": [null, [{"start_cycles": 1000100, "end_cycles": 1000107, "submit_idx": 0, "task_id": 7}]]})");
    const auto whole = dfx::convert::swimlane::records_reader(path).read();
    REQUIRE(whole.sched.size() == 3);
    CHECK(whole.sched[1].empty());
    CHECK(whole.sched[2].empty());
    REQUIRE(whole.orch.size() == 2);
    CHECK(whole.orch[0].empty());
    REQUIRE(whole.orch[1].size() == 1);
    CHECK(whole.orch[1].begin()->task_id.value == 7);
    CHECK(whole.base_cycles == 1000100);
    // The deps viewer's sidecar: task rows kept, the lanes counted; the phases held to the grammar
    // only, as fields no command reading the sidecar uses.
    const auto tasks = dfx::convert::swimlane::records_reader(path).tasks_only().read();
    CHECK(tasks.aicore.size() == 2);
    CHECK(tasks.aicpu.size() == 2);
    CHECK(tasks.sched.size() == 3);
    CHECK(tasks.sched[0].empty());
    CHECK(tasks.orch.size() == 2);
    CHECK(tasks.orch[1].empty());
    // dfx report: the phases read and checked, their timestamps in the time base, the records not kept.
    const auto rows = dfx::convert::swimlane::records_reader(path).keep_phases(false).read();
    CHECK(rows.aicore.size() == 2);
    CHECK(rows.sched.size() == 3);
    CHECK(rows.sched[0].empty());
    CHECK(rows.orch.size() == 2);
    CHECK(rows.orch[1].empty());
    CHECK(rows.base_cycles == whole.base_cycles);  // the orchestrator phase's 1000100, as when kept
    CHECK(rows.max_device_cycles == whole.max_device_cycles);
    const auto bad_phase = dir.write("bad_phase.json", R"({"aicpu_scheduler_phases": [[{"start_cycles": -5}]]})");
    CHECK_THROWS_WITH_AS(dfx::convert::swimlane::records_reader(bad_phase).read(),
                         doctest::Contains("aicpu_scheduler_phases[0][0].start_cycles: expected a non-negative"), input_error);
    CHECK_THROWS_WITH_AS(dfx::convert::swimlane::records_reader(bad_phase).keep_phases(false).read(),
                         doctest::Contains("aicpu_scheduler_phases[0][0].start_cycles: expected a non-negative"), input_error);
    CHECK(dfx::convert::swimlane::records_reader(bad_phase).tasks_only().read().sched.size() == 1);
    const auto bad_grammar = dir.write("bad_grammar.json", R"({"aicpu_scheduler_phases": [[{"start_cycles": 05}]]})");
    CHECK_THROWS_AS(dfx::convert::swimlane::records_reader(bad_grammar).tasks_only().read(), input_error);
    const auto not_lanes = dir.write("not_lanes.json", R"({"aicpu_orchestrator_phases": [[], 7]})");
    CHECK_THROWS_WITH_AS(dfx::convert::swimlane::records_reader(not_lanes).tasks_only().read(),
                         doctest::Contains("aicpu_orchestrator_phases[1]: expected an array"), input_error);
    for (std::size_t block = 1; block <= 64; block += 3) {
        for (std::size_t batch_bytes : {1, 40, 1 << 20}) {
            CAPTURE(block);
            CAPTURE(batch_bytes);
            const auto threads = block % 2 ? dfx::convert::reader_threads::one_thread : dfx::convert::reader_threads::pipelined;
            const auto r = dfx::convert::swimlane::records_reader(path, block, batch_bytes).threads(threads).read();
            REQUIRE(r.aicore.size() == 2);
            CHECK(r.aicore[1].end == whole.aicore[1].end);
            CHECK(r.aicore[1].r2s == 0);
            CHECK(r.aicpu[1].finish == whole.aicpu[1].finish);
            REQUIRE(r.sched.size() == 3);
            CHECK(r.sched[0][0].depth_end[1] == 1);
            CHECK(r.orch.size() == 2);
            CHECK(r.meta.core_to_thread == whole.meta.core_to_thread);
            CHECK(r.base_cycles == whole.base_cycles);
        }
    }
}

TEST_CASE("records reader: batches give the same records and name the failing row and its byte") {
    scratch_dir dir;
    std::string rows;
    for (int i = 0; i < 400; ++i) {
        rows += fmt::format("{}[{}, {}, {}, {}, {}, 5]", i ? ", " : "", i % 4, 4294967296 + i, i + 1, 1000000 + 10 * i,
                            1000005 + 10 * i);
    }
    const std::string head = R"({"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 50000000}, "aicore_tasks": [)";
    const auto path = dir.write("r.json", head + rows + "]}");
    const auto whole = dfx::convert::swimlane::records_reader(path).read();
    const auto small = dfx::convert::swimlane::records_reader(path, 64, 100).read();
    REQUIRE(small.aicore.size() == 400);
    for (std::size_t i = 0; i < 400; ++i) {
        CHECK(small.aicore[i].end == whole.aicore[i].end);
        CHECK(small.aicore[i].reg == whole.aicore[i].reg);
    }
    const std::string bad_text = head + rows + R"(, [0, 1, -2, 3, 4, 5]]})";
    const auto bad = dir.write("bad.json", bad_text);
    const std::size_t row_at = bad_text.rfind("[0, 1, -2");
    for (std::size_t batch_bytes : {100, 1 << 20}) {
        CAPTURE(batch_bytes);
        std::string message;
        try {
            dfx::convert::swimlane::records_reader(bad, 64, batch_bytes).read();
        } catch (const input_error& e) {
            message = e.what();
        }
        CHECK(message.find("aicore_tasks[400]: reg_task_id must not be negative") != std::string::npos);
        // The byte is inside the failing row (simdjson stands just past the value it read last).
        const auto at = message.rfind("(at byte ");
        REQUIRE(at != std::string::npos);
        const std::size_t byte = std::stoul(message.substr(at + 9));
        CHECK(byte >= row_at);
        CHECK(byte <= row_at + 21);
    }
}

TEST_CASE("records reader: an array member that is not one is named with its byte") {
    scratch_dir dir;
    const std::string text = R"({"chip_swimlane_level": 1, "aicore_tasks": {"a": 1}})";
    const auto path = dir.write("o.json", text);
    const std::string want = fmt::format("aicore_tasks: expected an array, found an object (at byte {})", text.find("{\"a\""));
    CHECK_THROWS_WITH_AS(dfx::convert::swimlane::records_reader(path).read(), doctest::Contains(want.c_str()), input_error);
    const std::string lane = R"({"aicpu_scheduler_phases": [[], 3]})";
    const auto lane_path = dir.write("l.json", lane);
    CHECK_THROWS_WITH_AS(dfx::convert::swimlane::records_reader(lane_path).read(),
                         doctest::Contains("aicpu_scheduler_phases[1]: expected an array, found a number"), input_error);
}
