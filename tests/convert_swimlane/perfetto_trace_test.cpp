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
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/common/same_text.hpp"
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
                      bool reserved = false, std::size_t end_block = std::size_t{1} << 15) {
    perfetto_trace pb;
    if (reserved) pb.reserve(slices.size(), 2 * flows.size());
    pb.end_block(end_block);
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
                       bool reserved = false, std::size_t end_block = std::size_t{1} << 15) {
    std::string bytes;
    write_two_passes(slices, flows, [&](std::string_view b) { bytes.append(b); }, reserved, end_block);
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
        const std::string bytes = two_passes(slices, flows);
        // The ENDs in blocks of 1, 2, 5 and 64 slices, on two threads: the same bytes.
        for (const std::size_t block : {1, 2, 5, 64}) CHECK(two_passes(slices, flows, false, block) == bytes);
        const decoded_trace d = decode_trace(bytes);
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

TEST_CASE("perfetto_trace: flows placed on a chunk's thread bind as the backend's own thread binds them") {
    // After end_of_slices() a section's chunks place their flows where they
    // run (place_flow(), with the chunk's own fingers) and hand in the
    // answer (placed_flow()); the trace must be the one flow() writes: by
    // event id, by time on the thread, and on a thread with no slices (not
    // placed there: flow() places it when handed in).
    std::mt19937_64 rng(41);
    for (int round = 0; round < 6; ++round) {
        const std::vector<slice_spec> slices = tied_slices(rng, 200 + rng() % 3000);
        struct endpoint {
            std::int64_t id;
            char ph;
            std::int64_t tid;
            double ts;
            std::int64_t bind_id;
        };
        std::vector<endpoint> ends;
        for (std::int64_t id = 0; id < 2000; ++id) {
            for (const char ph : {'s', 'f'}) {
                const std::size_t at = rng() % slices.size();
                const slice_spec& sl = slices[at];
                const bool by_time = rng() % 2 == 0;  // inside the slice, or just past it: found by time
                const double inside = sl.ts + static_cast<double>(rng() % 3) * sl.dur / 2;
                const double ts = by_time ? inside + (rng() % 5 == 0) : sl.ts;
                const std::int64_t tid = rng() % 50 == 0 ? 77 : sl.tid;  // thread 77: no slices
                ends.push_back({id, ph, tid, ts, by_time ? -1 : static_cast<std::int64_t>(at)});
            }
        }
        std::size_t placed = 0;
        const auto trace = [&](bool place) {
            perfetto_trace pb;
            pb.process_name(4, "Worker View");
            for (std::size_t i = 0; i < slices.size(); ++i) {
                const slice_spec& sl = slices[i];
                pb.slice(pf_slice{"event", sl.name, 4, sl.tid, sl.ts, sl.dur, static_cast<std::int64_t>(i)}, {});
            }
            pb.end_of_slices();
            std::vector<std::uint32_t> fingers;
            for (std::size_t i = 0; i < ends.size(); ++i) {
                const endpoint& e = ends[i];
                if (i % 7 == 0) fingers.clear();  // a new chunk's
                pf_backend::flow_place where;
                if (place && pb.place_flow(4, e.tid, e.ts, e.bind_id, fingers, where)) {
                    ++placed;
                    pb.placed_flow(e.id, e.ph, e.ts, where);
                } else {
                    pb.flow(e.id, e.ph, 4, e.tid, e.ts, e.bind_id);
                }
            }
            std::string bytes;
            pf_backend& second = pb.write_ends([&](std::string_view b) { bytes.append(b); });
            for (std::size_t i = 0; i < slices.size(); ++i) {
                const slice_spec& sl = slices[i];
                second.slice(pf_slice{"event", sl.name, 4, sl.tid, sl.ts, sl.dur, static_cast<std::int64_t>(i)}, {});
            }
            pb.finish();
            return bytes;
        };
        const std::string bound_here = trace(false);
        const std::string placed_there = trace(true);
        REQUIRE(bound_here.size() > 1000);
        CHECK(placed_there == bound_here);
        CHECK(placed > ends.size() * 9 / 10);  // all but thread 77's
        CHECK(placed < ends.size());
        CHECK(decode_trace(placed_there).problems.empty());
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
    SUBCASE("the same slices in another order") {
        // (Two on one thread: each goes where the first pass had a slice
        // of its thread, so only their places tell them apart.)
        second.slice(pf_slice{"event", "a", 4, 10, 1.0, 2.0, 0, pf_slice::inline_text});
        second.slice(pf_slice{"event", "b", 4, 11, 1.0, 2.0, 1, pf_slice::inline_text});
        perfetto_trace two;
        two.slice(pf_slice{"event", "c", 4, 12, 1.0, 2.0, -1, pf_slice::inline_text});
        two.slice(pf_slice{"event", "d", 4, 12, 5.0, 3.0, -1, pf_slice::inline_text});
        pf_backend& again = two.write_ends([](std::string_view) {});
        again.slice(pf_slice{"event", "d", 4, 12, 5.0, 3.0, -1, pf_slice::inline_text});
        again.slice(pf_slice{"event", "c", 4, 12, 1.0, 2.0, -1, pf_slice::inline_text});
        CHECK_THROWS_AS(two.finish(), std::logic_error);
    }
    SUBCASE("a name the first pass did not intern") {
        CHECK_THROWS_AS(second.slice(pf_slice{"other", "a", 4, 10, 1.0, 2.0, 0, pf_slice::inline_text}),
                        std::logic_error);
    }
    SUBCASE("a slice or a text for the first pass once the second has begun") {
        // (Its texts are the second pass's now.)
        CHECK_THROWS_AS(pb.slice(pf_slice{"event", "a", 4, 10, 1.0, 2.0, 0, pf_slice::inline_text}), std::logic_error);
        CHECK_THROWS_AS(pb.intern_text(dfx::convert::swimlane::trace::pf_text::category, "event"), std::logic_error);
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

namespace {
// Item i of a section as the slice sections write them: literals, texts
// built in a buffer that is reused (the same address, other bytes), a
// task's label as a temporary, text args, counters of one and of several
// points, empty texts, and three BEGINs at one time on one track written
// shortest first (a held group, across chunks when they are small).
constexpr std::size_t items = 47;
void item_calls(pf_backend& to, std::size_t i) {
    thread_local std::string reused;
    if (i < 3) {
        const std::string event = "event";  // the same text at another address
        to.slice(pf_slice{i == 2 ? std::string_view(event) : "event", std::string(1, static_cast<char>('a' + i)), 4,
                          10, static_cast<double>(i), 1.0, -1, pf_slice::inline_text},
                 {});
    } else if (i < 43) {
        const auto j = static_cast<std::int64_t>(i - 3);
        // ("Finished", once: at the address and of the size of the names before it.)
        reused.assign(j == 10 ? "Finished" : j % 3 == 0 ? "Sched" : j % 3 == 1 ? "Dispatch" : "Complete");
        const std::string label = "QK(t" + std::to_string(j) + ")";
        const double ts = 1.5 * static_cast<double>(j);
        to.slice(pf_slice{"event", label, 4, 10 + j % 3, ts, 0.25 * static_cast<double>(j), j, pf_slice::inline_text},
                 {pf_arg::of("taskId", j), pf_arg::of_us("kernel-duration-us", 0.5 * static_cast<double>(j)),
                  pf_arg::of_text("kernel", reused)});
        to.slice(pf_slice{"scheduler", reused, 2, 7, ts, 1.0, -1}, {});
        if (j % 4 == 0) to.counter(2, "shared_ready_queue AIC", ts, j);
        if (j % 5 == 0) to.counters(2, {{"ready AIC", j}, {"ready AIV", -j}, {reused, 2 * j}}, ts + 0.5);
    } else if (i == 43) {
        to.slice(pf_slice{"", "", 0, 0, 0.0, 0.0, -1}, {pf_arg::of_text("", "")});  // empty texts
    } else {
        const double dur[] = {1.0, 5.0, 3.0};
        to.slice(pf_slice{"event", "held", 4, 20, 100.0, dur[i - 44], -1}, {pf_arg::of("rank", 44)});
    }
}

// A protobuf trace's options, its sections in chunks of `chunk_items`, quiet.
dfx::convert::swimlane::trace_options perfetto_options(std::size_t chunk_items) {
    dfx::convert::swimlane::trace_options opt;
    opt.format = dfx::convert::swimlane::trace_format::perfetto;
    opt.warnings = nullptr;
    opt.chunk_items = chunk_items;
    return opt;
}

// Both passes over the items: made directly (chunk_items 0), or as a
// section of chunks of `chunk_items` on two threads in each pass.
std::string item_trace(std::size_t chunk_items) {
    namespace sw = dfx::convert::swimlane;
    test_support::scratch_dir dir;
    dfx::convert::json_file_writer file(dir.file("t.pftrace"));
    const sw::trace_options opt = perfetto_options(chunk_items);
    // Two sections, with calls outside chunks before, between and after them.
    const auto all_items = [&](pf_backend& to) {
        const auto outside = [&](double ts) {
            to.slice(pf_slice{"host", "outside", 1, 1, ts, 2.0, -1}, {pf_arg::of("at", static_cast<std::int64_t>(ts))});
            to.counter(2, "shared_ready_queue AIC", ts, 7);
        };
        const auto section = [&](std::size_t from, std::size_t to_item) {
            if (chunk_items == 0) {
                for (std::size_t i = from; i < to_item; ++i) item_calls(to, i);
                return;
            }
            sw::trace::trace_context cx(file, opt, 0, &to);
            cx.in_chunks(to_item - from, [&](sw::trace::event_sink& ev, std::size_t i) {
                item_calls(*ev.protobuf(), from + i);
            });
        };
        outside(0.0);
        section(0, 20);
        outside(30.0);
        section(20, items);
        outside(60.0);
    };
    perfetto_trace pb;
    all_items(pb);
    std::string bytes;
    all_items(pb.write_ends([&](std::string_view b) { bytes.append(b); }));
    pb.finish();
    return bytes;
}
}  // namespace

TEST_CASE("second pass in chunks: each chunk encoded where it runs, the same bytes as the calls made in order") {
    // Every text is interned in the first pass and written at the trace's
    // start, and each chunk is told where its slices start: so a chunk's
    // packets depend on nothing before them, whatever size the chunks are,
    // whichever thread ran them, and a held BEGIN finds its group.
    const std::string direct = item_trace(0);
    const decoded_trace d = decode_trace(direct);
    CHECK(d.problems.empty());
    CHECK(d.slices.size() == 3 + 80 + 1 + 3 + 3);
    for (const std::size_t chunk_items : {1, 2, 3, 5, 47, 1024}) {
        CAPTURE(chunk_items);
        CHECK(item_trace(chunk_items) == direct);
    }
}

TEST_CASE("same_text: the same bytes, at any length, whichever byte differs") {
    using dfx::convert::same_text;
    const std::string base = "kernel-duration-us, and more";
    for (std::size_t n = 0; n <= base.size(); ++n) {
        const std::string a = base.substr(0, n);
        std::string b = a;  // the same bytes elsewhere
        CHECK(same_text(a, b));
        if (n < base.size()) CHECK_FALSE(same_text(a, base.substr(0, n + 1)));
        for (std::size_t i = 0; i < n; ++i) {
            std::string c = a;
            c[i] = static_cast<char>(c[i] ^ 0x20);
            CAPTURE(n);
            CAPTURE(i);
            CHECK_FALSE(same_text(a, c));
        }
    }
}

TEST_CASE("recorded chunks: an error in a chunk, in its numbers or in the hand-over comes out once both threads stop") {
    // The protobuf backend's passes run a section's chunks on two threads
    // into recorders and hand them in in order on this thread
    // (trace_context::in_chunks): whatever fails, on either thread, in
    // either pass, is thrown here, after the helper thread is joined (or
    // the process would end in std::terminate).
    namespace sw = dfx::convert::swimlane;
    enum fault { in_a_chunk, in_the_numbers, in_the_hand_over };
    for (const int pass : {1, 2}) {
        for (const fault f : {in_a_chunk, in_the_numbers, in_the_hand_over}) {
            CAPTURE(pass);
            CAPTURE(static_cast<int>(f));
            test_support::scratch_dir dir;
            dfx::convert::json_file_writer file(dir.file("t.pftrace"));
            const sw::trace_options opt = perfetto_options(2);  // 50 chunks: both threads take many
            perfetto_trace pb;
            const auto slice_of = [](std::size_t i, std::int64_t tid, std::int64_t id) {
                return pf_slice{"event", "x", 4, tid, static_cast<double>(i), 1.0, id};
            };
            pf_backend* backend = &pb;
            if (pass == 2) {  // the first pass's slices, then the second's backend
                sw::trace::trace_context first(file, opt, 0, &pb);
                first.in_chunks(100, [&](sw::trace::event_sink& ev, std::size_t i) {
                    ev.slice(slice_of(i, 10, static_cast<std::int64_t>(i)), {});
                });
                pb.end_of_slices();
                backend = &pb.write_ends([](std::string_view) {});
            }
            sw::trace::trace_context cx(file, opt, 0, backend);
            std::int64_t counter = 0;
            const auto body = [&](sw::trace::event_sink& ev, std::size_t i, std::int64_t& number,
                                  sw::trace::part_state&) {
                if (f == in_a_chunk && i == 37) throw std::runtime_error("item 37 failed");
                // Refused when the chunk is handed in: in the first pass an
                // event id too large for the backend's tables, in the second
                // a chunk with a slice fewer than the first pass counted.
                const bool refused = f == in_the_hand_over && i == 41;
                const auto id = static_cast<std::int64_t>(i);
                if (pass == 1) ev.slice(slice_of(i, 10, refused ? std::int64_t{1} << 40 : id), {});
                if (pass == 2 && !refused) ev.slice(slice_of(i, 10, id), {});
                number += f == in_the_numbers && i == 13 ? 2 : 1;
            };
            const auto run = [&] { cx.in_chunks(100, counter, [](std::size_t) { return 1; }, body); };
            if (f == in_a_chunk) CHECK_THROWS_WITH_AS(run(), "item 37 failed", std::runtime_error);
            if (f == in_the_numbers) CHECK_THROWS_AS(run(), std::logic_error);
            if (f == in_the_hand_over && pass == 1) CHECK_THROWS_AS(run(), std::length_error);
            if (f == in_the_hand_over && pass == 2) {
                CHECK_THROWS_WITH_AS(run(), "perfetto_trace: a chunk of the second pass had other slices than the first's",
                                     std::logic_error);
            }
        }
    }
}

TEST_CASE("recorded chunks: however slow the backend, the other thread runs only a few chunks ahead of it") {
    // The first pass's recorded calls waiting to be handed in stay a few
    // chunks' worth, however slow the backend that takes them.
    namespace sw = dfx::convert::swimlane;
    struct slow_backend final : pf_backend {
        std::atomic<std::size_t>* run = nullptr;
        std::size_t handed = 0, most_ahead = 0;
        [[nodiscard]] bool wants_skeletons_only() const noexcept override { return true; }  // chunks recorded
        void process_name(int, std::string_view) override {}
        void thread_name(int, std::int64_t, std::string_view) override {}
        void slice_span(const pf_slice&, std::span<const pf_arg>) override {
            most_ahead = std::max(most_ahead, run->load() - handed++);
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        void flow(std::int64_t, char, int, std::int64_t, double, std::int64_t) override {}
        void counter(int, std::string_view, double, std::int64_t) override {}
        void counters_span(int, std::span<const dfx::convert::swimlane::trace::pf_point>, double) override {}
    };
    test_support::scratch_dir dir;
    dfx::convert::json_file_writer file(dir.file("t.pftrace"));
    const sw::trace_options opt = perfetto_options(4);
    std::atomic<std::size_t> run{0};
    slow_backend slow;
    slow.run = &run;
    sw::trace::trace_context cx(file, opt, 0, &slow);
    cx.in_chunks(400, [&](sw::trace::event_sink& ev, std::size_t i) {
        ++run;
        ev.slice(pf_slice{"event", "x", 4, 10, static_cast<double>(i), 1.0, -1}, {});
    });
    CHECK(slow.handed == 400);
    // Each slice handed in: at most the chunks this thread and the other one
    // may have run (the one handed in, 8 ahead, one running here) past it.
    CHECK(slow.most_ahead <= 10 * opt.chunk_items);
}

TEST_CASE("recorded chunks: however slow the writing, the second pass's encoded chunks waiting stay a few") {
    // Each chunk of the second pass is encoded where it runs and written in
    // chunk order: at 10^7 tasks the chunks' bytes would pile up if the
    // sections ran far ahead of the file.
    namespace sw = dfx::convert::swimlane;
    test_support::scratch_dir dir;
    dfx::convert::json_file_writer file(dir.file("t.pftrace"));
    const sw::trace_options opt = perfetto_options(4);
    constexpr std::size_t items = 400;
    const auto slice_of = [](std::size_t i) {
        return pf_slice{"event", "x", 4, 10, static_cast<double>(i), 1.0, -1, pf_slice::inline_text};
    };
    perfetto_trace pb;
    sw::trace::trace_context first(file, opt, 0, &pb);
    first.in_chunks(items, [&](sw::trace::event_sink& ev, std::size_t i) { ev.slice(slice_of(i), {}); });
    std::atomic<std::size_t> run{0};
    std::size_t chunks_written = 0, most_ahead = 0;
    bool second_pass = false;
    pf_backend& second = pb.write_ends([&](std::string_view) {
        if (!second_pass) return;
        ++chunks_written;  // (one write a chunk: nothing held, nothing outside chunks)
        most_ahead = std::max(most_ahead, run.load() - opt.chunk_items * chunks_written);
        std::this_thread::sleep_for(std::chrono::microseconds(500));
    });
    second_pass = true;
    sw::trace::trace_context cx(file, opt, 0, &second);
    cx.in_chunks(items, [&](sw::trace::event_sink& ev, std::size_t i) {
        ++run;
        ev.slice(slice_of(i), {});
    });
    pb.finish();
    CHECK(chunks_written == items / opt.chunk_items);
    // Past the chunk being written: at most the 8 ahead and one running here.
    CHECK(most_ahead <= 10 * opt.chunk_items);
}
