// pf_flow_binder: a flow endpoint binds to the slice of its event id on its
// track, else to the innermost slice of its track that holds its time. The
// search by time gallops from where the track's last search landed; here it
// is checked against a plain binary search over the whole track, on random
// nested slices and endpoints in time order, in reverse and shuffled.
// pf_slice_table keeps a long slice's end exactly. pf_slice_flows hands back
// each slice's starts and ends in arrival order. (The whole perfetto_trace:
// perfetto_trace_test.cpp.)
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
using dfx::convert::swimlane::trace::pf_slice_table;

namespace {

// The binding by time as a binary search over the track's whole run (the
// slices sorted by pf_flow_binder::index()).
std::uint32_t bind_by_search(const pf_slice_table& table, std::uint32_t track, std::int64_t ts) {
    const std::vector<pf_slice_rec>& slices = table.records();
    auto lo = std::find_if(slices.begin(), slices.end(), [&](const pf_slice_rec& r) { return r.track == track; });
    const auto end = std::find_if(lo, slices.end(), [&](const pf_slice_rec& r) { return r.track != track; });
    auto hi = std::upper_bound(lo, end, ts, [](std::int64_t t, const pf_slice_rec& r) { return t < r.begin; });
    for (int steps = 0; hi != lo && steps < 64; ++steps) {
        --hi;
        if (table.end_of(*hi) >= ts) return static_cast<std::uint32_t>(hi - slices.begin());
    }
    return pf_flow_binder::none;
}

// Random nested slices on `tracks` tracks, written in any order. `scale`
// stretches the times: at 10^9 every slice is longer than 32 bits of ns.
pf_slice_table random_slices(std::mt19937_64& rng, std::uint32_t tracks, std::int64_t scale = 1) {
    struct span {
        std::int64_t begin, end;
        std::uint32_t track;
    };
    std::vector<span> spans;
    for (std::uint32_t t = 0; t < tracks; ++t) {
        std::int64_t at = static_cast<std::int64_t>(rng() % 50);
        const std::size_t n = t == 1 ? 0 : 1 + rng() % 300;  // track 1: no slice at all
        for (std::size_t i = 0; i < n; ++i) {
            const span r{at, at + static_cast<std::int64_t>(rng() % 40), t};
            spans.push_back(r);
            if (rng() % 3 == 0) {  // a slice inside it
                const std::int64_t begin = r.begin + (r.end - r.begin) / 3;
                spans.push_back({begin, begin + (r.end - r.begin) / 3, t});
            }
            at += static_cast<std::int64_t>(rng() % 60);  // gaps, overlaps, equal begins
        }
    }
    std::shuffle(spans.begin(), spans.end(), rng);  // written in any order
    pf_slice_table table;
    for (const span& r : spans) {
        table.push_back(r.begin * scale, r.end * scale, r.track, static_cast<std::uint32_t>(table.size()));
    }
    return table;
}

}  // namespace

