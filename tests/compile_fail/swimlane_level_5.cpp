// expect: collection level in [0, 4] (0=off, 1=AICore timing, 2=+dispatch/finish, 3=+sched phases, 4=+orch phases)
#include "dfx/policy/swimlane_level.hpp"

#ifdef DFX_COMPILE_FAIL
constexpr int level = dfx::swimlane_level<5>::value;
#else
constexpr int level = dfx::swimlane_level<4>::value;
#endif
static_assert(level >= 0);
