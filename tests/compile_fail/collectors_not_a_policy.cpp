// expect: dfx::collectors: every argument must be a collector policy
#include "dfx/policy/clock.hpp"
#include "dfx/policy/collectors.hpp"

// A clock is a policy of the collector set, not a collector.
#ifdef DFX_COMPILE_FAIL
using set = dfx::collectors<dfx::swimlane_level<1>, dfx::tsc_clock>;
#else
using set = dfx::collectors<dfx::swimlane_level<1>>;
#endif
static_assert(set::any_enabled);
