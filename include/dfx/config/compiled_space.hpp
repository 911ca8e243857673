// The set of collector settings a binary is compiled for.
//
// Every run-time choice must fall inside it; selection then picks, per role,
// the one compiled guard set that matches. The default space holds every
// value, so every flag combination works; a runtime that only ever ships a
// few can declare a narrower space and compile less:
//
//   using my_space = dfx::compiled_space<dfx::swimlane_levels<0, 1, 4>, dfx::dump_levels<0>,
//                                        dfx::pmu_events<0, 2>, dfx::dep_gen_values<false, true>,
//                                        dfx::scope_stats_values<false>>;
#pragma once

#include <boost/hana/basic_tuple.hpp>
#include <boost/hana/cartesian_product.hpp>
#include <boost/hana/contains.hpp>
#include <boost/hana/integral_constant.hpp>
#include <boost/hana/set.hpp>
#include <boost/hana/core/to.hpp>
#include <boost/hana/transform.hpp>
#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>
#include <boost/hana/unpack.hpp>

#include "dfx/policy/collectors.hpp"

namespace dfx {

template <int... Levels>
struct swimlane_levels {
    static constexpr int values[] = {Levels...};
    static constexpr auto policies = boost::hana::tuple_t<swimlane_level<Levels>...>;
};
template <int... Levels>
struct dump_levels {
    static constexpr int values[] = {Levels...};
    static constexpr auto policies = boost::hana::tuple_t<dump_level<Levels>...>;
};
template <int... Events>
struct pmu_events {
    static constexpr int values[] = {Events...};
    static constexpr auto policies = boost::hana::tuple_t<pmu_event<Events>...>;
};
template <bool... Values>
struct dep_gen_values {
    static constexpr bool values[] = {Values...};
    static constexpr auto policies = boost::hana::tuple_t<dep_gen<Values>...>;
};
template <bool... Values>
struct scope_stats_values {
    static constexpr bool values[] = {Values...};
    static constexpr auto policies = boost::hana::tuple_t<scope_stats<Values>...>;
};

template <class Swimlane, class Dump, class Pmu, class DepGen, class ScopeStats>
struct compiled_space {
    using swimlane = Swimlane;
    using dump = Dump;
    using pmu = Pmu;
    using deps = DepGen;
    using scopes = ScopeStats;
};

using default_space = compiled_space<swimlane_levels<0, 1, 2, 3, 4>, dump_levels<0, 1, 2>,
                                     pmu_events<0, 1, 2, 4, 5, 6, 7, 8>, dep_gen_values<false, true>,
                                     scope_stats_values<false, true>>;

// The distinct guard sets each role is compiled for, as hana::types. A role
// only depends on a few dimensions, and many settings share guards, so these
// are far fewer than the settings the space allows.
namespace detail {

template <class... Dims>
constexpr auto distinct_guards(auto make_guards, Dims... dims) {
    namespace hana = boost::hana;
    auto combinations = hana::cartesian_product(hana::make_tuple(dims...));
    auto guards = hana::transform(combinations, [&](auto combination) { return hana::unpack(combination, make_guards); });
    return hana::to_tuple(hana::to_set(guards));
}

}  // namespace detail

template <class Space>
constexpr auto aicore_guard_space() {
    return detail::distinct_guards(
        [](auto swimlane, auto pmu) {
            using S = typename decltype(swimlane)::type;
            using P = typename decltype(pmu)::type;
            return boost::hana::type_c<aicore_guards<S::aicore_timing, P::enabled>>;
        },
        Space::swimlane::policies, Space::pmu::policies);
}

template <class Space>
constexpr auto scheduler_guard_space() {
    return detail::distinct_guards(
        [](auto swimlane, auto dump) {
            using S = typename decltype(swimlane)::type;
            using D = typename decltype(dump)::type;
            return boost::hana::type_c<scheduler_guards<S::dispatch_finish, S::scheduler_phases, D::value>>;
        },
        Space::swimlane::policies, Space::dump::policies);
}

template <class Space>
constexpr auto orchestrator_guard_space() {
    return detail::distinct_guards(
        [](auto swimlane, auto deps, auto scopes) {
            using S = typename decltype(swimlane)::type;
            using G = typename decltype(deps)::type;
            using C = typename decltype(scopes)::type;
            return boost::hana::type_c<orchestrator_guards<S::orchestrator_phases, G::value, C::value>>;
        },
        Space::swimlane::policies, Space::deps::policies, Space::scopes::policies);
}

}  // namespace dfx
