// expect: dfx::block: the backstop timeout must be > 0 ms
#include "dfx/policy/overflow.hpp"

#ifdef DFX_COMPILE_FAIL
using overflow = dfx::block<0>;
#else
using overflow = dfx::block<1>;
#endif
static_assert(overflow::blocks);
