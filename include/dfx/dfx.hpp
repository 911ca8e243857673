// The whole device-side library plus host-side configuration.
#pragma once

#include "dfx/collect.hpp"
#include "dfx/config.hpp"
#include "dfx/policy.hpp"
