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
#include <cstdlib>
#include <cstring>
#include <new>

namespace bench {

// 1 MiB, written sequentially and reused: about what a channel's buffers
// span when the host recycles them, so the floor's stores miss the caches
// about as often as a collector's do on a live channel (they mostly stay in
// L2). Against channels that hold a whole run (no_wait), run_arena below.
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

// The same copies spread over a whole run: an arena as large as everything
// a run copies, each byte written once and never reused, as channels that
// hold the whole run are (bench/no_wait_channels.hpp), and faulted in
// before the timed loop as their buffers are. Its stores miss the caches as
// a no_wait benchmark's do, where floor_arena's stay in L2: the floor for
// comparing against a no_wait run.
//
//   bench::run_arena arena(tasks * bytes_per_task);
class run_arena {
public:
    explicit run_arena(std::size_t bytes)
        : bytes_((bytes + 63) / 64 * 64), data_(static_cast<std::byte*>(std::aligned_alloc(64, bytes_))) {
        if (data_ == nullptr) throw std::bad_alloc();
        std::memset(data_, 0, bytes_);  // faulted in now, not in the timed loop
        benchmark::DoNotOptimize(data_);
    }
    run_arena(const run_arena&) = delete;
    run_arena& operator=(const run_arena&) = delete;
    ~run_arena() { std::free(data_); }

    std::byte* take(std::size_t n) {
        if (at_ + n > bytes_) at_ = 0;  // (sized for the run: only a longer run wraps)
        std::byte* p = data_ + at_;
        at_ += n;
        return p;
    }
    template <class T>
    void put(const T& value) {
        std::memcpy(take(sizeof(T)), &value, sizeof(T));
        benchmark::ClobberMemory();
    }

private:
    std::size_t bytes_;
    std::byte* data_;
    std::size_t at_ = 0;
};

}  // namespace bench
