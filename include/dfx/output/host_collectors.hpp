// The five host collectors, declared, and the layouts a session gives them:
// what dfx::basic_session_host needs to name a host without compiling it.
// A host translation unit includes the definitions of only the collectors it
// enables, so it does not parse the writers of the others:
//
//   #include "dfx/session/session.hpp"
//   #include "dfx/output/swimlane_host.hpp"  // swimlane_level > 0
//   #include "dfx/output/dep_gen_host.hpp"   // dep_gen
//   // (dfx/session.hpp includes all five)
//
// A session whose choice enables a host that is only declared here stops at
// a static_assert naming the header to include.
#pragma once

#include <cstdint>
#include <vector>

#include "dfx/output/channel_registry.hpp"
#include "dfx/schema/core_types.hpp"
#include "dfx/transport/memory_ops.hpp"

namespace dfx {

template <class MemoryOps = host_memory> class swimlane_host;     // output/swimlane_host.hpp
template <class MemoryOps = host_memory> class dep_gen_host;      // output/dep_gen_host.hpp
template <class MemoryOps = host_memory> class scope_stats_host;  // output/scope_stats_host.hpp
template <class MemoryOps = host_memory> class args_dump_host;    // output/args_dump_host.hpp
template <class MemoryOps = host_memory> class pmu_host;          // output/pmu_host.hpp

struct swimlane_layout {
    std::vector<core_type> core_types;      // one entry per core
    std::uint32_t scheduler_threads = 1;    // live AICPU scheduler threads
    std::uint32_t scheduler_pools = 4;      // phase arrays in the file: the platform's thread count (a2a3 4, a5 5)
    std::uint32_t orchestrator_lanes = 1;
    std::uint64_t clock_freq_hz = 0;
    // The reference's capacities, per core / per thread.
    channel_size aicore{4, 1024};
    channel_size aicpu{8, 1000};
    channel_size sched_phases{6, 16384};
    channel_size orch_phases{8, 16384};
};

struct args_dump_layout {
    std::uint32_t scheduler_threads = 1;
    // Call records per thread (record/args_call_record.hpp), counted at their
    // largest size (8 KiB): 8 buffers of 32 KiB, the memory of the
    // reference's 8 buffers x 256 argument records of 128 bytes. A call
    // takes 64 bytes for one one-dimensional tensor, so a buffer holds about
    // 500 of those.
    channel_size records{8, 4};
    // Payload chunks (4 KiB) per thread. Their capacity is the arena: 32 x
    // 1024 chunks hold ~126 MiB, about the reference's 128 MiB; a tensor
    // larger than that is truncated to half and flagged.
    channel_size payload{32, 1024};
};

struct pmu_layout {
    // One entry per core: the scheduler thread that owns it (the thread_id column).
    std::vector<std::uint32_t> core_to_thread;
    // Per core: the reference's 2 buffers of 512 records.
    channel_size size{2, 512};
};

}  // namespace dfx
