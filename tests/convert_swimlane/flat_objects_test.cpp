// The records reader's fast path for phases (common/flat_objects_scanner.hpp):
// the scanner accepts exactly its documented subset of JSON, and the reader
// reads the same scheduler, orchestrator and host orchestrator phases, and
// fails with the same message, with it as without it.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/flat_objects_scanner.hpp"
#include "dfx/convert/swimlane/records_reader.hpp"
#include "../support/scratch_dir.hpp"

namespace conv = dfx::convert;
namespace sw = dfx::convert::swimlane;
using test_support::scratch_dir;

namespace {

// What the scanner hands over, as text: "key=value" per member, "|" per object.
std::string flat_scanned(std::string_view text, bool& ok) {
    std::string s;
    ok = conv::scan_flat_objects(
        text,
        [&](std::string_view key, const conv::flat_value& v) {
            s += std::string(key) + "=";
            switch (v.type) {
            case conv::flat_value::kind::integer: s += std::to_string(v.number); break;
            case conv::flat_value::kind::null: s += "null"; break;
            case conv::flat_value::kind::string: s += "'" + std::string(v.text) + "'"; break;
            case conv::flat_value::kind::integers:
                s += "[";
                for (std::size_t i = 0; i < v.count; ++i) s += (i ? "," : "") + std::to_string(v.items[i]);
                s += "]";
                break;
            }
            s += " ";
            return true;
        },
        [&] {
            s += "| ";
            return true;
        });
    return s;
}

bool flat_scans(std::string_view text) {
    bool ok = false;
    flat_scanned(text, ok);
    return ok;
}

std::string wide_text(conv::int128 v) { return conv::to_decimal(v); }

// Everything a read gives of the phases (or its error message), as text.
// Batches of `batch_bytes` (96: a phase or two each, so lanes span batches;
// the default, 256 KiB: a document's lane in one).
// What the reader keeps: every phase, the loop's only, none (the time base
// still read), or the task rows only (the phases checked as JSON, not read).
enum class keeping { all, loop_only, no_phases, tasks_only };

std::string phases_outcome(const std::string& path, bool fast, bool lenient, keeping keep = keeping::all,
                           std::size_t batch_bytes = 96) {
    const auto sign = [](bool on) { return on ? "+" : "-"; };
    try {
        const sw::records_file f = sw::records_reader(path, 64, batch_bytes)
                                       .lenient(lenient)
                                       .fast_rows(fast)
                                       .loop_phases_only(keep == keeping::loop_only)
                                       .keep_phases(keep != keeping::no_phases)
                                       .tasks_only(keep == keeping::tasks_only)
                                       .read();
        std::string s = fmt::format("base {} min {} max {}\n", f.base_cycles, f.min_device_cycles, f.max_device_cycles);
        for (std::size_t t = 0; t < f.sched.size(); ++t) {
            s += fmt::format("sched lane {} hit {} miss {}\n", t, wide_text(f.sched[t].pop_hit),
                             wide_text(f.sched[t].pop_miss));
            for (const sw::sched_record& r : f.sched[t])
                s += fmt::format(" {} {} {} iter {} tasks {}{} id {}{} depths {},{},{}/{},{},{}{}\n", sw::name_of(r.kind),
                                 r.start_cycles, r.end_cycles, r.loop_iter, r.tasks_processed,
                                 sign(r.has_tasks_processed), r.task_id, sign(r.has_task_id), r.depth_start[0],
                                 r.depth_start[1], r.depth_start[2], r.depth_end[0], r.depth_end[1], r.depth_end[2],
                                 sign(r.depths_valid));
        }
        for (std::size_t t = 0; t < f.loop.size(); ++t)
            s += fmt::format("loop lane {} phases {} finishes {} hit {} miss {} loops {}\n", t, f.loop[t].phases.size(),
                             wide_text(f.loop[t].finishes), wide_text(f.loop[t].pop_hit),
                             wide_text(f.loop[t].pop_miss), f.loop[t].loops);
        const auto orch = [&s](std::string_view name, const std::vector<sw::orch_phase_list>& lanes) {
            for (std::size_t t = 0; t < lanes.size(); ++t) {
                s += fmt::format("{} lane {}\n", name, t);
                for (const sw::orch_record& r : lanes[t])
                    s += fmt::format(" {} {} submit {} id {}{}\n", r.start, r.end, r.submit_idx, r.task_id.value,
                                     r.task_id.negative ? " negative" : "");
            }
        };
        orch("orch", f.orch);
        orch("host", f.host_orch);
        return s;
    } catch (const conv::input_error& e) {
        return std::string("error: ") + e.what();
    }
}

std::string phases_doc(const std::string& sched, const std::string& orch = "[]", const std::string& host = "[]") {
    return R"({"chip_swimlane_level": 4, "metadata": {"clock_freq_hz": 50000000, "core_types": ["aic", "aiv"]},)"
           R"( "aicore_tasks": [], "aicpu_tasks": [], "aicpu_scheduler_phases": )" + sched +
           R"(, "aicpu_orchestrator_phases": )" + orch + R"(, "host_orchestrator_phases": )" + host + "}";
}

// A thread's phases as the runtime writes them.
const std::string phase_dispatch =
    R"({"kind": "dispatch", "start_cycles": 1000006, "end_cycles": 1000016, "loop_iter": 38, "tasks_processed": 1, )"
    R"("pop_hit": 1, "pop_miss": 26, "task_id": 4294967296, "shared_at_start": [1,0,0], "shared_at_end": [0,0,2]})";
const std::string phase_complete =
    R"({"kind": "complete", "start_cycles": 1001223, "end_cycles": 1001238, "loop_iter": 71, "tasks_processed": 2, )"
    R"("shared_at_start": [0,0,0], "shared_at_end": [0,1,0]})";
const std::string orch_phase = R"({"start_cycles": 1000001, "end_cycles": 1000005, "submit_idx": 0, "task_id": 4294967296})";
const std::string host_phase = R"({"start_host_ns": 5000, "end_host_ns": 5100, "submit_idx": 3, "task_id": 7})";

std::string phase_lane(const std::string& phase, int n) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) s += (i ? ", " : "") + phase;
    return s + "]";
}

}  // namespace

