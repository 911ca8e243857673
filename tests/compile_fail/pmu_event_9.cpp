// expect: PMU event must be 0 (off) or one of
#include "dfx/policy/pmu_event.hpp"

#ifdef DFX_COMPILE_FAIL
constexpr bool on = dfx::pmu_event<9>::enabled;
#else
constexpr bool on = dfx::pmu_event<8>::enabled;
#endif
static_assert(on);
