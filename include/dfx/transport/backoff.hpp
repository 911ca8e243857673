// Waiting politely: spin briefly (a buffer is usually a few microseconds
// away), then yield, then sleep in short steps so a stalled peer costs
// little CPU. Used by a parked producer and by idle drain threads.
#pragma once

#include <chrono>
#include <thread>

namespace dfx {

class backoff {
public:
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
            std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
        }
        ++rounds_;
    }
    void reset() noexcept { rounds_ = 0; }

private:
    static constexpr unsigned spin_rounds = 64;
    static constexpr unsigned yield_rounds = 64;
    static constexpr unsigned sleep_us = 20;
    unsigned rounds_ = 0;
};

}  // namespace dfx
