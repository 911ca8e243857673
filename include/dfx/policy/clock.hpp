// Clock sources: where a stamp's raw cycles come from, and their frequency.
//
// A clock source is a type with
//   static std::uint64_t now() noexcept;          raw ticks, monotonic per thread
//   static std::uint64_t frequency_hz() noexcept;  ticks per second
// The artefacts store raw ticks plus `clock_freq_hz`, as the reference does,
// so the hot path never converts units.
#pragma once

#include <chrono>
#include <cstdint>

namespace dfx {

// std::chrono::steady_clock in nanoseconds: portable, a few ns per read.
struct steady_clock_source {
    static std::uint64_t now() noexcept {
        return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                              std::chrono::steady_clock::now().time_since_epoch())
                                              .count());
    }
    static std::uint64_t frequency_hz() noexcept { return 1'000'000'000ULL; }
};

#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
// The CPU's invariant cycle counter (rdtsc on x86, cntvct_el0 on AArch64):
// the cheapest stamp there is. Its frequency is calibrated once against
// steady_clock on first use, off the hot path.
struct tsc_clock {
    static std::uint64_t now() noexcept {
#if defined(__aarch64__)
        std::uint64_t v;
        asm volatile("mrs %0, cntvct_el0" : "=r"(v));
        return v;
#else
        // The builtin, not <x86intrin.h>'s __rdtsc(): the same rdtsc
        // instruction, without ~0.5 s of intrinsics headers parsed by every
        // hot-path translation unit that stamps.
        return __builtin_ia32_rdtsc();
#endif
    }

    static std::uint64_t frequency_hz() noexcept {
        static const std::uint64_t hz = calibrate();
        return hz;
    }

private:
    static std::uint64_t calibrate() noexcept {
#if defined(__aarch64__)
        std::uint64_t f;
        asm volatile("mrs %0, cntfrq_el0" : "=r"(f));
        return f;
#else
        // Busy-wait ~20 ms on the steady clock: long enough for a 0.1% estimate,
        // short enough to be unnoticeable at start-up.
        using namespace std::chrono;
        const auto t0 = steady_clock::now();
        const std::uint64_t c0 = now();
        auto t1 = t0;
        while (t1 - t0 < milliseconds(20)) t1 = steady_clock::now();
        const std::uint64_t c1 = now();
        const auto ns = static_cast<std::uint64_t>(duration_cast<nanoseconds>(t1 - t0).count());
        return (c1 - c0) * 1'000'000'000ULL / ns;
#endif
    }
};
#endif

// A counter the device runtime provides (for example the chip's system
// counter), with its fixed frequency.
template <auto Read, std::uint64_t FrequencyHz>
struct device_counter {
    static_assert(FrequencyHz > 0, "dfx::device_counter: the counter frequency must be > 0 Hz");

    static std::uint64_t now() noexcept { return Read(); }
    static constexpr std::uint64_t frequency_hz() noexcept { return FrequencyHz; }
};

}  // namespace dfx
