// Everything: the device side (policies, records, transport, collectors) and
// the host side (configuration, selection, artefact writers).
#pragma once

#include "dfx/cxx20.hpp"  // first: the C++20 check

#include "dfx/collect.hpp"
#include "dfx/config.hpp"
#include "dfx/output.hpp"
#include "dfx/policy.hpp"
#include "dfx/session.hpp"
#include "dfx/transport.hpp"
