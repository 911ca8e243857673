// Host side: dfx::session, one capture of one run (session/session.hpp), and
// its run-time twin dfx::session_host. Include it in one host translation unit.
#pragma once

#include "dfx/cxx20.hpp"  // first: the C++20 check

#include "dfx/session/session.hpp"
#include "dfx/session/session_host.hpp"
