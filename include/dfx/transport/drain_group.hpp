// One drain thread for the channels of several transport hosts.
//
//   dfx::drain_group drains;                          // no thread yet
//   dfx::transport_options o;
//   o.group = &drains;                                // before the hosts: it outlives them
//   dfx::swimlane_host<> swimlane(level, layout, channels, o);
//   dfx::dep_gen_host<> deps(channels, {4, 32}, o);
//   swimlane.start(); deps.start();                   // each joins; the first starts the thread
//   ...the runtime runs...
//   swimlane.stop(); deps.stop();                     // each leaves, then drains its rest itself
//
// Why: a transport_host runs drain threads of its own, so a run with every
// collector on had five drains, each waking on its own to look at its
// channels. On a machine with fewer cores than the runtime has threads (the
// 2-vCPU CI machine runs dfx-sim's 9 chip threads) every wake-up of a drain
// is CPU the runtime does not get. One thread that passes over every
// member's channels does the same collecting with one wake-up, one backoff
// and one stack (docs/transport.md, "Drain groups"; measured in
// docs/hot-paths.md). dfx::session drains all of its collectors with one.
//
// A member is a context and a pass: pass(context) hands over whatever is
// ready and says whether it found anything. The group calls its members'
// passes one after the other on its thread, under its mutex; leave()
// returns only once the member's pass is not running, and it never runs
// again, so the member can then drain what is left on its own thread (the
// mutex orders the group thread's reads of the channel before the
// member's). The thread starts with the first member and ends with the
// last, so a group with no members costs nothing.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "dfx/transport/backoff.hpp"

namespace dfx {

class drain_group {
public:
    // idle_sleep_max: the longest sleep of the thread when no member had
    // anything (its sleeps double from 20 us up to it; any work resets
    // them), as transport_options::drain_idle_sleep_max; held to
    // [20 us, 1 s].
    explicit drain_group(std::chrono::microseconds idle_sleep_max = std::chrono::microseconds{1'000}) noexcept
        : idle_sleep_max_us_(static_cast<unsigned>(std::clamp<std::chrono::microseconds::rep>(
              idle_sleep_max.count(), backoff::min_sleep_us, 1'000'000))) {}
    drain_group(const drain_group&) = delete;
    drain_group& operator=(const drain_group&) = delete;
    // Every member must have left (a transport_host leaves in stop(), which
    // its destructor calls): the thread has ended then.
    ~drain_group() { end_thread(); }

    // From now on pass(context) runs on the group's thread, with the other
    // members' passes, until leave(context).
    void join(void* context, bool (*pass)(void*)) {
        const std::lock_guard lifecycle(lifecycle_);
        {
            const std::lock_guard lock(members_mutex_);
            members_.push_back({context, pass});
        }
        if (!thread_.joinable()) {
            ending_.store(false, std::memory_order_relaxed);
            thread_ = std::thread([this] { run(); });
        }
    }

    // Returns once context's pass has stopped running on the group's thread
    // for good; the last member to leave ends the thread.
    void leave(void* context) {
        const std::lock_guard lifecycle(lifecycle_);
        bool empty = false;
        {
            const std::lock_guard lock(members_mutex_);  // waits for a pass in progress
            std::erase_if(members_, [context](const member& m) { return m.context == context; });
            empty = members_.empty();
        }
        if (empty) end_thread();
    }

    // Whether the group's thread is running (it is while it has members).
    [[nodiscard]] bool running() const {
        const std::lock_guard lifecycle(lifecycle_);
        return thread_.joinable();
    }

private:
    struct member {
        void* context;
        bool (*pass)(void*);
    };

    void run() {
        backoff idle(idle_sleep_max_us_);
        while (!ending_.load(std::memory_order_acquire)) {
            bool any = false;
            {
                const std::lock_guard lock(members_mutex_);
                for (const member& m : members_) any |= m.pass(m.context);
            }
            if (any)
                idle.reset();
            else
                idle.wait();
        }
    }

    void end_thread() {
        if (!thread_.joinable()) return;
        ending_.store(true, std::memory_order_release);
        thread_.join();
    }

    unsigned idle_sleep_max_us_;
    mutable std::mutex lifecycle_;  // join / leave / running, one at a time
    std::mutex members_mutex_;      // members_, held by the thread for a whole pass over them
    std::vector<member> members_;
    std::atomic<bool> ending_{false};
    std::thread thread_;
};

}  // namespace dfx
