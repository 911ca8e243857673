// sweep_breakpoints walks the same segments with the same counts as the
// sweep it replaced (16-byte deltas sorted by time, the distinct breakpoint
// times sorted apart, a ready flag stored per breakpoint), and answers
// Part 2's questions (ready at t, breakpoints inside a gap) as the stored
// steps did: checked against that algorithm, kept here as the reference, on
// hand-made and random events (ties, zero-length windows, w1 < w0).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <tuple>
#include <vector>

#include "dfx/convert/swimlane/sweep_breakpoints.hpp"

namespace sw = dfx::convert::swimlane;

namespace {

struct event {
    std::size_t slot;
    double begin, end;
    bool ready;  // a ready interval, else a run
};

struct segment {
    double a, b;
    std::vector<std::int64_t> running, ready;
    bool operator==(const segment& o) const {
        return std::tie(a, b, running, ready) == std::tie(o.a, o.b, o.running, o.ready);
    }
};

// The replaced sweep, as it was: deltas sorted by time, applied while <= a.
struct reference {
    std::vector<segment> segments;
    std::vector<double> times;  // every distinct breakpoint
    std::vector<double> step_times;
    std::vector<std::vector<std::uint8_t>> step_ready;

    reference(double w0, double w1, std::size_t slots, const std::vector<event>& events,
              const std::vector<double>& bare) {
        struct delta {
            double t;
            std::size_t slot;
            int run, ready;
        };
        std::vector<delta> deltas;
        times = {w0, w1};
        for (const event& e : events) {
            deltas.push_back({e.begin, e.slot, e.ready ? 0 : 1, e.ready ? 1 : 0});
            deltas.push_back({e.end, e.slot, e.ready ? 0 : -1, e.ready ? -1 : 0});
            times.push_back(e.begin);
            times.push_back(e.end);
        }
        times.insert(times.end(), bare.begin(), bare.end());
        std::sort(times.begin(), times.end());
        times.erase(std::unique(times.begin(), times.end()), times.end());
        std::stable_sort(deltas.begin(), deltas.end(), [](const delta& x, const delta& y) { return x.t < y.t; });
        std::vector<std::int64_t> running(slots, 0), ready(slots, 0);
        step_ready.resize(slots);
        std::size_t d = 0;
        for (std::size_t i = 0; i + 1 < times.size(); ++i) {
            while (d < deltas.size() && deltas[d].t <= times[i]) {
                running[deltas[d].slot] += deltas[d].run;
                ready[deltas[d].slot] += deltas[d].ready;
                ++d;
            }
            segments.push_back({times[i], times[i + 1], running, ready});
            step_times.push_back(times[i]);
            for (std::size_t s = 0; s < slots; ++s) step_ready[s].push_back(ready[s] > 0 ? 1 : 0);
        }
    }
    [[nodiscard]] bool any_ready_at(std::size_t slot, double t) const {
        if (step_times.empty() || t < step_times.front()) return false;
        const auto idx = std::upper_bound(step_times.begin(), step_times.end(), t) - step_times.begin() - 1;
        return step_ready[slot][static_cast<std::size_t>(idx)] != 0;
    }
    [[nodiscard]] std::vector<double> between(double lo, double hi) const {
        std::vector<double> out;
        for (auto it = std::upper_bound(times.begin(), times.end(), lo); it != times.end() && *it < hi; ++it) {
            out.push_back(*it);
        }
        return out;
    }
};

sw::sweep_breakpoints build(double w0, double w1, std::size_t slots, const std::vector<event>& events,
                            const std::vector<double>& bare) {
    sw::sweep_breakpoints b(w0, w1, slots);
    for (const event& e : events) {
        if (e.ready) b.add_ready(e.slot, e.begin, e.end);
        else b.add_run(e.slot, e.begin, e.end);
    }
    for (const double t : bare) b.add_bare(t);
    b.sort();
    return b;
}

std::vector<segment> walked(const sw::sweep_breakpoints& b) {
    std::vector<segment> out;
    b.walk([&](double a, double bb, const auto& running, const auto& ready) {
        out.push_back({a, bb, running, ready});
    });
    return out;
}

// Same segments, same ready answers at every breakpoint and between them,
// same breakpoints inside every pair of probe times below the last one.
void check_against_reference(double w0, double w1, std::size_t slots, const std::vector<event>& events,
                             const std::vector<double>& bare) {
    const reference ref(w0, w1, slots, events, bare);
    const sw::sweep_breakpoints b = build(w0, w1, slots, events, bare);
    REQUIRE(walked(b) == ref.segments);
    std::vector<double> probes = ref.step_times;
    for (std::size_t i = 0; i + 1 < ref.step_times.size(); ++i)
        probes.push_back((ref.step_times[i] + ref.step_times[i + 1]) / 2);
    probes.push_back(std::min(w0, w1) - 1);
    for (const double t : probes) {
        for (std::size_t s = 0; s < slots; ++s) CHECK(b.any_ready_at(s, t) == ref.any_ready_at(s, t));
    }
    for (std::size_t i = 0; i < probes.size(); ++i) {
        for (std::size_t j = 0; j < probes.size(); j += 3) {
            if (!(probes[i] < probes[j])) continue;
            std::vector<double> got{-1.0};  // appended after what is there
            b.breakpoints_between(probes[i], probes[j], got);
            std::vector<double> want{-1.0};
            const auto inside = ref.between(probes[i], probes[j]);
            want.insert(want.end(), inside.begin(), inside.end());
            CHECK(got == want);
        }
    }
}

}  // namespace

