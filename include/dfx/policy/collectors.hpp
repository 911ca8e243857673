// The five collector policies bundled, and the guards each role derives
// from them. This is the compile-time twin of dfx::collector_choice.
#pragma once

#include "dfx/policy/collector_choice.hpp"
#include "dfx/policy/dump_level.hpp"
#include "dfx/policy/pmu_event.hpp"
#include "dfx/policy/role_guards.hpp"
#include "dfx/policy/swimlane_level.hpp"
#include "dfx/policy/switches.hpp"

namespace dfx {

namespace detail {
template <class T> inline constexpr bool is_swimlane_level_policy = false;
template <int N> inline constexpr bool is_swimlane_level_policy<swimlane_level<N>> = true;
template <class T> inline constexpr bool is_dump_level_policy = false;
template <int N> inline constexpr bool is_dump_level_policy<dump_level<N>> = true;
template <class T> inline constexpr bool is_pmu_event_policy = false;
template <int N> inline constexpr bool is_pmu_event_policy<pmu_event<N>> = true;
template <class T> inline constexpr bool is_dep_gen_policy = false;
template <bool B> inline constexpr bool is_dep_gen_policy<dep_gen<B>> = true;
template <class T> inline constexpr bool is_scope_stats_policy = false;
template <bool B> inline constexpr bool is_scope_stats_policy<scope_stats<B>> = true;
}  // namespace detail

template <class Swimlane = swimlane_level<0>, class Dump = dump_level<0>, class Pmu = pmu_event<0>,
          class DepGen = dep_gen<false>, class ScopeStats = scope_stats<false>>
struct collectors {
    static_assert(detail::is_swimlane_level_policy<Swimlane>,
                  "dfx::collectors: argument 1 must be dfx::swimlane_level<N>");
    static_assert(detail::is_dump_level_policy<Dump>, "dfx::collectors: argument 2 must be dfx::dump_level<N>");
    static_assert(detail::is_pmu_event_policy<Pmu>, "dfx::collectors: argument 3 must be dfx::pmu_event<N>");
    static_assert(detail::is_dep_gen_policy<DepGen>, "dfx::collectors: argument 4 must be dfx::dep_gen<B>");
    static_assert(detail::is_scope_stats_policy<ScopeStats>,
                  "dfx::collectors: argument 5 must be dfx::scope_stats<B>");

    using swimlane = Swimlane;
    using dump = Dump;
    using pmu = Pmu;
    using deps = DepGen;
    using scopes = ScopeStats;

    using aicore = aicore_guards<Swimlane::aicore_timing, Pmu::enabled>;
    using scheduler = scheduler_guards<Swimlane::dispatch_finish, Swimlane::scheduler_phases, Dump::value>;
    using orchestrator = orchestrator_guards<Swimlane::orchestrator_phases, DepGen::value, ScopeStats::value>;

    static constexpr collector_choice choice{Swimlane::value, Dump::value, Pmu::value, DepGen::value,
                                             ScopeStats::value};
    static constexpr bool any_enabled = choice.any_enabled();
};

using all_off = collectors<>;

}  // namespace dfx
