// reuse_freed_memory: keep memory a command frees inside the process, so its
// next allocations reuse pages already faulted in.
//
// Why: glibc serves every allocation above its mmap threshold (128 KiB at
// first) with a fresh mapping and unmaps it on free. A converter that grows a
// few big vectors then faults in every page of every growth step, and a fresh
// page costs ~2.5 us here (a page fault, zeroing, the memory cgroup's charge):
// `dfx deps` at 10^4 tasks took ~4,000 faults, a quarter of its CPU time.
// Served from the heap instead, a freed buffer is reused by the next growth.
//
// The price is peak memory: freed buffers stay in the heap until exit. So a
// command opts in: `dfx deps`, and `dfx swimlane` for a small records file
// only (10^4 tasks: 0.93-0.97x the wall time at e9ac140's peak or below;
// from 5x10^4 tasks on it was 0.86-0.96x the wall time at 1.04-1.09x the
// peak RSS, so a big run keeps the milder keep_blocks_in_heap() below).
//
// keep_blocks_in_heap() is for every command, and milder: only blocks up to
// 8 MiB come from the heap (the threshold fixed there from the start, not
// rising as blocks are freed; the trim threshold stays glibc's). A
// converter's phases allocate and free blocks of a few MB over and over (a
// section's vectors, sort buffers, the flows' groups), each a fresh mapping
// faulted in afresh otherwise, while its big tables (tens of MB and up) are
// mapped and unmapped as before. Side by side at 10^5-10^6 tasks
// (2026-12-05, docs/converters.md "Tenth round"): swimlane in both formats,
// sched-overhead and deps at 0.92-1.0x the CPU time and 0.87-1.0x the peak
// RSS, the wall time within the noise; 32 MiB saved more page faults at
// 10^5 tasks but held up to 30 % more memory in sched-overhead.
//
// one_heap() is for every command: the readers parse on a second thread
// (pipelined_handler.hpp), and a thread's own glibc arena keeps the buffers
// its growing vectors left behind where the main thread cannot reuse them:
// `dfx swimlane` at 2*10^5 tasks peaked at 293 MB with per-thread arenas and
// 252 MB with one, in the same time (2.18 s and 2.24 s).
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace dfx::cli {

inline void one_heap() {
#if defined(__GLIBC__)
    mallopt(M_ARENA_MAX, 1);  // the reader threads share (and reuse) one heap
#endif
}

inline void keep_blocks_in_heap() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
#endif
}

inline void reuse_freed_memory() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest allowed value
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
    one_heap();
}

}  // namespace dfx::cli
