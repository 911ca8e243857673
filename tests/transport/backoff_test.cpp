// backoff (transport/backoff.hpp): the sleep schedule of a parked producer
// and of an idle drain thread. No wall time is asserted: the schedule is
// read back from next_sleep_us().
#include <doctest/doctest.h>

#include <vector>

#include "dfx/transport/backoff.hpp"

namespace {

// The sleeps `waits` calls to wait() would take after the spins and yields.
std::vector<unsigned> sleeps_after_spinning(dfx::backoff& b, int waits) {
    for (int i = 0; i < 128; ++i) b.wait();  // 64 spins, 64 yields
    std::vector<unsigned> sleeps;
    for (int i = 0; i < waits; ++i) {
        sleeps.push_back(b.next_sleep_us());
        b.wait();
    }
    return sleeps;
}

}  // namespace

TEST_CASE("a parked producer's backoff sleeps 20 us each time") {
    dfx::backoff parked;
    CHECK(sleeps_after_spinning(parked, 4) == std::vector<unsigned>{20, 20, 20, 20});
}

TEST_CASE("an idle drain's backoff doubles its sleep up to its cap, and progress resets it") {
    dfx::backoff idle(1000);
    CHECK(sleeps_after_spinning(idle, 9) == std::vector<unsigned>{20, 40, 80, 160, 320, 640, 1000, 1000, 1000});
    idle.reset();
    CHECK(idle.next_sleep_us() == 20);
    CHECK(sleeps_after_spinning(idle, 2) == std::vector<unsigned>{20, 40});
}

TEST_CASE("a cap below the shortest sleep is the shortest sleep") {
    dfx::backoff b(5);
    CHECK(sleeps_after_spinning(b, 3) == std::vector<unsigned>{20, 20, 20});
}