TEST_CASE("pf_flow_binder: binding by time matches a binary search, in any order of endpoints") {
    std::mt19937_64 rng(19);
    for (int round = 0; round < 20; ++round) {
        const std::uint32_t tracks = 4;
        pf_slice_table slices = random_slices(rng, tracks);
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
    pf_slice_table slices = random_slices(rng, 3);
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
    CHECK(std::is_sorted(slices.records().begin(), slices.records().end(), [](const pf_slice_rec& a, const pf_slice_rec& b) {
        return a.track != b.track ? a.track < b.track : a.begin < b.begin;
    }));
}

TEST_CASE("pf_slice_table: slices longer than 32 bits of ns keep their ends, sort and bind as short ones do") {
    for (const std::uint64_t seed : {3u, 4u, 5u}) {
        std::mt19937_64 rng(seed);
        pf_slice_table small = random_slices(rng, 4);
        std::mt19937_64 same(seed);
        constexpr std::int64_t scale = 1'000'000'000;  // every length >= 1 s ... 39 s: most are long
        pf_slice_table large = random_slices(same, 4, scale);
        REQUIRE(large.size() == small.size());
        std::size_t long_ones = 0;
        for (std::size_t i = 0; i < large.size(); ++i) {
            CHECK(large.end_of(large[i]) == small.end_of(small[i]) * scale);
            long_ones += large[i].length == pf_slice_rec::long_length;
        }
        CHECK(long_ones > large.size() / 2);
        pf_flow_binder a, b;
        a.index(small, 4);
        b.index(large, 4);
        for (std::size_t i = 0; i < large.size(); ++i) {
            CHECK(large[i].seq == small[i].seq);  // the same order: by end too, where begins tie
            CHECK(large.end_of(large[i]) == small.end_of(small[i]) * scale);
        }
        for (std::uint32_t t = 0; t < 4; ++t) {
            for (std::int64_t ts = 0; ts < 9000; ts += 7) {
                CHECK(b.bind(large, t, ts * scale, -1) == a.bind(small, t, ts, -1));
            }
        }
    }
}

TEST_CASE("pf_slice_table: a slice of any length, a zero-length one, one just under the limit") {
    pf_slice_table t;
    t.push_back(5, 5, 0, pf_slice_rec::no_id);
    t.push_back(0, 0xFFFF'FFFEll, 0, pf_slice_rec::no_id);  // the longest short one
    t.push_back(0, 0xFFFF'FFFFll, 0, pf_slice_rec::no_id);  // the shortest long one
    t.push_back(7, std::int64_t{1} << 62, 0, pf_slice_rec::no_id);
    CHECK(t[0].length == 0);
    CHECK(t[1].length == 0xFFFF'FFFEu);
    CHECK(t[2].length == pf_slice_rec::long_length);
    CHECK(t.end_of(t[0]) == 5);
    CHECK(t.end_of(t[1]) == 0xFFFF'FFFEll);
    CHECK(t.end_of(t[2]) == 0xFFFF'FFFFll);
    CHECK(t.end_of(t[3]) == std::int64_t{1} << 62);
}

namespace {
// What each slice should hand back: its starts' ids and its ends' ids, in
// the order they came.
struct expected_ends {
    std::map<std::uint32_t, std::vector<std::uint32_t>> starts, ends;
};
void check_grouped(const pf_slice_flows& flows, const expected_ends& want, std::uint32_t slices) {
    for (std::uint32_t s = 0; s < slices; ++s) {
        const auto [sf, sl] = flows.starts_of(s);
        const auto [ef, el] = flows.ends_of(s);
        const auto ws = want.starts.find(s);
        const auto we = want.ends.find(s);
        CHECK(std::vector<std::uint32_t>(sf, sl) == (ws == want.starts.end() ? std::vector<std::uint32_t>{} : ws->second));
        CHECK(std::vector<std::uint32_t>(ef, el) == (we == want.ends.end() ? std::vector<std::uint32_t>{} : we->second));
    }
}
}  // namespace

TEST_CASE("pf_slice_flows: each slice's starts and ends, in the order they came") {
    std::mt19937_64 rng(7);
    constexpr std::uint32_t slices = 500;
    // Slices 0, 1 and the last get many; some none at all; some ends none.
    const auto some_slice = [&] {
        const std::uint32_t roll = static_cast<std::uint32_t>(rng() % 12);
        const auto even = static_cast<std::uint32_t>(rng() % (slices / 2)) * 2;
        return roll < 2 ? roll : roll == 2 ? slices - 1 : roll == 3 ? pf_slice_flows::absent : even;
    };
    pf_slice_flows flows;
    expected_ends want;
    std::size_t pairs = 0;
    std::uint32_t id = 0;
    for (std::uint32_t k = 0; k < 5000; ++k) {
        // Mostly consecutive ids; now and then a gap, or an id going back.
        const std::uint32_t roll = static_cast<std::uint32_t>(rng() % 20);
        id = roll == 0 ? id + 2 + static_cast<std::uint32_t>(rng() % 1000) : roll == 1 && id > 50 ? id - 50 : id + 1;
        const std::uint32_t from = some_slice(), to = some_slice();
        const std::uint32_t shape = static_cast<std::uint32_t>(rng() % 10);
        if (shape >= 2) {  // a start, then its end: one link
            flows.add(id, true, from);
            flows.add(id, false, to);
            if (from != pf_slice_flows::absent) want.starts[from].push_back(id);
            if (to != pf_slice_flows::absent) want.ends[to].push_back(id);
            ++pairs;
        } else if (shape == 1) {  // a lone start (its end never comes, or another flow's comes)
            flows.add(id, true, from);
            if (from != pf_slice_flows::absent) want.starts[from].push_back(id);
        } else {  // a lone end
            flows.add(id, false, to);
            if (to != pf_slice_flows::absent) want.ends[to].push_back(id);
        }
    }
    // A link a flow: a pair's two ends share one (a lone start still waiting is not in yet).
    CHECK(pairs > 3000);
    CHECK(flows.links() >= 4999);
    CHECK(flows.links() <= 5000);
    CHECK(flows.froms().size() == flows.links());
    CHECK(flows.tos().size() == flows.links());
    flows.group(slices);
    check_grouped(flows, want, slices);
}

TEST_CASE("pf_slice_flows: an end that is not its start's, a start left waiting") {
    pf_slice_flows flows;
    flows.add(4, true, 0);   // waits for flow 4's end ...
    flows.add(5, false, 1);  // ... which does not come: 4 stands alone, 5 too
    flows.add(6, true, 1);
    flows.add(7, true, 2);   // 6 stands alone
    flows.add(7, false, 0);
    flows.add(9, true, 2);   // left waiting at the end
    flows.group(3);
    expected_ends want;
    want.starts = {{0, {4}}, {1, {6}}, {2, {7, 9}}};
    want.ends = {{0, {7}}, {1, {5}}};
    check_grouped(flows, want, 3);
}

TEST_CASE("pf_slice_flows: no endpoints, or no slices") {
    pf_slice_flows none;
    none.group(3);
    for (std::uint32_t s = 0; s < 3; ++s) {
        CHECK(none.starts_of(s).first == none.starts_of(s).second);
        CHECK(none.ends_of(s).first == none.ends_of(s).second);
    }
    pf_slice_flows empty;
    empty.group(0);
}

TEST_CASE("pf_flow_binder: past 2^16 slices the sort runs on two threads, split inside a track, in one sort's order") {
    // index() splits the slices in halves at a (track, begin) and sorts
    // each half on its own thread; the middle here falls inside the big
    // track, among begins that tie.
    for (const std::uint64_t seed : {11u, 12u}) {
        std::mt19937_64 rng(seed);
        struct span {
            std::int64_t begin, end;
            std::uint32_t track;
        };
        std::vector<span> spans;
        const std::size_t sizes[] = {1000, 100'000, 20'000};
        for (std::uint32_t t = 0; t < 3; ++t) {
            for (std::size_t i = 0; i < sizes[t]; ++i) {
                const auto begin = static_cast<std::int64_t>(rng() % 5000);  // ~20 slices per begin on track 1
                spans.push_back({begin, begin + static_cast<std::int64_t>(rng() % 30), t});
            }
        }
        std::shuffle(spans.begin(), spans.end(), rng);
        pf_slice_table table;
        for (const span& r : spans) table.push_back(r.begin, r.end, r.track, static_cast<std::uint32_t>(table.size()));
        std::vector<pf_slice_rec> expected = table.records();
        std::sort(expected.begin(), expected.end(), [&](const pf_slice_rec& x, const pf_slice_rec& y) {
            if (x.track != y.track) return x.track < y.track;
            if (x.begin != y.begin) return x.begin < y.begin;
            if (table.end_of(x) != table.end_of(y)) return table.end_of(x) > table.end_of(y);
            return x.seq < y.seq;
        });
        pf_flow_binder binder;
        binder.index(table, 3);
        REQUIRE(table.size() == expected.size());
        std::size_t differ = 0;
        for (std::size_t i = 0; i < expected.size(); ++i) differ += table[i].seq != expected[i].seq;
        CHECK(differ == 0);
    }
}
