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

// What a list of policies names, in one pass: per kind, how many times and
// the first value (0, off, when not named). The first, not a sum, so a kind
// named twice reports only its own static_assert.
struct named_policies {
    int count[6] = {};
    int value[6] = {};

    constexpr void note(policy_kind kind, int v) noexcept {
        const int k = static_cast<int>(kind);
        if (count[k]++ == 0) value[k] = v;
    }
    constexpr int times(policy_kind kind) const noexcept { return count[static_cast<int>(kind)]; }
    constexpr int of(policy_kind kind) const noexcept { return value[static_cast<int>(kind)]; }
};

template <class... Policies>
constexpr named_policies name_policies() noexcept {
    named_policies named;
    (named.note(policy_of<Policies>::kind, policy_of<Policies>::value), ...);
    return named;
}

template <class... Policies>
struct name_collectors {
    static constexpr named_policies named = name_policies<Policies...>();
    using kind = policy_kind;

    static_assert(named.times(kind::none) == 0,
                  "dfx::collectors: every argument must be a collector policy: dfx::swimlane_level<N>, "
                  "dfx::dump_level<N>, dfx::pmu_event<N>, dfx::dep_gen<B> or dfx::scope_stats<B>");
    static_assert(named.times(kind::swimlane) <= 1, "dfx::collectors: swimlane_level named twice");
    static_assert(named.times(kind::dump) <= 1, "dfx::collectors: dump_level named twice");
    static_assert(named.times(kind::pmu) <= 1, "dfx::collectors: pmu_event named twice");
    static_assert(named.times(kind::dep_gen) <= 1, "dfx::collectors: dep_gen named twice");
    static_assert(named.times(kind::scope_stats) <= 1, "dfx::collectors: scope_stats named twice");

    using type = collector_bundle<swimlane_level<named.of(kind::swimlane)>, dump_level<named.of(kind::dump)>,
                                  pmu_event<named.of(kind::pmu)>, dep_gen<named.of(kind::dep_gen) != 0>,
                                  scope_stats<named.of(kind::scope_stats) != 0>>;
};

}  // namespace detail

template <class... Policies>
using collectors = typename detail::name_collectors<Policies...>::type;

using all_off = collectors<>;

}  // namespace dfx
