// Scope stats: one record per scope boundary, sampled by the orchestrator.
#pragma once

#include <cstdint>

namespace dfx {

inline constexpr int scope_site_chars = 32;     // basename, NUL-terminated (31 chars kept)
inline constexpr int max_scope_depth = 64;
inline constexpr int scope_ring_count = 4;      // rings 0..3; deeper scopes share ring 3

enum class scope_phase : std::int16_t { begin = 0, end = 1, fatal = 2 };

// The ring counters at a boundary, raw as the runtime holds them.
struct scope_sample {
    std::int32_t task_window_tail = 0;   // last task alive
    std::int32_t task_window_head = 0;   // next task id
    std::uint64_t heap_reclaim = 0;      // wrapping offset in [0, heap capacity)
    std::uint64_t heap_alloc = 0;        // wrapping offset
    std::int32_t dep_pool_tail = 0;
    std::int32_t dep_pool_top = 0;
    std::int32_t tensormap_live = 0;     // global, not per ring
};

struct scope_stats_record {
    char site[scope_site_chars] = {};
    std::uint64_t heap_start = 0;        // unrolled: cumulative bytes reclaimed
    std::uint64_t heap_end = 0;          // unrolled: cumulative bytes allocated
    std::int32_t site_line = 0;
    std::int32_t task_start = 0;
    std::int32_t task_end = 0;
    std::int32_t dep_pool_start = 0;
    std::int32_t dep_pool_end = 0;
    std::int32_t tensormap_used = 0;
    std::int16_t depth = 0;
    std::int16_t ring = 0;
    scope_phase phase = scope_phase::begin;  // `fatal` marks the latch; it is not a boundary
    std::int16_t reserved = 0;
};
static_assert(sizeof(scope_stats_record) == 80);

}  // namespace dfx
