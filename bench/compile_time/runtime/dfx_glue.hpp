// The one header a runtime's hot-path translation units include for DFX:
// device-side only (no host containers, threads or writers). The session
// itself lives in dfx_host.cpp, the one host translation unit.
#pragma once

#include <cstdint>

#include "dfx/collect/lanes.hpp"
#include "dfx/policy/clock.hpp"
#include "dfx/policy/collectors.hpp"

using dfx_collectors = dfx::collectors<dfx::swimlane_level<4>, dfx::dep_gen<true>>;
using dfx_types = dfx::session_types<dfx_collectors, dfx::tsc_clock>;

// Defined in dfx_host.cpp: the channel handles each thread's lane is built from.
dfx_types::worker::channels dfx_worker_channels(std::uint32_t core);
dfx_types::scheduler::channels dfx_scheduler_channels(std::uint32_t thread);
dfx_types::orchestrator::channels dfx_orchestrator_channels();