TEST_CASE("the flat-object scanner hands over each member of each object exactly") {
    bool ok = false;
    const std::string s = flat_scanned(
        " [ {\"kind\" : \"dispatch\",\"n\":-0, \"big\": 999999999999999999,\n\"id\": null, \"d\": [1, -2 ,3], "
        "\"e\": [], \"s\": \"a b]{,:\"} ,{}\t,{\"x\": -7} ] ",
        ok);
    CHECK(ok);
    CHECK(s == "kind='dispatch' n=0 big=999999999999999999 id=null d=[1,-2,3] e=[] s='a b]{,:' | | x=-7 | ");
    CHECK(flat_scans("[]"));
    CHECK(flat_scans(" [ ]\n"));
    CHECK(flat_scans("[{\"d\": [1,2,3,4,5,6,7,8]}]"));  // max_items
}

TEST_CASE("the flat-object scanner says no to everything outside its subset") {
    for (const char* text : {
             "", "   ", "[", "[{}", "[{}]]", "[{}] x", "[{},]", "[{},{}",  // the outer array
             "{}", "[1]", "[[1]]", "[\"a\"]", "[null]",                    // an element that is not an object
             "[{\"a\" 1}]", "[{\"a\": 1,}]", "[{\"a\": 1 \"b\": 2}]", "[{a: 1}]", "[{\"a\": }]",
             "[{\"a\": 1]", "[{\"a\": [1}]",                                // members
             "[{\"a\": 1.0}]", "[{\"a\": 1e3}]", "[{\"a\": 01}]", "[{\"a\": -}]", "[{\"a\": +1}]",
             "[{\"a\": 1000000000000000000}]",                             // 19 digits
             "[{\"a\": true}]", "[{\"a\": false}]", "[{\"a\": nul}]", "[{\"a\": {}}]", "[{\"a\": {\"b\": 1}}]",
             "[{\"a\": [[1]]}]", "[{\"a\": [\"x\"]}]", "[{\"a\": [null]}]", "[{\"a\": [1.5]}]", "[{\"a\": [1,]}]",
             "[{\"a\": [1,2,3,4,5,6,7,8,9]}]",                             // more items than max_items
             "[{\"a\": \"x\\\"y\"}]", "[{\"a\\u0062\": 1}]",               // escapes
             "[{\"a\": \"caf\xc3\xa9\"}]", "[{\"a\": \"tab\there\"}]",     // non-ASCII, a control byte
             "[{\"a\": \"unclosed]", "[{\"a\": [1, 2]",                    // the text ends inside a member
             "[{\"a\": null]",
         }) {
        CAPTURE(text);
        CHECK_FALSE(flat_scans(text));
    }
}

TEST_CASE("the flat-object scanner reads nothing past a text that ends inside a member") {
    // Texts cut short, each in a heap block of exactly its size (no
    // terminating NUL to stop a loop): ASan reports a read past it.
    for (const std::string text : {"[{\"a\": [1, 2]", "[{\"a\": [1, 2 ]", "[{\"a\": []", "[{\"a\": \"x]",
                                   "[{\"a]", "[{\"a\": null]", "[{\"a\": 12]", "[{\"a\": 1}, {\"b\": [3]",
                                   // and texts whose last byte is no ']' at all
                                   "[{\"a\": 12", "[{\"a\": [1, 2", "[{\"a\": \"x", "[{\"a\": nu", "[{\"a\": 1}]x",
                                   "[{\"a\": 1} ", "[{"}) {
        CAPTURE(text);
        const auto block = std::make_unique<char[]>(text.size());
        std::memcpy(block.get(), text.data(), text.size());
        CHECK_FALSE(flat_scans(std::string_view(block.get(), text.size())));
    }
}

