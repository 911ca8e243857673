// pf_flow_binder: a flow endpoint binds to the slice of its event id on its
// track, else to the innermost slice of its track that holds its time. The
// search by time gallops from where the track's last search landed; here it
// is checked against a plain binary search over the whole track, on random
// nested slices and endpoints in time order, in reverse and shuffled.
// pf_slice_flows hands back each slice's endpoints in arrival order, and a
// whole perfetto_trace comes out the same with its tables' room reserved
// (and faulted in ahead by a second thread) or grown as it goes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "dfx/convert/swimlane/trace/perfetto_flow_binder.hpp"
#include "dfx/convert/swimlane/trace/perfetto_packets.hpp"

using dfx::convert::swimlane::trace::pf_arg;
using dfx::convert::swimlane::trace::pf_flow_binder;
using dfx::convert::swimlane::trace::pf_slice;
using dfx::convert::swimlane::trace::pf_slice_flows;
using dfx::convert::swimlane::trace::pf_slice_rec;
using dfx::convert::swimlane::trace::perfetto_trace;

namespace {

// The binding by time as a binary search over the track's whole run (the
// slices sorted by pf_flow_binder::index()).
std::uint32_t bind_by_search(const std::vector<pf_slice_rec>& slices, std::uint32_t track, std::int64_t ts) {
    auto lo = std::find_if(slices.begin(), slices.end(), [&](const pf_slice_rec& r) { return r.track == track; });
    const auto end = std::find_if(lo, slices.end(), [&](const pf_slice_rec& r) { return r.track != track; });
    auto hi = std::upper_bound(lo, end, ts, [](std::int64_t t, const pf_slice_rec& r) { return t < r.begin; });
    for (int steps = 0; hi != lo && steps < 64; ++steps) {
        --hi;
        if (hi->end >= ts) return static_cast<std::uint32_t>(hi - slices.begin());
    }
    return pf_flow_binder::none;
}

std::vector<pf_slice_rec> random_slices(std::mt19937_64& rng, std::uint32_t tracks) {
    std::vector<pf_slice_rec> slices;
    for (std::uint32_t t = 0; t < tracks; ++t) {
        std::int64_t at = static_cast<std::int64_t>(rng() % 50);
        const std::size_t n = t == 1 ? 0 : 1 + rng() % 300;  // track 1: no slice at all
        for (std::size_t i = 0; i < n; ++i) {
            pf_slice_rec r;
            r.track = t;
            r.begin = at;
            r.end = at + static_cast<std::int64_t>(rng() % 40);
            r.seq = static_cast<std::uint32_t>(slices.size());
            r.event_id = r.seq;
            slices.push_back(r);
            if (rng() % 3 == 0) {  // a slice inside it
                pf_slice_rec inner = r;
                inner.begin = r.begin + (r.end - r.begin) / 3;
                inner.end = inner.begin + (r.end - r.begin) / 3;
                inner.seq = inner.event_id = static_cast<std::uint32_t>(slices.size());
                slices.push_back(inner);
            }
            at += static_cast<std::int64_t>(rng() % 60);  // gaps, overlaps, equal begins
        }
    }
    std::shuffle(slices.begin(), slices.end(), rng);  // written in any order
    return slices;
}

}  // namespace

TEST_CASE("pf_flow_binder: binding by time matches a binary search, in any order of endpoints") {
    std::mt19937_64 rng(19);
    for (int round = 0; round < 20; ++round) {
        const std::uint32_t tracks = 4;
        std::vector<pf_slice_rec> slices = random_slices(rng, tracks);
        pf_flow_binder binder;
        binder.index(slices, tracks);
        std::vector<std::pair<std::uint32_t, std::int64_t>> ends;
        for (std::uint32_t t = 0; t < tracks; ++t) {
            for (std::int64_t ts = -5; ts < 9000; ts += 1 + static_cast<std::int64_t>(rng() % 7)) ends.emplace_back(t, ts);
        }
        if (round % 3 == 1) std::reverse(ends.begin(), ends.end());
        if (round % 3 == 2) std::shuffle(ends.begin(), ends.end(), rng);
        std::size_t bound = 0;
        for (const auto& [track, ts] : ends) {
            const std::uint32_t got = binder.bind(slices, track, ts, -1);
            REQUIRE(got == bind_by_search(slices, track, ts));
            bound += got != pf_flow_binder::none;
        }
        CHECK(bound > 0);
    }
}

