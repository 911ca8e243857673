// expect: collection level in [0, 4]
#include "dfx/config/selection.hpp"

#ifdef DFX_COMPILE_FAIL
using space = dfx::compiled_space<dfx::swimlane_levels<0, 5>, dfx::dump_levels<0>, dfx::pmu_events<0>,
                                  dfx::dep_gen_values<false>, dfx::scope_stats_values<false>>;
#else
using space = dfx::compiled_space<dfx::swimlane_levels<0, 4>, dfx::dump_levels<0>, dfx::pmu_events<0>,
                                  dfx::dep_gen_values<false>, dfx::scope_stats_values<false>>;
#endif

int orchestrators() { return static_cast<int>(dfx::space_size<space>::orchestrator); }