TEST_CASE("sweep_breakpoints: a hand-made sweep, two types") {
    // Type 0 runs [0, 4) and [2, 6); type 1 is ready [1, 3) twice (equal
    // times) and runs [3, 5); a bare breakpoint at 5.5 splits a segment.
    const std::vector<event> events{
        {0, 0, 4, false}, {0, 2, 6, false}, {1, 1, 3, true}, {1, 1, 3, true}, {1, 3, 5, false}};
    const sw::sweep_breakpoints b = build(0, 6, 2, events, {5.5});
    const std::vector<segment> want{
        {0, 1, {1, 0}, {0, 0}}, {1, 2, {1, 0}, {0, 2}}, {2, 3, {2, 0}, {0, 2}},   {3, 4, {2, 1}, {0, 0}},
        {4, 5, {1, 1}, {0, 0}}, {5, 5.5, {1, 0}, {0, 0}}, {5.5, 6, {1, 0}, {0, 0}},
    };
    CHECK(walked(b) == want);
    CHECK_FALSE(b.any_ready_at(1, 0.5));
    CHECK(b.any_ready_at(1, 1));
    CHECK(b.any_ready_at(1, 2.9));
    CHECK_FALSE(b.any_ready_at(1, 3));
    CHECK_FALSE(b.any_ready_at(0, 2));
    std::vector<double> pts;
    b.breakpoints_between(1, 5.5, pts);
    CHECK(pts == std::vector<double>{2, 3, 4, 5});
    check_against_reference(0, 6, 2, events, {5.5});
}

TEST_CASE("sweep_breakpoints: degenerate windows") {
    check_against_reference(3, 3, 1, {{0, 3, 3, false}}, {});
    check_against_reference(5, 2, 2, {{0, 5, 5, false}, {1, 5, 5, true}}, {5});  // w1 < w0: every time clamps to w0
    check_against_reference(0, 1, 3, {}, {});
    const sw::sweep_breakpoints empty(0, 0, 1);
    CHECK(walked(empty).empty());
    CHECK_FALSE(empty.any_ready_at(0, 0));
}

TEST_CASE("sweep_breakpoints: random events against the sorted-delta sweep") {
    std::mt19937_64 rng(19);
    for (int round = 0; round < 200; ++round) {
        const std::size_t slots = 1 + rng() % 3;
        const double w0 = static_cast<double>(rng() % 5);
        const double w1 = w0 + static_cast<double>(rng() % 40);
        auto at = [&] { return w0 + static_cast<double>(rng() % 41) / 40.0 * (w1 - w0); };  // many ties
        std::vector<event> events;
        const std::size_t n = rng() % 30;
        for (std::size_t i = 0; i < n; ++i) {
            double x = at(), y = at();
            if (y < x) std::swap(x, y);
            if (!(y > x)) continue;  // the sweep adds only non-empty intervals
            events.push_back({rng() % slots, x, y, rng() % 2 == 0});
        }
        std::vector<double> bare;
        for (std::size_t i = rng() % 3; i > 0; --i) bare.push_back(at());
        CAPTURE(round);
        check_against_reference(w0, w1, slots, events, bare);
    }
}
