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
// command opts in; only those whose run is short and single-purpose do.
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace dfx::cli {

inline void reuse_freed_memory() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest allowed value
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_ARENA_MAX, 1);  // the reader threads share (and reuse) one heap
#endif
}

}  // namespace dfx::cli
