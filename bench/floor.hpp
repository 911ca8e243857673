// The floor of a collector: the least work its stamps must do per task, timed
// in the same process as the collector itself so the two compare.
//
//   bench::floor_arena arena;                 where the captured bytes go
//   std::memcpy(arena.take(sizeof r), &r, sizeof r);   one record's bytes
//
// A floor benchmark (BM_<role>_floor<N>, BM_<role>_<collector>_floor<N>) runs
// the role's uninstrumented work plus the bare clock reads the collector must
// take (same clock source) and a memcpy of the bytes it must capture into a
// cycling arena. floor - plain is the floor; (typed - plain) / (floor - plain)
// is what scripts/bench_report.py prints as the ratio over the floor. No
// transport, no host, no accounting: that is exactly the overhead measured.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstring>

namespace bench {

// 1 MiB, written sequentially and reused: about what a channel's buffers
// span, so the floor's stores miss the caches about as often as the
// collector's do.
struct floor_arena {
    static constexpr std::size_t bytes = std::size_t{1} << 20;
    alignas(64) std::byte data[bytes];
    std::size_t at = 0;

    floor_arena() { benchmark::DoNotOptimize(data); }

    std::byte* take(std::size_t n) {
        if (at + n > bytes) at = 0;
        std::byte* p = data + at;
        at += n;
        return p;
    }
    // Copies the bytes of one trivially copyable value into the arena.
    template <class T>
    void put(const T& value) {
        std::memcpy(take(sizeof(T)), &value, sizeof(T));
        benchmark::ClobberMemory();
    }
};

}  // namespace bench
