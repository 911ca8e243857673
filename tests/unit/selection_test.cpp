#include <doctest/doctest.h>

#include <set>
#include <string>
#include <typeinfo>
#include <vector>

#include "dfx/config/selection.hpp"

namespace {

dfx::run_config config(int swimlane, int dump, int pmu, bool deps, bool scopes) {
    dfx::run_config_input in;
    in.enable_chip_swimlane = swimlane;
    in.enable_dump_args = dump;
    in.enable_pmu = pmu;
    in.enable_dep_gen = deps;
    in.enable_scope_stats = scopes;
    in.output_prefix = "/tmp/dfx_outputs";
    return dfx::validate(in);
}

using narrow_space = dfx::compiled_space<dfx::swimlane_levels<0, 1, 4>, dfx::dump_levels<0>, dfx::pmu_events<0, 2>,
                                         dfx::dep_gen_values<false, true>, dfx::scope_stats_values<false>>;

}  // namespace

TEST_CASE("the default space compiles few guard sets per role") {
    using sizes = dfx::space_size<dfx::default_space>;
    // timing x pmu-on
    CHECK(sizes::aicore == 4);
    // {none, dispatch/finish, +phases} x dump 0..2
    CHECK(sizes::scheduler == 9);
    // orch phases x dep_gen x scope_stats
    CHECK(sizes::orchestrator == 8);

    using narrow = dfx::space_size<narrow_space>;
    CHECK(narrow::aicore == 4);
    CHECK(narrow::scheduler == 2);  // level 0/1 -> none, level 4 -> everything
    CHECK(narrow::orchestrator == 4);  // orch phases x dep_gen; scope_stats only off
}

TEST_CASE("every flag combination of the default space selects exactly the matching guards") {
    int combinations = 0;
    for (int swimlane = 0; swimlane <= 4; ++swimlane)
        for (int dump = 0; dump <= 2; ++dump)
            for (int pmu : {0, 1, 2, 4, 5, 6, 7, 8})
                for (bool deps : {false, true})
                    for (bool scopes : {false, true}) {
                        const auto cfg = config(swimlane, dump, pmu, deps, scopes);
                        int calls = 0;
                        dfx::select_aicore(cfg, [&](auto g) {
                            using G = decltype(g);
                            ++calls;
                            CHECK(G::timing == (swimlane >= 1));
                            CHECK(G::pmu == (pmu != 0));
                        });
                        dfx::select_scheduler(cfg, [&](auto g) {
                            using G = decltype(g);
                            ++calls;
                            CHECK(G::dispatch_finish == (swimlane >= 2));
                            CHECK(G::phases == (swimlane >= 3));
                            CHECK(G::dump_level == dump);
                        });
                        dfx::select_orchestrator(cfg, [&](auto g) {
                            using G = decltype(g);
                            ++calls;
                            CHECK(G::phases == (swimlane == 4));
                            CHECK(G::dep_gen == deps);
                            CHECK(G::scope_stats == scopes);
                        });
                        CHECK(calls == 3);
                        ++combinations;
                    }
    CHECK(combinations == 480);
}

TEST_CASE("selection can return a value") {
    const auto cfg = config(2, 0, 0, false, false);
    const int tier = dfx::select_scheduler(cfg, [](auto g) {
        using G = decltype(g);
        return G::phases ? 3 : G::dispatch_finish ? 2 : 0;
    });
    CHECK(tier == 2);
}

TEST_CASE("the host is called once per enabled collector with its policy") {
    std::vector<std::string> seen;
    dfx::select_host(config(3, 2, 7, true, false), [&](auto policy) {
        using P = decltype(policy);
        if constexpr (std::is_same_v<P, dfx::swimlane_level<3>>)
            seen.push_back("swimlane3");
        else if constexpr (std::is_same_v<P, dfx::dump_level<2>>)
            seen.push_back("dump2");
        else if constexpr (std::is_same_v<P, dfx::pmu_event<7>>)
            seen.push_back("pmu7");
        else if constexpr (std::is_same_v<P, dfx::dep_gen<true>>)
            seen.push_back("deps");
        else
            seen.push_back(std::string("unexpected ") + typeid(P).name());
    });
    CHECK(seen == std::vector<std::string>{"swimlane3", "dump2", "pmu7", "deps"});

    int calls = 0;
    dfx::select_host(config(0, 0, 0, false, false), [&](auto) { ++calls; });
    CHECK(calls == 0);
}

TEST_CASE("a request outside a narrower space is a clear error listing what was compiled") {
    int calls = 0;
    dfx::select_aicore<narrow_space>(config(4, 0, 2, true, false), [&](auto) { ++calls; });
    CHECK(calls == 1);

    auto error_of = [](const dfx::run_config& cfg) -> std::string {
        try {
            dfx::select_scheduler<narrow_space>(cfg, [](auto) {});
        } catch (const dfx::config_error& e) {
            return e.what();
        }
        return "";
    };
    const std::string compiled =
        "compiled: swimlane levels {0, 1, 4}, dump levels {0}, PMU events {0, 2}, dep_gen {off, on}, "
        "scope_stats {off}";
    CHECK(error_of(config(3, 0, 0, false, false)) ==
          "enable_chip_swimlane: swimlane level 3 is not compiled into this binary; " + compiled);
    CHECK(error_of(config(1, 1, 0, false, false)) ==
          "enable_dump_args: dump level 1 is not compiled into this binary; " + compiled);
    CHECK(error_of(config(1, 0, 4, false, false)) ==
          "enable_pmu: PMU event 4 is not compiled into this binary; " + compiled);
    CHECK(error_of(config(1, 0, 0, false, true)) ==
          "enable_scope_stats: scope_stats on is not compiled into this binary; " + compiled);
}
