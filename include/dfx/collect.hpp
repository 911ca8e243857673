// The collectors and the role views a runtime's threads stamp through.
#pragma once

#include "dfx/cxx20.hpp"  // first: the C++20 check

#include "dfx/collect/aicore_view.hpp"
#include "dfx/collect/args_dump_capture.hpp"
#include "dfx/collect/collector_set.hpp"
#include "dfx/collect/dep_gen_capture.hpp"
#include "dfx/collect/lanes.hpp"
#include "dfx/collect/orchestrator_view.hpp"
#include "dfx/collect/pmu_capture.hpp"
#include "dfx/collect/producers.hpp"
#include "dfx/collect/role_sinks.hpp"
#include "dfx/collect/scheduler_view.hpp"
#include "dfx/collect/scope_stats_capture.hpp"
#include "dfx/collect/sink.hpp"
#include "dfx/collect/strided_gather.hpp"
#include "dfx/collect/task_args.hpp"
#include "dfx/policy.hpp"
