// The one host translation unit: the session, the channel handles the hot
// path's lanes are built from, and main.
//
//   dfx-two-tu [OUT_DIR]
#include <cstdio>
#include <exception>
#include <optional>

// The session, and the hosts of the two collectors dfx_glue.hpp enables:
// only their writers are compiled (output/host_collectors.hpp).
#include "dfx/output/dep_gen_host.hpp"
#include "dfx/output/swimlane_host.hpp"
#include "dfx/session/session.hpp"
#include "dfx_glue.hpp"

std::uint32_t run_runtime(std::uint32_t n, std::uint32_t workers);  // runtime.cpp

namespace {
constexpr std::uint32_t workers = 2;
std::optional<dfx::session<dfx_collectors, dfx::tsc_clock>> dfx_session;
}  // namespace

dfx_types::worker::channels dfx_worker_channels(std::uint32_t core) { return dfx_session->worker_channels(core); }
dfx_types::scheduler::channels dfx_scheduler_channels(std::uint32_t thread) { return dfx_session->scheduler_channels(thread); }
dfx_types::orchestrator::channels dfx_orchestrator_channels() { return dfx_session->orchestrator_channels(); }

int main(int argc, char** argv) try {
    dfx_session.emplace(dfx::session_layout{.cores = {dfx::core_type::aiv, dfx::core_type::aiv}},
                        dfx::session_options{.prefix = argc > 1 ? argv[1] : "dfx_outputs", .case_name = "two_tu"});
    dfx_session->name_kernel(0, "step");
    const std::uint32_t done = run_runtime(200, workers);
    const dfx::session_summary summary = dfx_session->finish();
    return done == 200 && summary.complete() ? 0 : 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "dfx-two-tu: %s\n", e.what());
    return 1;
}
