// The five collector policies bundled, and the guards each role derives
// from them. This is the compile-time twin of dfx::collector_choice.
//
//   using set = dfx::collectors<dfx::dep_gen<true>, dfx::swimlane_level<2>>;
//   set::scheduler, set::aicore, set::orchestrator   the guards of each role
//
// Policies are named, in any order; a collector not named is off. Naming one
// kind twice, or passing something that is not a collector policy, is a
// compile error. Every spelling of one choice is the same type
// (dfx::collector_bundle<...> in the canonical order), so a runtime
// templated on the bundle is instantiated once per choice, not per spelling.
#pragma once

#include "dfx/policy/collector_choice.hpp"
#include "dfx/policy/dump_level.hpp"
#include "dfx/policy/pmu_event.hpp"
#include "dfx/policy/role_guards.hpp"
#include "dfx/policy/swimlane_level.hpp"
#include "dfx/policy/switches.hpp"

namespace dfx {

// One choice in the canonical order. Spell it through dfx::collectors.
template <class Swimlane, class Dump, class Pmu, class DepGen, class ScopeStats>
struct collector_bundle {
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

namespace detail {

enum class policy_kind { none, swimlane, dump, pmu, dep_gen, scope_stats };

// Which kind a policy is and its value, read from the template argument alone
// (the policy's own range check fires when the bundle uses it).
template <policy_kind Kind, int Value>
struct kind_and_value {
    static constexpr policy_kind kind = Kind;
    static constexpr int value = Value;
};
template <class T> struct policy_of : kind_and_value<policy_kind::none, 0> {};
template <int N> struct policy_of<swimlane_level<N>> : kind_and_value<policy_kind::swimlane, N> {};
template <int N> struct policy_of<dump_level<N>> : kind_and_value<policy_kind::dump, N> {};
template <int N> struct policy_of<pmu_event<N>> : kind_and_value<policy_kind::pmu, N> {};
template <bool B> struct policy_of<dep_gen<B>> : kind_and_value<policy_kind::dep_gen, B> {};
template <bool B> struct policy_of<scope_stats<B>> : kind_and_value<policy_kind::scope_stats, B> {};

template <policy_kind K, class... Policies>
inline constexpr int count_of = (0 + ... + (policy_of<Policies>::kind == K ? 1 : 0));

// The value of the first policy of kind K, 0 (off) when none is named. The
// first, not a sum, so a kind named twice reports only its own static_assert.
template <policy_kind K, class... Policies>
constexpr int value_of() noexcept {
    int value = 0;
    bool seen = false;
    ((!seen && policy_of<Policies>::kind == K ? (value = policy_of<Policies>::value, seen = true) : false), ...);
    return value;
}

template <class... Policies>
struct name_collectors {
    static_assert(((policy_of<Policies>::kind != policy_kind::none) && ...),
                  "dfx::collectors: every argument must be a collector policy: dfx::swimlane_level<N>, "
                  "dfx::dump_level<N>, dfx::pmu_event<N>, dfx::dep_gen<B> or dfx::scope_stats<B>");
    static_assert(count_of<policy_kind::swimlane, Policies...> <= 1, "dfx::collectors: swimlane_level named twice");
    static_assert(count_of<policy_kind::dump, Policies...> <= 1, "dfx::collectors: dump_level named twice");
    static_assert(count_of<policy_kind::pmu, Policies...> <= 1, "dfx::collectors: pmu_event named twice");
    static_assert(count_of<policy_kind::dep_gen, Policies...> <= 1, "dfx::collectors: dep_gen named twice");
    static_assert(count_of<policy_kind::scope_stats, Policies...> <= 1, "dfx::collectors: scope_stats named twice");

    using type = collector_bundle<swimlane_level<value_of<policy_kind::swimlane, Policies...>()>,
                                  dump_level<value_of<policy_kind::dump, Policies...>()>,
                                  pmu_event<value_of<policy_kind::pmu, Policies...>()>,
                                  dep_gen<value_of<policy_kind::dep_gen, Policies...>() != 0>,
                                  scope_stats<value_of<policy_kind::scope_stats, Policies...>() != 0>>;
};

}  // namespace detail

template <class... Policies>
using collectors = typename detail::name_collectors<Policies...>::type;

using all_off = collectors<>;

}  // namespace dfx
