// release_free_memory: hand the heap's free pages back to the system at a
// point where a converter has just freed much of what it held.
//
//   for (loop_lane& lane : lanes) sum_loop_lane(lane, clock);  // frees the phases
//   dfx::convert::release_free_memory();                     // before the join
//
// Why: glibc serves a buffer below its mmap threshold (128 KiB at first,
// raised up to 32 MiB as mapped buffers are freed) from its heap, and a
// freed one stays there, resident, unless it happens to be at the heap's
// top. `dfx sched-overhead` at 10^6 tasks read its loop phases into three
// growing buffers of a few MB each and freed them before the join: the
// 20-40 MB they and their growth steps left in the heap raised the join's
// peak (377 MB; 332 MB with the pages released). malloc_trim(0) releases
// every whole free page, in the middle of the heap too, in a few ms.
// Elsewhere (no glibc) it does nothing.
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace dfx::convert {

inline void release_free_memory() noexcept {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

}  // namespace dfx::convert