TEST_CASE("pf_flow_binder: an event id binds on its own track only") {
    std::mt19937_64 rng(7);
    std::vector<pf_slice_rec> slices = random_slices(rng, 3);
    pf_flow_binder binder;
    binder.index(slices, 3);
    for (std::uint32_t i = 0; i < slices.size(); ++i) {
        const pf_slice_rec& r = slices[i];
        CHECK(binder.bind(slices, r.track, r.begin, r.event_id) == i);
        // On another track the id does not hold: bound by time there.
        const std::uint32_t other = (r.track + 2) % 3;
        CHECK(binder.bind(slices, other, r.begin, r.event_id) == bind_by_search(slices, other, r.begin));
    }
    const std::vector<std::uint32_t> runs = binder.release();
    REQUIRE(runs.size() == 4);
    CHECK(runs.back() == slices.size());
}

TEST_CASE("pf_slice_flows: each slice's endpoints, in the order they came") {
    std::mt19937_64 rng(7);
    constexpr std::uint32_t slices = 500;
    pf_slice_flows flows;
    std::map<std::uint32_t, std::vector<std::uint32_t>> expected;
    for (std::uint32_t k = 0; k < 5000; ++k) {
        // Slices 0, 1 and the last get many; some none at all.
        const std::uint32_t roll = static_cast<std::uint32_t>(rng() % 10);
        const auto even = static_cast<std::uint32_t>(rng() % (slices / 2)) * 2;
        const std::uint32_t s = roll < 2 ? roll : roll == 2 ? slices - 1 : even;
        const std::uint32_t tagged = k | (rng() % 2 ? 1u << 31 : 0u);
        flows.add(s, tagged);
        expected[s].push_back(tagged);
    }
    CHECK(flows.arrivals().size() == 5000);
    flows.group(slices);
    CHECK(flows.arrivals().empty());
    std::size_t seen = 0;
    for (std::uint32_t s = 0; s < slices; ++s) {
        const auto [first, last] = flows.of(s);
        const std::vector<std::uint32_t> got(first, last);
        const auto it = expected.find(s);
        CHECK(got == (it == expected.end() ? std::vector<std::uint32_t>{} : it->second));
        seen += got.size();
    }
    CHECK(seen == 5000);
}

TEST_CASE("pf_slice_flows: no endpoints, or no slices") {
    pf_slice_flows none;
    none.group(3);
    for (std::uint32_t s = 0; s < 3; ++s) CHECK(none.of(s).first == none.of(s).second);
    pf_slice_flows empty;
    empty.group(0);
    CHECK(empty.arrivals().empty());
}

