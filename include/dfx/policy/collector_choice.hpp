// The five collector settings as run-time values: what a validated run
// config asks for, before selection turns it into types.
#pragma once

namespace dfx {

struct collector_choice {
    int swimlane_level = 0;
    int dump_level = 0;
    int pmu_event = 0;
    bool dep_gen = false;
    bool scope_stats = false;

    constexpr bool any_enabled() const noexcept {
        return swimlane_level > 0 || dump_level > 0 || pmu_event > 0 || dep_gen || scope_stats;
    }
    friend constexpr bool operator==(const collector_choice&, const collector_choice&) = default;
};

}  // namespace dfx
