// expect: dfx session: dep_gen is on: #include <dfx/output/dep_gen_host.hpp>
// A session whose collectors enable dep_gen, in a host TU that includes
// session/session.hpp and not the dep_gen host (output/host_collectors.hpp).
#ifndef DFX_COMPILE_FAIL
#include "dfx/output/dep_gen_host.hpp"
#endif
#include "dfx/session/session.hpp"

using collectors = dfx::collectors<dfx::dep_gen<true>>;

void capture() {
    dfx::session<collectors> session{dfx::session_layout{}};
    (void)session.finish();
}
