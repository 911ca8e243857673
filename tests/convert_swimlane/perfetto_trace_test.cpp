// perfetto_trace: the whole protobuf backend, its two passes, read back as
// trace_processor reads a trace (perfetto_decode.hpp: sorted by timestamp,
// then position in the file). Every slice comes back whole, on its thread,
// with its flows, whatever order the sections wrote the slices in and
// however their times tie: slices that touch, zero-length ones, shorter ones
// written before the longer ones they begin with, partial overlaps. The
// bytes do not depend on the room reserved, a write error comes out of the
// call that wrote, and a second pass that is not the first is refused. A
// failure while a section's chunks are recorded on two threads comes out.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/swimlane/trace/context.hpp"
#include "dfx/convert/swimlane/trace/perfetto_packets.hpp"
#include "perfetto_decode.hpp"
#include "../support/scratch_dir.hpp"

using dfx::convert::swimlane::trace::perfetto_trace;
using dfx::convert::swimlane::trace::pf_arg;
using dfx::convert::swimlane::trace::pf_backend;
using dfx::convert::swimlane::trace::pf_slice;
using perfetto_decode::decode_trace;
using perfetto_decode::decoded_trace;

namespace {

struct slice_spec {
    std::string name;
    std::int64_t tid;
    double ts, dur;  // µs
};
struct flow_spec {
    std::int64_t id;
    std::size_t from, to;  // slices, bound by event id (= index)
};

// Both passes of perfetto_trace over `slices` and `flows` (flows by event
// id, plus one endpoint on an empty thread: an instant), through `sink`.
template <class Sink>
void write_two_passes(const std::vector<slice_spec>& slices, const std::vector<flow_spec>& flows, Sink&& sink,
                      bool reserved = false) {
    perfetto_trace pb;
    if (reserved) pb.reserve(slices.size(), 2 * flows.size());
    pb.process_name(4, "Worker View");
    const auto all_slices = [&](pf_backend& to) {
        for (std::size_t i = 0; i < slices.size(); ++i) {
            const slice_spec& s = slices[i];
            to.slice(pf_slice{"event", s.name, 4, s.tid, s.ts, s.dur, static_cast<std::int64_t>(i),
                              pf_slice::inline_text},
                     {pf_arg::of("taskId", static_cast<std::int64_t>(i)), pf_arg::of_text("kernel", "QK")});
        }
        to.counter(2, "ready AIC", 1.0, 3);
    };
    all_slices(pb);
    pb.end_of_slices();
    for (const flow_spec& f : flows) {
        const slice_spec& a = slices[f.from];
        const slice_spec& b = slices[f.to];
        pb.flow(f.id, 's', 4, a.tid, a.ts, static_cast<std::int64_t>(f.from));
        pb.flow(f.id, 'f', 4, b.tid, b.ts, static_cast<std::int64_t>(f.to));
    }
    pb.flow(999'999, 's', 4, 77, 5.0, -1);  // no slice on thread 77: an instant
    pb.flow(999'999, 'f', 4, 77, 6.0, -1);
    all_slices(pb.write_ends(sink));
    pb.finish();
}

std::string two_passes(const std::vector<slice_spec>& slices, const std::vector<flow_spec>& flows,
                       bool reserved = false) {
    std::string bytes;
    write_two_passes(slices, flows, [&](std::string_view b) { bytes.append(b); }, reserved);
    return bytes;
}

// Slices on 3 threads at whole µs, so times tie often: nested ones, ones
// that touch, zero-length ones, equal begins, partial overlaps; in a random
// order.
std::vector<slice_spec> tied_slices(std::mt19937_64& rng, std::size_t n) {
    std::vector<slice_spec> slices;
    for (std::size_t i = 0; i < n; ++i) {
        const auto tid = static_cast<std::int64_t>(10 + rng() % 3);
        const auto ts = static_cast<double>(rng() % 40);
        const auto dur = static_cast<double>(rng() % 4 == 0 ? 0 : rng() % 12);
        std::string name = std::to_string(i);  // ("s" + ...: a false -Wrestrict in g++ 12)
        name.insert(name.begin(), 's');
        slices.push_back({name, tid, ts, dur});
    }
    return slices;
}

// The slices as they went in: (name, thread index, begin ns, end ns).
using slice_key = std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t>;

}  // namespace

TEST_CASE("perfetto_trace: every slice comes back whole, however the times tie and whatever order they came in") {
    std::mt19937_64 rng(23);
    for (int round = 0; round < 30; ++round) {
        std::vector<slice_spec> slices = tied_slices(rng, 10 + rng() % 120);
        // Every other round in seconds: most slices are longer than 32 bits
        // of ns (a skeleton keeps their ends apart), and they tie as often.
        if (round % 2 == 1) {
            for (slice_spec& s : slices) s.ts *= 1e6, s.dur *= 1e6;
        }
        std::vector<flow_spec> flows;
        for (std::int64_t id = 0; id < 40; ++id) flows.push_back({id, rng() % slices.size(), rng() % slices.size()});
        const decoded_trace d = decode_trace(two_passes(slices, flows));
        CHECK(d.problems.empty());
        for (const std::string& p : d.problems) MESSAGE(p);
        // The same slices (names are unique), each on its thread: a track of
        // the thread or an overflow track under it.
        std::map<std::string, std::uint64_t> thread_of_name;
        std::vector<slice_key> got, want;
        std::map<std::uint64_t, std::int64_t> tid_of_uuid;
        for (std::size_t i = 0; i < slices.size(); ++i) {
            want.emplace_back(slices[i].name, slices[i].tid, perfetto_trace::ns(slices[i].ts),
                              perfetto_trace::ns(slices[i].ts + slices[i].dur));
        }
        std::map<std::string, const perfetto_decode::decoded_slice*> by_name;
        for (const auto& s : d.slices) by_name[s.name] = &s;
        // Thread uuids: the first slice of each tid names it.
        for (const slice_spec& s : slices) {
            if (by_name.count(s.name)) tid_of_uuid.emplace(by_name[s.name]->thread, s.tid);
        }
        for (const auto& s : d.slices) got.emplace_back(s.name, tid_of_uuid[s.thread], s.begin, s.end);
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        CHECK(got == want);
        // Each flow starts on its slice and ends on its slice, once.
        std::map<std::uint64_t, std::pair<std::string, std::string>> ends;
        for (const auto& s : d.slices) {
            for (const auto& [id, start] : s.flows) {
                std::string& at = start ? ends[id].first : ends[id].second;
                CHECK(at.empty());
                at = s.name;
            }
        }
        REQUIRE(ends.size() == flows.size());
        // trace_processor keeps every arrow whose end is read after its
        // start: all but those whose destination ends before (or, at a
        // tie, when) its source begins.
        const std::set<std::uint64_t> dropped(d.dropped_flows.begin(), d.dropped_flows.end());
        std::size_t kept = 0;
        for (const flow_spec& f : flows) {
            const auto id = static_cast<std::uint64_t>(f.id) + 1;
            CHECK(ends[id] == std::pair<std::string, std::string>{slices[f.from].name, slices[f.to].name});
            const std::int64_t source_begin = perfetto_trace::ns(slices[f.from].ts);
            const std::int64_t destination_end = perfetto_trace::ns(slices[f.to].ts + slices[f.to].dur);
            if (destination_end > source_begin) CHECK(dropped.count(id) == 0);
            if (destination_end < source_begin) CHECK(dropped.count(id) == 1);
            kept += dropped.count(id) == 0;
        }
        CHECK(kept > flows.size() / 4);  // (about half the random arrows run forwards)
        CHECK(d.instant_flows.size() == 2);
    }
}

TEST_CASE("perfetto_trace: a flow with one end on no slice: an instant there, the other end on its slice") {
    perfetto_trace pb;
    const auto all_slices = [](pf_backend& to) {
        to.slice(pf_slice{"event", "a", 4, 10, 1.0, 4.0, 0, pf_slice::inline_text});
        to.slice(pf_slice{"event", "b", 4, 11, 2.0, 4.0, 1, pf_slice::inline_text});
    };
    all_slices(pb);
    pb.end_of_slices();
    pb.flow(5, 's', 4, 77, 0.5, -1);  // from nothing on thread 77 ...
    pb.flow(5, 'f', 4, 10, 3.0, 0);   // ... to "a"
    pb.flow(6, 's', 4, 11, 2.5, 1);   // from "b" ...
    pb.flow(6, 'f', 4, 77, 9.0, -1);  // ... to nothing
    pb.flow(7, 's', 4, 10, 1.5, 0);   // "a" -> "b", for comparison
    pb.flow(7, 'f', 4, 11, 5.0, 1);
    std::string bytes;
    all_slices(pb.write_ends([&](std::string_view b) { bytes.append(b); }));
    pb.finish();
    const decoded_trace d = decode_trace(bytes);
    CHECK(d.problems.empty());
    std::map<std::string, std::vector<std::pair<std::uint64_t, bool>>> flows;
    for (const auto& s : d.slices) flows[s.name] = s.flows;
    // Perfetto's ids are the JSON ids + 1; true: the flow starts there.
    using ends = std::vector<std::pair<std::uint64_t, bool>>;
    CHECK(flows["a"] == ends{{8, true}, {6, false}});  // (starts on the BEGIN, ends on the END)
    CHECK(flows["b"] == ends{{7, true}, {8, false}});
    std::vector<std::pair<std::uint64_t, bool>> instants = d.instant_flows;
    std::sort(instants.begin(), instants.end());
    CHECK(instants == ends{{6, true}, {7, false}});
}

TEST_CASE("perfetto_trace: a slice written before a longer one that begins with it still nests inside it") {
    // On one thread: "inner" [10, 12] written before "outer" [10, 20] and a
    // zero-length "point" at 10 between them; "next" begins at 20 as
    // "outer" ends. Read by (time, file position), the BEGINs at 10 must
    // come outer first.
    const std::vector<slice_spec> slices{
        {"inner", 10, 10, 2}, {"point", 10, 10, 0}, {"outer", 10, 10, 10}, {"next", 10, 20, 5}};
    const decoded_trace d = decode_trace(two_passes(slices, {{0, 0, 3}}));
    CHECK(d.problems.empty());
    std::map<std::string, std::pair<std::int64_t, std::int64_t>> times;
    std::map<std::string, std::uint64_t> threads;
    for (const auto& s : d.slices) {
        times[s.name] = {s.begin, s.end};
        threads[s.name] = s.thread;
    }
    CHECK(times["inner"] == std::pair<std::int64_t, std::int64_t>{10'000, 12'000});
    CHECK(times["point"] == std::pair<std::int64_t, std::int64_t>{10'000, 10'000});
    CHECK(times["outer"] == std::pair<std::int64_t, std::int64_t>{10'000, 20'000});
    CHECK(times["next"] == std::pair<std::int64_t, std::int64_t>{20'000, 25'000});
    // All on the thread's own track: they nest, nothing overflows.
    CHECK(threads["inner"] == threads["outer"]);
    CHECK(threads["point"] == threads["outer"]);
}

TEST_CASE("perfetto_trace: the same bytes with room reserved (and faulted in ahead) or grown") {
    std::mt19937_64 rng(5);
    const std::vector<slice_spec> slices = tied_slices(rng, 70'000);
    std::vector<flow_spec> flows;
    for (std::int64_t id = 0; id < 20'000; ++id) flows.push_back({id, rng() % slices.size(), rng() % slices.size()});
    const std::string grown = two_passes(slices, flows, false);
    const std::string reserved = two_passes(slices, flows, true);
    CHECK(grown.size() > slices.size() * 20);
    CHECK(grown == reserved);
    // Each flow starts once and ends once.
    std::map<std::uint64_t, std::pair<int, int>> roles;
    for (const auto& [id, start] : decode_trace(grown).flow_ids) ++(start ? roles[id].first : roles[id].second);
    CHECK(roles.size() == flows.size() + 1);
    std::size_t whole = 0;
    for (const auto& [id, r] : roles) whole += r == std::pair<int, int>{1, 1};
    CHECK(whole == flows.size() + 1);
}

TEST_CASE("perfetto_trace: a write error comes out of the call that wrote, and nothing is written after it") {
    std::mt19937_64 rng(5);
    const std::vector<slice_spec> slices = tied_slices(rng, 70'000);
    std::vector<flow_spec> flows;
    for (std::int64_t id = 0; id < 20'000; ++id) flows.push_back({id, rng() % slices.size(), rng() % slices.size()});
    // Write 1: the start and the ENDs' first block; 3: the second pass's.
    for (const int fail_at : {1, 3}) {
        CAPTURE(fail_at);
        int calls = 0;
        const auto failing = [&](std::string_view) {
            if (++calls == fail_at) throw std::runtime_error("out.pftrace: cannot write: No space left on device");
            REQUIRE(calls < fail_at);
        };
        CHECK_THROWS_WITH_AS(write_two_passes(slices, flows, failing), "out.pftrace: cannot write: No space left on device",
                             std::runtime_error);
        CHECK(calls == fail_at);
    }
}

TEST_CASE("perfetto_trace: a second pass that is not the first is refused") {
    perfetto_trace pb;
    pb.slice(pf_slice{"event", "a", 4, 10, 1.0, 2.0, 0, pf_slice::inline_text});
    pb.slice(pf_slice{"event", "b", 4, 11, 1.0, 2.0, 1, pf_slice::inline_text});
    pf_backend& second = pb.write_ends([](std::string_view) {});
    SUBCASE("a slice fewer") {
        second.slice(pf_slice{"event", "a", 4, 10, 1.0, 2.0, 0, pf_slice::inline_text});
        CHECK_THROWS_AS(pb.finish(), std::logic_error);
    }
    SUBCASE("other times") {
        second.slice(pf_slice{"event", "a", 4, 10, 1.0, 2.0, 0, pf_slice::inline_text});
        second.slice(pf_slice{"event", "b", 4, 11, 1.0, 3.0, 1, pf_slice::inline_text});
        CHECK_THROWS_AS(pb.finish(), std::logic_error);
    }
    SUBCASE("another thread") {
        CHECK_THROWS_AS(second.slice(pf_slice{"event", "a", 4, 11, 1.0, 2.0, 0, pf_slice::inline_text}),
                        std::logic_error);
    }
    SUBCASE("a slice more") {
        second.slice(pf_slice{"event", "a", 4, 10, 1.0, 2.0, 0, pf_slice::inline_text});
        second.slice(pf_slice{"event", "b", 4, 11, 1.0, 2.0, 1, pf_slice::inline_text});
        CHECK_THROWS_AS(second.slice(pf_slice{"event", "b", 4, 11, 1.0, 2.0, 1, pf_slice::inline_text}),
                        std::logic_error);
    }
    SUBCASE("a flow in the second pass") {
        CHECK_THROWS_AS(second.flow(0, 's', 4, 10, 1.0, 0), std::logic_error);
    }
    SUBCASE("the same slices: accepted") {
        second.slice(pf_slice{"event", "a", 4, 10, 1.0, 2.0, 0, pf_slice::inline_text});
        second.slice(pf_slice{"event", "b", 4, 11, 1.0, 2.0, 1, pf_slice::inline_text});
        CHECK_NOTHROW(pb.finish());
    }
}

TEST_CASE("recorded chunks: an error in a chunk, in its numbers or in the hand-over comes out once both threads stop") {
    // The protobuf first pass runs a section's chunks on two threads into
    // recorders and hands them in in order on this thread
    // (trace_context::in_chunks): whatever fails, on either thread, is
    // thrown here, after the helper thread is joined (or the process would
    // end in std::terminate).
    namespace sw = dfx::convert::swimlane;
    enum fault { in_a_chunk, in_the_numbers, in_the_hand_over };
    for (const fault f : {in_a_chunk, in_the_numbers, in_the_hand_over}) {
        CAPTURE(static_cast<int>(f));
        test_support::scratch_dir dir;
        dfx::convert::json_file_writer file(dir.file("t.pftrace"));
        sw::trace_options opt;
        opt.format = sw::trace_format::perfetto;
        opt.warnings = nullptr;
        opt.chunk_items = 2;  // 50 chunks: both threads take many
        perfetto_trace pb;
        sw::trace::trace_context cx(file, opt, 0, &pb);
        std::int64_t counter = 0;
        const auto body = [&](sw::trace::event_sink& ev, std::size_t i, std::int64_t& number,
                              sw::trace::part_state&) {
            if (f == in_a_chunk && i == 37) throw std::runtime_error("item 37 failed");
            // An event id too large for the backend's tables: refused when
            // the chunk is handed in.
            const std::int64_t id = f == in_the_hand_over && i == 41 ? std::int64_t{1} << 40 : std::int64_t(i);
            ev.slice(pf_slice{"event", "x", 4, 10, static_cast<double>(i), 1.0, id}, {});
            number += f == in_the_numbers && i == 13 ? 2 : 1;
        };
        const auto run = [&] { cx.in_chunks(100, counter, [](std::size_t) { return 1; }, body); };
        if (f == in_a_chunk) CHECK_THROWS_WITH_AS(run(), "item 37 failed", std::runtime_error);
        if (f == in_the_numbers) CHECK_THROWS_AS(run(), std::logic_error);
        if (f == in_the_hand_over) CHECK_THROWS_AS(run(), std::length_error);
    }
}