namespace {

// A trace of `tasks` tasks on 4 threads: a slice each with args, flows
// between neighbours (by id and by time), counter points; finished
// through `flush`.
template <class Flush>
void write_small_trace(bool reserved, int tasks, Flush&& flush) {
    perfetto_trace pb;
    if (reserved) pb.reserve(static_cast<std::size_t>(tasks), 2 * static_cast<std::size_t>(tasks), 64);
    pb.process_name(4, "Worker View");
    for (int t = 0; t < 4; ++t) pb.thread_name(4, 100 + t, "core " + std::to_string(t));
    for (int i = 0; i < tasks; ++i) {
        const std::string label = "task(" + std::to_string(i) + ")";
        const double ts = 10.0 * i;
        const std::vector<pf_arg> args{pf_arg::of("taskId", i), pf_arg::of_us("duration", 7.5),
                                       pf_arg::of_text("kernel", "QK")};
        pb.slice(pf_slice{"event", label, 4, 100 + i % 4, ts, 7.5, i, pf_slice::inline_text}, args);
    }
    for (int i = 0; i + 1 < tasks; ++i) {
        pb.flow(2 * i, 's', 4, 100 + i % 4, 10.0 * i + 7.0, i);
        pb.flow(2 * i, 'f', 4, 100 + (i + 1) % 4, 10.0 * (i + 1) + 1.0, -1);  // by time
    }
    for (int i = 0; i < 32; ++i) pb.counter(2, "ready AIC", 40.0 * i, i % 5);
    std::string out;
    pb.finish(out, flush);
}

std::string small_trace(bool reserved, int tasks) {
    std::string trace;
    write_small_trace(reserved, tasks, [&](auto& bytes) {  // as a file writer's flush: takes and empties
        trace.append(bytes.data(), bytes.size());
        bytes.clear();
    });
    return trace;
}

// The flow ids on the track events of a Trace: (id, is a start) in order.
std::vector<std::pair<std::uint64_t, bool>> flow_ids_of(std::string_view trace) {
    namespace pf = dfx::convert::swimlane::trace::pf;
    std::vector<std::pair<std::uint64_t, bool>> ids;
    bool malformed = false;
    // Calls on_field(field, wire type, payload) for each field of `msg`.
    const auto fields = [&malformed](std::string_view msg, auto&& on_field) {
        std::size_t at = 0;
        const auto varint = [&] {
            std::uint64_t v = 0;
            for (int shift = 0; at < msg.size(); shift += 7) {
                const auto byte = static_cast<unsigned char>(msg[at++]);
                v |= std::uint64_t{byte & 0x7Fu} << shift;
                if (!(byte & 0x80)) break;
            }
            return v;
        };
        while (at < msg.size()) {
            const std::uint64_t key = varint();
            const auto wire = static_cast<int>(key & 7);
            std::size_t n = wire == 1 ? 8 : wire == 5 ? 4 : 0;
            if (wire == 0) varint();
            if (wire == 2) n = static_cast<std::size_t>(varint());
            if (at + n > msg.size()) {
                malformed = true;
                return;
            }
            on_field(static_cast<std::uint32_t>(key >> 3), wire, msg.substr(at, n));
            at += n;
        }
    };
    fields(trace, [&](std::uint32_t f, int, std::string_view packet) {
        if (f != pf::trace_packet) return;
        fields(packet, [&](std::uint32_t g, int, std::string_view event) {
            if (g != pf::packet::track_event) return;
            fields(event, [&](std::uint32_t h, int wire, std::string_view v) {
                if ((h != pf::event::flow_ids && h != pf::event::terminating_flow_ids) || wire != 1) return;
                std::uint64_t id = 0;
                for (int b = 7; b >= 0; --b) id = id << 8 | static_cast<unsigned char>(v[static_cast<std::size_t>(b)]);
                ids.emplace_back(id, h == pf::event::flow_ids);
            });
        });
    });
    CHECK_FALSE(malformed);
    return ids;
}

}  // namespace

TEST_CASE("perfetto_trace: the same bytes with room reserved (and faulted in ahead) or grown") {
    // Enough slices for the two-thread sort and packets for several blocks
    // of the two-thread encoding.
    constexpr int n = 70'000;
    const std::string grown = small_trace(false, n);
    const std::string reserved = small_trace(true, n);
    CHECK(grown.size() > std::size_t{n} * 20);
    CHECK(grown == reserved);
    // Each flow (JSON id 2i, Perfetto id 2i + 1) starts once, on task i's
    // slice, and ends once, on task i + 1's.
    const auto ids = flow_ids_of(reserved);
    REQUIRE(ids.size() == 2 * std::size_t{n - 1});
    std::map<std::uint64_t, std::pair<int, int>> roles;  // id -> (starts, ends)
    for (const auto& [id, start] : ids) ++(start ? roles[id].first : roles[id].second);
    CHECK(roles.size() == std::size_t{n - 1});
    std::size_t whole = 0;
    for (std::uint64_t i = 0; i + 1 < std::uint64_t{n}; ++i) whole += roles[2 * i + 1] == std::pair<int, int>{1, 1};
    CHECK(whole == std::size_t{n - 1});
    // Task i's slice carries flow i - 1's end, then flow i's start: the
    // order they were bound in (the slices themselves come in time order).
    CHECK(ids[0] == std::pair<std::uint64_t, bool>{1, true});
    CHECK(ids[1] == std::pair<std::uint64_t, bool>{1, false});
    CHECK(ids[2] == std::pair<std::uint64_t, bool>{3, true});
}

TEST_CASE("perfetto_trace: a write error while the packets are encoded is thrown, not a crash") {
    // The flush of the first block of packets fails (a full disk) while the
    // second thread encodes the rest of that block: the error comes out of
    // finish() (it ended the process with std::terminate before).
    int blocks = 0;
    const auto failing = [&](auto& bytes) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(bytes)>, std::string>) {
            ++blocks;
            throw std::runtime_error("out.pftrace: cannot write: No space left on device");
        }
        bytes.clear();
    };
    CHECK_THROWS_WITH_AS(write_small_trace(true, 70'000, failing), "out.pftrace: cannot write: No space left on device",
                         std::runtime_error);
    CHECK(blocks == 1);
}
