// time_window.hpp: what --window / --tasks accept, the closed-interval overlap
// rule, and a window_gate keeping each counter track's value in force at
// START when its points come out of time order (the CLI test, window_cli.py,
// checks whole traces).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "dfx/convert/swimlane/time_window.hpp"

namespace sw = dfx::convert::swimlane;

TEST_CASE("--window: START:END in non-negative µs, START <= END; anything else names the flag") {
    const sw::time_window w = sw::parse_time_window("1500:2500.25");
    CHECK(w.start_us == 1500.0);
    CHECK(w.end_us == 2500.25);
    CHECK(sw::parse_time_window("7:7").end_us == 7.0);  // an instant
    for (const char* bad : {"5", "", ":", "a:b", "10:5", "-1:5", "0:-5", "+1:5", "1e3:2e3", "0:1e999", "nan:1",
                            "inf:inf", "1.:2", ".5:1", " 1:2", "1:2 ", "1:2:3", "0:99999999999999999999"}) {
        const std::string text = bad;
        CAPTURE(text);
        try {
            (void)sw::parse_time_window(bad);
            FAIL("accepted");
        } catch (const sw::window_error& e) {
            CHECK(std::string(e.what()).rfind("--window: ", 0) == 0);
        }
    }
}

TEST_CASE("--tasks: FIRST:LAST task ids, FIRST <= LAST") {
    const sw::task_range r = sw::parse_task_range("4294967296:4294967300");
    CHECK(r.holds(4294967296u));
    CHECK(r.holds(4294967300u));
    CHECK_FALSE(r.holds(4294967301u));
    for (const char* bad : {"3", "9:3", "-1:4", "x:y", "1:2:3", "0:99999999999999999999999", ""}) {
        const std::string text = bad;
        CAPTURE(text);
        CHECK_THROWS_AS((void)sw::parse_task_range(bad), sw::window_error);
    }
}

TEST_CASE("a slice is kept when it overlaps the closed window, touching included") {
    const sw::time_window w{100, 200};
    CHECK(w.overlaps(50, 50));     // ends at START
    CHECK(w.overlaps(200, 10));    // begins at END
    CHECK(w.overlaps(50, 500));    // spans the window
    CHECK(w.overlaps(150, 0));     // an instant inside
    CHECK_FALSE(w.overlaps(50, 49.999));
    CHECK_FALSE(w.overlaps(200.001, 5));
}

TEST_CASE("window_gate: the latest point before START is the anchor, whatever the order points come in") {
    sw::trace::window_gate gate(sw::time_window{100, 200});
    sw::trace::window_gate::counter_track* t = nullptr;
    using verdict = sw::trace::window_gate::verdict;
    CHECK(gate.point("q", 90, t) == verdict::hold);
    t->values = {{"q", 9}};
    CHECK(gate.point("q", 150, t) == verdict::write);
    CHECK(gate.point("q", 80, t) == verdict::drop);   // older than the one held
    CHECK(gate.point("q", 95, t) == verdict::hold);   // a later thread's, newer
    t->values = {{"q", 5}};
    CHECK(gate.point("q", 250, t) == verdict::drop);  // after END
    CHECK(gate.point("r", 100, t) == verdict::write); // at START: no anchor needed
    CHECK(gate.point("r", 50, t) == verdict::hold);
    std::vector<std::int64_t> anchors;
    gate.flush_held([&](const sw::trace::window_gate::counter_track& held) {
        CHECK(held.held_ts == 95);
        anchors.push_back(held.values.at(0).second);
    });
    CHECK(anchors == std::vector<std::int64_t>{5});
    gate.flush_held([&](const auto&) { FAIL("flushed twice"); });
}
