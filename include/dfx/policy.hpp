// Every type-level policy: levels, events, switches, clocks, PMU counter sources, overflow.
#pragma once

#include "dfx/cxx20.hpp"  // first: the C++20 check

#include "dfx/policy/clock.hpp"
#include "dfx/policy/collector_choice.hpp"
#include "dfx/policy/collectors.hpp"
#include "dfx/policy/dump_level.hpp"
#include "dfx/policy/overflow.hpp"
#include "dfx/policy/perf_pmu_source.hpp"
#include "dfx/policy/pmu_event.hpp"
#include "dfx/policy/pmu_source.hpp"
#include "dfx/policy/role_guards.hpp"
#include "dfx/policy/swimlane_level.hpp"
#include "dfx/policy/switches.hpp"
