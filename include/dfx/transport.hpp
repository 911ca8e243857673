// Producers, channels and the host drain: records from device threads to
// host sinks, with backpressure and exact accounting.
#pragma once

#include "dfx/cxx20.hpp"  // first: the C++20 check

#include "dfx/transport/accounting.hpp"
#include "dfx/transport/channel.hpp"
#include "dfx/transport/drain_group.hpp"
#include "dfx/transport/memory_ops.hpp"
#include "dfx/transport/packed_records.hpp"
#include "dfx/transport/producer.hpp"
#include "dfx/transport/spsc_ring.hpp"
#include "dfx/transport/transport_host.hpp"
