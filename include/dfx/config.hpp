// Host-side configuration: run config, validation, selection. (The flag
// parser, dfx/config/cli_flags.hpp, is separate because it pulls in CLI11.)
#pragma once

#include "dfx/cxx20.hpp"  // first: the C++20 check

#include "dfx/config/compiled_space.hpp"
#include "dfx/config/config_error.hpp"
#include "dfx/config/run_config.hpp"
#include "dfx/config/selection.hpp"
