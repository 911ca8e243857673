#include <doctest/doctest.h>

#include "dfx/policy.hpp"

TEST_CASE("swimlane levels are cumulative guards") {
    static_assert(!dfx::swimlane_level<0>::enabled);
    static_assert(dfx::swimlane_level<1>::aicore_timing && !dfx::swimlane_level<1>::dispatch_finish);
    static_assert(dfx::swimlane_level<2>::dispatch_finish && !dfx::swimlane_level<2>::scheduler_phases);
    static_assert(dfx::swimlane_level<3>::scheduler_phases && !dfx::swimlane_level<3>::orchestrator_phases);
    static_assert(dfx::swimlane_level<4>::orchestrator_phases && dfx::swimlane_level<4>::aicore_timing);
    CHECK(dfx::swimlane_level<4>::value == 4);
}

TEST_CASE("dump levels") {
    static_assert(!dfx::dump_level<0>::enabled);
    static_assert(dfx::dump_level<1>::marked_only && !dfx::dump_level<1>::everything);
    static_assert(dfx::dump_level<2>::everything && !dfx::dump_level<2>::marked_only);
    CHECK(dfx::dump_level<2>::value == 2);
}

TEST_CASE("PMU events carry the reference ids and names") {
    CHECK(dfx::pmu_event<1>::name == "ARITHMETIC_UTILIZATION");
    CHECK(dfx::pmu_event<2>::name == "PIPE_UTILIZATION");
    CHECK(dfx::pmu_event<4>::name == "MEMORY");
    CHECK(dfx::pmu_event<5>::name == "MEMORY_L0");
    CHECK(dfx::pmu_event<6>::name == "RESOURCE_CONFLICT");
    CHECK(dfx::pmu_event<7>::name == "MEMORY_UB");
    CHECK(dfx::pmu_event<8>::name == "L2_CACHE");
    CHECK_FALSE(dfx::pmu_event<0>::enabled);
    CHECK(dfx::pmu_event<8>::enabled);
    CHECK(dfx::is_pmu_event(0));
    CHECK_FALSE(dfx::is_pmu_event(3));
    CHECK_FALSE(dfx::is_pmu_event(9));
    CHECK_FALSE(dfx::is_pmu_event(-1));
    CHECK(dfx::default_pmu_event == 2);
}

TEST_CASE("the collectors bundle derives each role's guards") {
    using level2_memory = dfx::collectors<dfx::swimlane_level<2>, dfx::dump_level<1>, dfx::pmu_event<4>>;
    static_assert(std::is_same_v<level2_memory::aicore, dfx::aicore_guards<true, true>>);
    static_assert(std::is_same_v<level2_memory::scheduler, dfx::scheduler_guards<true, false, 1>>);
    static_assert(std::is_same_v<level2_memory::orchestrator, dfx::orchestrator_guards<false, false, false>>);

    using graph_only = dfx::collectors<dfx::swimlane_level<0>, dfx::dump_level<0>, dfx::pmu_event<0>,
                                       dfx::dep_gen<true>>;
    static_assert(std::is_same_v<graph_only::aicore, dfx::aicore_guards<false, false>>);
    static_assert(std::is_same_v<graph_only::orchestrator, dfx::orchestrator_guards<false, true, false>>);

    CHECK(level2_memory::any_enabled);
    CHECK_FALSE(dfx::all_off::any_enabled);
    CHECK(level2_memory::choice == dfx::collector_choice{2, 1, 4, false, false});
}

TEST_CASE("collectors are named in any order, and what is not named is off") {
    using positional = dfx::collectors<dfx::swimlane_level<2>, dfx::dump_level<0>, dfx::pmu_event<0>, dfx::dep_gen<true>>;
    using by_name = dfx::collectors<dfx::dep_gen<true>, dfx::swimlane_level<2>>;
    using reordered = dfx::collectors<dfx::swimlane_level<2>, dfx::pmu_event<0>, dfx::dep_gen<true>>;
    // One choice is one type, however it is spelt, so the guards are the same too.
    static_assert(std::is_same_v<by_name, positional>);
    static_assert(std::is_same_v<reordered, positional>);
    static_assert(std::is_same_v<by_name::aicore, dfx::aicore_guards<true, false>>);
    static_assert(std::is_same_v<by_name::scheduler, dfx::scheduler_guards<true, false, 0>>);
    static_assert(std::is_same_v<by_name::orchestrator, dfx::orchestrator_guards<false, true, false>>);
    CHECK(by_name::choice == dfx::collector_choice{2, 0, 0, true, false});

    // All five, backwards, against the full positional form.
    using backwards = dfx::collectors<dfx::scope_stats<true>, dfx::dep_gen<false>, dfx::pmu_event<6>,
                                      dfx::dump_level<1>, dfx::swimlane_level<4>>;
    using forwards = dfx::collectors<dfx::swimlane_level<4>, dfx::dump_level<1>, dfx::pmu_event<6>,
                                     dfx::dep_gen<false>, dfx::scope_stats<true>>;
    static_assert(std::is_same_v<backwards, forwards>);
    CHECK(backwards::choice == dfx::collector_choice{4, 1, 6, false, true});
    static_assert(std::is_same_v<backwards::swimlane, dfx::swimlane_level<4>>);
    static_assert(std::is_same_v<backwards::pmu, dfx::pmu_event<6>>);
    static_assert(std::is_same_v<backwards::scopes, dfx::scope_stats<true>>);

    // Only a switch named: everything else is off.
    using scopes_only = dfx::collectors<dfx::scope_stats<true>>;
    static_assert(std::is_same_v<scopes_only::swimlane, dfx::swimlane_level<0>>);
    static_assert(std::is_same_v<scopes_only::deps, dfx::dep_gen<false>>);
    CHECK(scopes_only::choice == dfx::collector_choice{0, 0, 0, false, true});
    static_assert(std::is_same_v<dfx::collectors<dfx::swimlane_level<0>, dfx::dep_gen<false>>, dfx::all_off>);
    CHECK_FALSE(dfx::all_off::any_enabled);
}

TEST_CASE("clock sources tick forward at a plausible frequency") {
    const auto a = dfx::steady_clock_source::now();
    const auto b = dfx::steady_clock_source::now();
    CHECK(b >= a);
    CHECK(dfx::steady_clock_source::frequency_hz() == 1'000'000'000ULL);

    const auto t0 = dfx::tsc_clock::now();
    const auto t1 = dfx::tsc_clock::now();
    CHECK(t1 >= t0);
    // Any real counter runs between 1 MHz and 10 GHz.
    CHECK(dfx::tsc_clock::frequency_hz() > 1'000'000ULL);
    CHECK(dfx::tsc_clock::frequency_hz() < 10'000'000'000ULL);
}

namespace {
std::uint64_t fake_counter_value = 41;
std::uint64_t read_fake_counter() noexcept { return ++fake_counter_value; }
}  // namespace

TEST_CASE("a device counter reads the caller's counter at its declared frequency") {
    using counter = dfx::device_counter<read_fake_counter, 50'000'000ULL>;
    CHECK(counter::now() == 42);
    CHECK(counter::now() == 43);
    static_assert(counter::frequency_hz() == 50'000'000ULL);
}

TEST_CASE("overflow policies") {
    static_assert(dfx::block<>::blocks);
    static_assert(dfx::block<>::backstop == std::chrono::seconds(30));
    static_assert(dfx::block<250>::backstop == std::chrono::milliseconds(250));
    static_assert(!dfx::drop::blocks);
    CHECK(dfx::block<250>::backstop.count() == 250);
}
