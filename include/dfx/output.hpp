// Host side: artefact writers and the host halves of the collectors.
#pragma once

#include "dfx/cxx20.hpp"  // first: the C++20 check

#include "dfx/output/args_bin_stream.hpp"
#include "dfx/output/args_dump_host.hpp"
#include "dfx/output/args_dump_json.hpp"
#include "dfx/output/artefact_set.hpp"
#include "dfx/output/artefact_file.hpp"
#include "dfx/output/channel_registry.hpp"
#include "dfx/output/chip_swimlane_json.hpp"
#include "dfx/output/dep_gen_host.hpp"
#include "dfx/output/deps_json.hpp"
#include "dfx/output/name_map.hpp"
#include "dfx/output/output_error.hpp"
#include "dfx/output/pmu_csv.hpp"
#include "dfx/output/pmu_host.hpp"
#include "dfx/output/scope_stats_host.hpp"
#include "dfx/output/scope_stats_jsonl.hpp"
#include "dfx/output/swimlane_host.hpp"
#include "dfx/output/text_writer.hpp"
