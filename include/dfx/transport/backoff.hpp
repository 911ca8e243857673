// Waiting politely: spin briefly (a buffer is usually a few microseconds
// away), then yield, then sleep, so a stalled peer costs little CPU. Used by
// a parked producer and by idle drain threads.
//
//     backoff parked;                 // sleeps of 20 us: a producer waiting for a free buffer
//     backoff idle(1000);             // sleeps doubling from 20 us to 1 ms: an idle drain thread
//     while (!ready()) parked.wait();
//     parked.reset();                 // after progress: spin first again
//
// The sleeps of an idle drain thread grow because it may be idle for a whole
// run (a collector with little to say): at a fixed 20 us, each drain thread
// woke some 15,000 times a second (measured on a loaded 2-vCPU machine: 914k
// voluntary context switches in a 50,000-task dfx-sim run with every
// collector on, 1.2k with them off), CPU the runtime's own threads need on a
// small machine (docs/hot-paths.md). Sleeping no longer counts rounds, so a
// long wait cannot wrap the counter back to spinning.
#pragma once

#include <chrono>
#include <thread>

namespace dfx {

class backoff {
public:
    // max_sleep_us: the longest sleep; each sleep doubles from min_sleep_us
    // up to it (the default: every sleep is min_sleep_us).
    explicit backoff(unsigned max_sleep_us = min_sleep_us) noexcept
        : max_sleep_us_(max_sleep_us < min_sleep_us ? min_sleep_us : max_sleep_us) {}

    void wait() noexcept {
        if (rounds_ < spin_rounds) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            asm volatile("yield");
#endif
        } else if (rounds_ < spin_rounds + yield_rounds) {
            std::this_thread::yield();
        } else {
            std::this_thread::sleep_for(std::chrono::microseconds(sleep_us_));
            sleep_us_ = sleep_us_ > max_sleep_us_ / 2 ? max_sleep_us_ : sleep_us_ * 2;
            return;  // rounds_ stays past the spins and yields
        }
        ++rounds_;
    }
    void reset() noexcept {
        rounds_ = 0;
        sleep_us_ = min_sleep_us;
    }

    static constexpr unsigned min_sleep_us = 20;
    // The sleep the next wait() takes once spinning and yielding are over.
    unsigned next_sleep_us() const noexcept { return sleep_us_; }

private:
    static constexpr unsigned spin_rounds = 64;
    static constexpr unsigned yield_rounds = 64;
    unsigned max_sleep_us_;
    unsigned sleep_us_ = min_sleep_us;
    unsigned rounds_ = 0;
};

}  // namespace dfx
