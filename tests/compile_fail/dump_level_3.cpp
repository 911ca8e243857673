// expect: dump level in [0, 2] (0=off, 1=marked arguments only, 2=every argument of every task)
#include "dfx/policy/dump_level.hpp"

#ifdef DFX_COMPILE_FAIL
constexpr int level = dfx::dump_level<3>::value;
#else
constexpr int level = dfx::dump_level<2>::value;
#endif
static_assert(level > 0);
