// PMU event type as a type.
//
// The ids are the reference's PmuEventType values; 0 means off and 3 is a
// hole in the reference numbering (not an event type).
#pragma once

#include <cstdint>
#include <string_view>

namespace dfx {

enum class pmu_event_id : std::uint32_t {
    off = 0,
    arithmetic_utilization = 1,
    pipe_utilization = 2,
    memory = 4,
    memory_l0 = 5,
    resource_conflict = 6,
    memory_ub = 7,
    l2_cache = 8,
};

// The event used when PMU is switched on without naming one (`--enable-pmu`).
inline constexpr int default_pmu_event = 2;

constexpr bool is_pmu_event(long long id) noexcept {
    return id == 0 || id == 1 || id == 2 || (id >= 4 && id <= 8);
}

// The reference's upper-case names, as they appear in docs and logs.
constexpr std::string_view pmu_event_name(pmu_event_id id) noexcept {
    switch (id) {
        case pmu_event_id::off: return "OFF";
        case pmu_event_id::arithmetic_utilization: return "ARITHMETIC_UTILIZATION";
        case pmu_event_id::pipe_utilization: return "PIPE_UTILIZATION";
        case pmu_event_id::memory: return "MEMORY";
        case pmu_event_id::memory_l0: return "MEMORY_L0";
        case pmu_event_id::resource_conflict: return "RESOURCE_CONFLICT";
        case pmu_event_id::memory_ub: return "MEMORY_UB";
        case pmu_event_id::l2_cache: return "L2_CACHE";
    }
    return "UNKNOWN";
}

template <int Id>
struct pmu_event {
    static_assert(is_pmu_event(Id),
                  "dfx::pmu_event: PMU event must be 0 (off) or one of 1 ARITHMETIC_UTILIZATION, "
                  "2 PIPE_UTILIZATION, 4 MEMORY, 5 MEMORY_L0, 6 RESOURCE_CONFLICT, 7 MEMORY_UB, "
                  "8 L2_CACHE");

    static constexpr int value = Id;
    static constexpr bool enabled = Id != 0;
    static constexpr pmu_event_id id = static_cast<pmu_event_id>(Id);
    static constexpr std::string_view name = pmu_event_name(id);
};

}  // namespace dfx
