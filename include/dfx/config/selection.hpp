// From a validated run config to compiled policy types, per role.
//
//   dfx::select_aicore(cfg, [&](auto guards) {
//       using view = dfx::aicore_view<decltype(guards), dfx::tsc_clock, my_sink>;
//       run_worker_loop(view{&sink});
//   });
//
// Each role is dispatched on its own, so the number of loops compiled is the
// sum of the roles' distinct guard sets, not the product of every flag
// (docs/selection.md has the numbers). A request outside the compiled space
// raises config_error listing what was compiled.
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include <boost/hana/at.hpp>
#include <boost/hana/for_each.hpp>
#include <boost/hana/front.hpp>
#include <boost/hana/length.hpp>

#include "dfx/config/compiled_space.hpp"
#include "dfx/config/config_error.hpp"
#include "dfx/config/run_config.hpp"

namespace dfx {

namespace detail {

template <class Values>
inline bool space_has(int value) {
    for (auto v : Values::values)
        if (static_cast<int>(v) == value) return true;
    return false;
}

template <class Values>
inline std::string value_name(int value) {
    if constexpr (std::is_same_v<std::remove_cv_t<std::remove_extent_t<decltype(Values::values)>>, bool>)
        return value ? "on" : "off";
    else
        return std::to_string(value);
}

template <class Values>
inline std::string space_list() {
    std::string out;
    for (auto v : Values::values) {
        if (!out.empty()) out += ", ";
        out += value_name<Values>(static_cast<int>(v));
    }
    return "{" + out + "}";
}

template <class Space>
inline std::string describe_space() {
    return "swimlane levels " + space_list<typename Space::swimlane>() + ", dump levels " +
           space_list<typename Space::dump>() + ", PMU events " + space_list<typename Space::pmu>() +
           ", dep_gen " + space_list<typename Space::deps>() + ", scope_stats " +
           space_list<typename Space::scopes>();
}

template <class Values>
inline void require_in(int value, const char* field, const char* what, const std::string& compiled) {
    if (!space_has<Values>(value))
        throw config_error(field, std::string(what) + " " + value_name<Values>(value) +
                                      " is not compiled into this binary; compiled: " + compiled);
}

// Calls f with the first guard set in `keys` that matches `choice`.
template <std::size_t I = 0, class Keys, class F>
decltype(auto) dispatch_first_match(Keys keys, const collector_choice& choice, F&& f) {
    namespace hana = boost::hana;
    if constexpr (I == decltype(hana::length(keys))::value) {
        // require_compiled() ran first, so some guard set always matches.
        throw config_error("compiled_space", "no compiled guard set matches the request (a dfxkit bug)");
        using first = typename decltype(+hana::front(keys))::type;
        return f(first{});  // unreachable; gives this branch the common return type
    } else {
        using guards = typename decltype(+hana::at_c<I>(keys))::type;
        if (guards::matches(choice)) return f(guards{});
        return dispatch_first_match<I + 1>(keys, choice, std::forward<F>(f));
    }
}

}  // namespace detail

// Throws config_error when `choice` needs a setting this binary was not compiled for.
template <class Space = default_space>
void require_compiled(const collector_choice& choice) {
    const std::string compiled = detail::describe_space<Space>();
    detail::require_in<typename Space::swimlane>(choice.swimlane_level, "enable_chip_swimlane", "swimlane level",
                                                 compiled);
    detail::require_in<typename Space::dump>(choice.dump_level, "enable_dump_args", "dump level", compiled);
    detail::require_in<typename Space::pmu>(choice.pmu_event, "enable_pmu", "PMU event", compiled);
    detail::require_in<typename Space::deps>(choice.dep_gen, "enable_dep_gen", "dep_gen", compiled);
    detail::require_in<typename Space::scopes>(choice.scope_stats, "enable_scope_stats", "scope_stats", compiled);
}

template <class Space = default_space, class F>
decltype(auto) select_aicore(const run_config& cfg, F&& f) {
    require_compiled<Space>(cfg.collectors);
    return detail::dispatch_first_match(aicore_guard_space<Space>(), cfg.collectors, std::forward<F>(f));
}

template <class Space = default_space, class F>
decltype(auto) select_scheduler(const run_config& cfg, F&& f) {
    require_compiled<Space>(cfg.collectors);
    return detail::dispatch_first_match(scheduler_guard_space<Space>(), cfg.collectors, std::forward<F>(f));
}

template <class Space = default_space, class F>
decltype(auto) select_orchestrator(const run_config& cfg, F&& f) {
    require_compiled<Space>(cfg.collectors);
    return detail::dispatch_first_match(orchestrator_guard_space<Space>(), cfg.collectors, std::forward<F>(f));
}

// The host side handles each enabled collector on its own (writers, pools),
// so it is called once per enabled collector with that collector's policy:
// swimlane_level<L>, dump_level<D>, pmu_event<E>, dep_gen<true>, scope_stats<true>.
template <class Space = default_space, class F>
void select_host(const run_config& cfg, F&& f) {
    namespace hana = boost::hana;
    require_compiled<Space>(cfg.collectors);
    const collector_choice& c = cfg.collectors;
    auto visit = [&](auto policies, auto value) {
        hana::for_each(policies, [&](auto policy) {
            using P = typename decltype(policy)::type;
            if constexpr (P::enabled)
                if (static_cast<int>(P::value) == value) f(P{});
        });
    };
    visit(Space::swimlane::policies, c.swimlane_level);
    visit(Space::dump::policies, c.dump_level);
    visit(Space::pmu::policies, c.pmu_event);
    visit(Space::deps::policies, static_cast<int>(c.dep_gen));
    visit(Space::scopes::policies, static_cast<int>(c.scope_stats));
}

// Compile-time counts of what a space instantiates, for docs and tests.
template <class Space>
struct space_size {
    static constexpr std::size_t aicore = decltype(boost::hana::length(aicore_guard_space<Space>()))::value;
    static constexpr std::size_t scheduler = decltype(boost::hana::length(scheduler_guard_space<Space>()))::value;
    static constexpr std::size_t orchestrator =
        decltype(boost::hana::length(orchestrator_guard_space<Space>()))::value;
};

}  // namespace dfx
