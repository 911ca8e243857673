// pf_flow_binder: a flow endpoint binds to the slice of its event id on its
// track, else to the innermost slice of its track that holds its time. The
// search by time gallops from where the track's last search landed; here it
// is checked against a plain binary search over the whole track, on random
// nested slices and endpoints in time order, in reverse and shuffled.
// pf_slice_flows hands back each slice's endpoints in arrival order. (The
// whole perfetto_trace: perfetto_trace_test.cpp.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "dfx/convert/swimlane/trace/perfetto_flow_binder.hpp"

using dfx::convert::swimlane::trace::pf_flow_binder;
using dfx::convert::swimlane::trace::pf_slice_flows;
using dfx::convert::swimlane::trace::pf_slice_rec;

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
    binder.release();  // the slices stay in (track, time) order
    CHECK(std::is_sorted(slices.begin(), slices.end(), [](const pf_slice_rec& a, const pf_slice_rec& b) {
        return a.track != b.track ? a.track < b.track : a.begin < b.begin;
    }));
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
