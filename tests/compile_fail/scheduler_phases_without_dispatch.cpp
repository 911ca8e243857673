// expect: scheduler phases (level 3) imply dispatch/finish (level 2)
#include "dfx/policy/role_guards.hpp"

#ifdef DFX_COMPILE_FAIL
using guards = dfx::scheduler_guards<false, true, 0>;
#else
using guards = dfx::scheduler_guards<true, true, 0>;
#endif
static_assert(guards::phases);
