// layout: where everything sits in the swimlane trace, as named processes
// (pids), sort indices and threads (tids). The numbers are the reference
// converter's (spec chip-swimlane.md §4): Perfetto shows them, and tools
// that post-process traces select tracks by them, so they never change.
//
//   ev.process_name(layout::worker_view_pid, "Worker View");
//   ev.thread_name(layout::worker_view_pid, layout::core_tid(core), "AIC_0");
//
// Processes, top to bottom (sort index): 1 orchestrator + H2D, 5 Graph
// Execution (also index 1), 2 AICPU Scheduler, 3 Scheduler View, 4 Worker View.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dfx::convert::swimlane::trace::layout {

// ---- processes ----
inline constexpr int host_pid = 1;            // orchestrator bars (AICPU or host) and host uploads
inline constexpr int scheduler_pid = 2;       // AICPU scheduler phases, ready-queue and overhead counters
inline constexpr int scheduler_view_pid = 3;  // task slices dispatch -> finish, per core
inline constexpr int worker_view_pid = 4;     // task slices receive -> end per core, AICPU_<k> lanes
inline constexpr int graph_pid = 5;           // graph execution envelopes

inline constexpr int host_sort_index = 1;
inline constexpr int scheduler_sort_index = 2;
inline constexpr int scheduler_view_sort_index = 3;
inline constexpr int worker_view_sort_index = 4;
inline constexpr int graph_sort_index = 1;

// ---- threads of pid 1 ----
// Orchestrator lane `lane` (Orch_<lane> / Host_<lane>).
constexpr std::int64_t orchestrator_tid(std::size_t lane) { return 4000 + static_cast<std::int64_t>(lane); }
inline constexpr std::int64_t h2d_tid = 4100;

// ---- threads of pid 2 ----
// Scheduler thread `thread`'s phases; lane 1 holds its resolve phases.
constexpr std::int64_t sched_lane_tid(std::int64_t thread, int lane = 0) { return 30000 + thread * 10 + lane; }
inline constexpr std::int64_t ready_queue_tid = 3999;  // shared_ready_queue (global) counter
inline constexpr int ready_queue_sort_index = 100;
// The --overhead counter tracks: idle / ready / overhead per engine, then the
// two system-wide ones.
inline constexpr std::int64_t aic_overhead_tid = 9101;  // +0 idle, +1 ready, +2 overhead
inline constexpr std::int64_t aiv_overhead_tid = 9111;
inline constexpr std::int64_t all_overhead_tid = 9121;
inline constexpr std::int64_t has_overhead_tid = 9122;

// ---- threads of pids 3 and 4 ----
// A core's lane in the Worker View, and the first of its greedy sub-lanes in
// the Scheduler View (core_tid + sub-lane).
constexpr std::int64_t core_tid(std::uint32_t core) { return 10000 + static_cast<std::int64_t>(core) * 10; }
// Worker View AICPU_<k> lanes: scheduler threads' dummy / predicated-skip
// markers first, then orchestrator lanes' alloc bars.
constexpr std::int64_t aicpu_lane_tid(std::int64_t k) { return 19000 + k; }

// ---- threads of pid 5 ----
constexpr std::int64_t graph_lane_tid(std::int64_t lane) { return 5000 + lane; }

}  // namespace dfx::convert::swimlane::trace::layout
