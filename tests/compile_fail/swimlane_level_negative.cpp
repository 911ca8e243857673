// expect: collection level in [0, 4]
#include "dfx/policy/swimlane_level.hpp"

#ifdef DFX_COMPILE_FAIL
constexpr bool on = dfx::swimlane_level<-1>::enabled;
#else
constexpr bool on = dfx::swimlane_level<0>::enabled;
#endif
static_assert(!on || on);
