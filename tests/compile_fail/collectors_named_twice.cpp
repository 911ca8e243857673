// expect: dfx::collectors: swimlane_level named twice
#include "dfx/policy/collectors.hpp"

#ifdef DFX_COMPILE_FAIL
using set = dfx::collectors<dfx::swimlane_level<2>, dfx::dep_gen<true>, dfx::swimlane_level<3>>;
#else
using set = dfx::collectors<dfx::dep_gen<true>, dfx::swimlane_level<3>>;
#endif
static_assert(set::any_enabled);
