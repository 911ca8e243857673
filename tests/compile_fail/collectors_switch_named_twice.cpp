// expect: dfx::collectors: dep_gen named twice
#include "dfx/policy/collectors.hpp"

#ifdef DFX_COMPILE_FAIL
using set = dfx::collectors<dfx::dep_gen<true>, dfx::scope_stats<true>, dfx::dep_gen<false>>;
#else
using set = dfx::collectors<dfx::scope_stats<true>, dfx::dep_gen<false>>;
#endif
static_assert(set::any_enabled);
