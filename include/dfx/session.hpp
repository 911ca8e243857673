// Host side: dfx::session, one capture of one run (session/session.hpp), and
// its run-time twin dfx::session_host, with every host collector. Include it
// in one host translation unit. A host TU that wants to compile faster
// includes session/session.hpp and the hosts of the collectors it enables
// only (output/host_collectors.hpp says which header is which).
#pragma once

#include "dfx/cxx20.hpp"  // first: the C++20 check

#include "dfx/output/args_dump_host.hpp"
#include "dfx/output/dep_gen_host.hpp"
#include "dfx/output/pmu_host.hpp"
#include "dfx/output/scope_stats_host.hpp"
#include "dfx/output/swimlane_host.hpp"
#include "dfx/session/session.hpp"
#include "dfx/session/session_host.hpp"