TEST_CASE("the flat-object scanner stops where a callback says no") {
    int members = 0;
    int objects = 0;
    CHECK_FALSE(conv::scan_flat_objects(
        "[{\"a\": 1, \"b\": 2, \"c\": 3}, {\"a\": 4}]",
        [&](std::string_view key, const conv::flat_value&) { return ++members, key != "b"; },
        [&] { return ++objects, true; }));
    CHECK(members == 2);
    CHECK(objects == 0);
    members = 0;
    CHECK_FALSE(conv::scan_flat_objects(
        "[{\"a\": 1}, {\"a\": 4}]", [&](std::string_view, const conv::flat_value&) { return ++members, true; },
        [&] { return ++objects, false; }));
    CHECK(members == 1);
    CHECK(objects == 1);
}

TEST_CASE("phases read the same with the fast path and without it, errors included") {
    const std::vector<std::string> docs = {
        // in the subset: every batch takes the fast path (batches of 96 bytes: one phase each, and lanes across them)
        phases_doc("[" + phase_lane(phase_dispatch + ", " + phase_complete, 3) + ", [], " +
                       phase_lane(phase_complete, 2) + "]",
                    "[" + phase_lane(orch_phase, 3) + "]", "[[], " + phase_lane(host_phase, 2) + "]"),
        phases_doc(R"([[{"kind": "dummy_task", "start_cycles": 10, "end_cycles": 20, "task_id": null, "extra": [1,2], "note": "x", "n": -5},)"
                    R"( {"kind": "fanout", "start_cycles": 0, "end_cycles": 0, "shared_at_start": null, "shared_at_end": [1,2]},)"
                    R"( {"kind": "complete", "shared_at_start": [1,2,3,4], "shared_at_end": [5,6,7], "task_id": 3, "task_id": null},)"
                    R"( {"start_cycles": 5, "start_cycles": 6, "shared_at_end": [1,2,3], "shared_at_end": [4]}, {},)"
                    R"( {"kind": "dispatch", "pop_hit": 2, "pop_miss": 3, "shared_at_start": [1,2,3], "shared_at_end": [1]},)"
                    R"( {"kind": "dispatch"}]])",
                    R"([[{"task_id": -1, "start_cycles": 30}, {"other": "x"}]])"),
        // valid but outside the subset: the general path for that batch
        phases_doc(R"([[{"kind": "dis\u0070atch", "start_cycles": 10, "end_cycles": 20}]])"),
        phases_doc(R"([[{"kind": "complete", "start_cycles": 10, "end_cycles": 20, "meta": {"a": 1}, "flag": true}]])"),
        phases_doc(R"([[{"kind": "complete", "start_cycles": 1000000000000000000, "end_cycles": 1000000000000000001}]])"),
        phases_doc(R"([[{"kind": "complete", "start_cycles": 10, "shared_at_start": [1, 2, 3, 4, 5, 6, 7, 8, 9]}]])"),
        phases_doc("[]", R"([[{"start_cycles": 10, "end_cycles": 20, "task_id": 18446744073709551615}]])"),
        phases_doc(R"([[{"kind": "complete", "start_cycles": 10, "shared_at_start": "none", "shared_at_end": 3}]])"),
        // out of range or malformed: the general path names the error (or, leniently, reads it)
        phases_doc(R"([[{"kind": "complete", "start_cycles": -5, "end_cycles": 20}]])"),
        phases_doc(R"([[{"kind": "complete", "start_cycles": 5, "end_cycles": 20, "loop_iter": -1}]])"),
        phases_doc(R"([[{"kind": "dispatch", "pop_hit": -1, "pop_miss": -2}]])"),
        phases_doc(R"([[{"kind": "complete", "task_id": -3}]])"),
        phases_doc(R"([[{"kind": "complete", "shared_at_start": [-1, 0, 0], "shared_at_end": [0, 0, 0]}]])"),
        phases_doc(R"([[{"kind": "complete", "shared_at_start": [2147483648, 0, 0]}]])"),
        phases_doc(R"([[{"kind": "complete", "shared_at_start": [0, 0, 0, -4]}]])"),
        phases_doc(R"([[{"kind": 3}]])"),
        phases_doc(R"([[{"kind": null}]])"),
        phases_doc(R"([[{"kind": "complete", "start_cycles": "10"}]])"),
        phases_doc(R"([[{"kind": "complete", "start_cycles": 1.5}]])"),
        phases_doc(R"([[{"kind": "complete", "tasks_processed": null}]])"),
        phases_doc(R"([[{"kind": "complete", "shared_at_start": [0, "x", 0]}]])"),
        phases_doc(R"([[{"kind": "complete"}, 7]])"),
        phases_doc("[]", R"([[{"start_cycles": -10, "end_cycles": 20}]])"),
        phases_doc("[]", R"([[{"start_cycles": 10, "submit_idx": -1}]])"),
        phases_doc("[]", R"([[{"start_cycles": 10, "task_id": null}]])"),
        phases_doc("[]", "[]", R"([[{"start_host_ns": -10, "end_host_ns": 20}]])"),
        phases_doc("[]", "[]", R"([[{"start_host_ns": 10, "end_host_ns": 20, "task_id": "7"}]])"),
    };
    scratch_dir dir;
    for (std::size_t i = 0; i < docs.size(); ++i) {
        const std::string path = dir.write("p" + std::to_string(i) + ".json", docs[i]);
        for (const bool lenient : {false, true}) {
            for (const keeping keep : {keeping::all, keeping::loop_only, keeping::no_phases, keeping::tasks_only}) {
                for (const std::size_t batch : {std::size_t{96}, conv::json_object_stream::default_batch_bytes}) {
                    CAPTURE(docs[i]);
                    CAPTURE(lenient);
                    CAPTURE(static_cast<int>(keep));
                    CAPTURE(batch);
                    const std::string general = phases_outcome(path, false, lenient, keep, batch);
                    CHECK(phases_outcome(path, true, lenient, keep, batch) == general);
                }
            }
        }
    }
    // The first documents' values, so that "the same" is not "both empty".
    const std::string first = phases_outcome(dir.write("first.json", docs[0]), true, false);
    CHECK(first.find("sched lane 0 hit 3 miss 78\n dispatch 1000006 1000016 iter 38 tasks 1+ id 4294967296+ depths "
                     "1,0,0/0,0,2+\n complete 1001223 1001238 iter 71 tasks 2+ id 0- depths 0,0,0/0,1,0+\n") !=
          std::string::npos);
    CHECK(first.find("sched lane 1 hit 0 miss 0\nsched lane 2") != std::string::npos);
    CHECK(first.find("orch lane 0\n 1000001 1000005 submit 0 id 4294967296\n") != std::string::npos);
    CHECK(first.find("host lane 0\nhost lane 1\n 5000 5100 submit 3 id 7\n 5000 5100 submit 3 id 7\n") !=
          std::string::npos);
    CHECK(first.find("base 1000001 min 1000001 max 1001238\n") == 0);
    const std::string second = phases_outcome(dir.write("second.json", docs[1]), true, false);
    CHECK(second.find(" other 0 0 iter 0 tasks 0- id 0- depths 0,0,0/1,2,0-\n") != std::string::npos);
    CHECK(second.find(" complete 0 0 iter 0 tasks 0- id 3+ depths 1,2,3/5,6,7-\n") != std::string::npos);
    CHECK(second.find(" other 6 0 iter 0 tasks 0- id 0- depths 0,0,0/4,2,3-\n") != std::string::npos);
    CHECK(second.find(" 30 0 submit 0 id 18446744073709551615 negative\n") != std::string::npos);
    CHECK(second.find("base 6 min 6 max 30\n") == 0);  // a scheduler phase's start is the earliest time
    CHECK(second.find("sched lane 0 hit 2 miss 3\n") != std::string::npos);
    CHECK(second.find(" dispatch 0 0 iter 0 tasks 0- id 0- depths 1,2,3/1,0,0-\n dispatch 0 0") != std::string::npos);
    // ... and that the fast path read them: each kind of phase, one batch
    // each (every phase here is one batch of 96 bytes or more), and not the
    // third document's (an escape in its one phase).
    const auto fast_batches = [&](const std::string& doc) {
        sw::records_reader reader(dir.write("count.json", doc), 64, 96);
        (void)reader.read();
        return reader.fast_batches();
    };
    CHECK(fast_batches(phases_doc("[" + phase_lane(phase_dispatch, 2) + "]")) == 2);
    CHECK(fast_batches(phases_doc("[]", "[" + phase_lane(orch_phase + "   ", 1) + "]")) == 1);
    CHECK(fast_batches(phases_doc("[]", "[]", "[" + phase_lane(host_phase, 1) + "]")) == 1);
    CHECK(fast_batches(docs[2]) == 0);
    const std::string loops = phases_outcome(dir.write("first.json", docs[0]), true, false, keeping::loop_only);
    CHECK(loops.find("loop lane 0 phases 6 finishes 6 hit 3 miss 78 loops 71\n") != std::string::npos);
}
