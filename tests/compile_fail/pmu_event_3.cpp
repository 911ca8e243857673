// expect: PMU event must be 0 (off) or one of 1 ARITHMETIC_UTILIZATION, 2 PIPE_UTILIZATION, 4 MEMORY, 5 MEMORY_L0, 6 RESOURCE_CONFLICT, 7 MEMORY_UB, 8 L2_CACHE
#include "dfx/policy/pmu_event.hpp"

#ifdef DFX_COMPILE_FAIL
constexpr auto event = dfx::pmu_event<3>::id;
#else
constexpr auto event = dfx::pmu_event<4>::id;
#endif
static_assert(event != dfx::pmu_event_id::off);
