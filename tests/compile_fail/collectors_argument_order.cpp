// expect: dfx::collectors: argument 1 must be dfx::swimlane_level<N>
#include "dfx/policy/collectors.hpp"

#ifdef DFX_COMPILE_FAIL
using set = dfx::collectors<dfx::pmu_event<2>>;
#else
using set = dfx::collectors<dfx::swimlane_level<0>, dfx::dump_level<0>, dfx::pmu_event<2>>;
#endif
static_assert(set::any_enabled);
