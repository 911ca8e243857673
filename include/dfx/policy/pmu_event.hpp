// PMU event type as a type.
//
// The ids are the reference's PmuEventType values; 0 means off and 3 is a
// hole in the reference numbering (not an event type).
#pragma once

#include <array>
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

// Counter slots an event type programs (the a2a3 AICore PMU has 8).
inline constexpr int pmu_counter_slots = 8;

using pmu_counter_names = std::array<std::string_view, pmu_counter_slots>;

// What each slot counts, as the reference names the pmu.csv columns (a2a3,
// ../shared/spec/args-dump-and-pmu.md B1). An empty name is an unused slot:
// it is programmed with 0 and has no column.
constexpr pmu_counter_names pmu_counters(pmu_event_id id) noexcept {
    switch (id) {
        case pmu_event_id::arithmetic_utilization:
            return {"cube_fp16_exec", "cube_int8_exec", "vec_fp32_exec", "vec_fp16_128lane_exec",
                    "vec_fp16_64lane_exec", "vec_int32_exec", "vec_misc_exec", ""};
        case pmu_event_id::pipe_utilization:
            return {"vec_busy_cycles", "cube_busy_cycles", "scalar_busy_cycles", "mte1_busy_cycles",
                    "mte2_busy_cycles", "mte3_busy_cycles", "icache_miss", "icache_req"};
        case pmu_event_id::memory:
            return {"ub_read_req", "ub_write_req", "l1_read_req", "l1_write_req",
                    "l2_read_req", "l2_write_req", "main_read_req", "main_write_req"};
        case pmu_event_id::memory_l0:
            return {"l0a_read_req", "l0a_write_req", "l0b_read_req", "l0b_write_req", "l0c_read_req", "l0c_write_req", "", ""};
        case pmu_event_id::resource_conflict:
            return {"bankgroup_stall_cycles", "bank_stall_cycles", "vec_resc_conflict_cycles", "", "", "", "", ""};
        case pmu_event_id::memory_ub:
            return {"ub_read_bw_mte", "l2_write_bw", "main_mem_write_bw", "ub_write_bw_mte",
                    "ub_read_bw_vector", "ub_write_bw_vector", "ub_read_bw_scalar", "ub_write_bw_scalar"};
        case pmu_event_id::l2_cache:
            return {"write_cache_hit", "write_cache_miss_allocate", "r0_read_cache_hit",
                    "r0_read_cache_miss_allocate", "r1_read_cache_hit", "r1_read_cache_miss_allocate", "", ""};
        case pmu_event_id::off: break;
    }
    return {};
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
    static constexpr pmu_counter_names counters = pmu_counters(id);
};

}  // namespace dfx
