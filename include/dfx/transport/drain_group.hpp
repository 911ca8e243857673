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
// A member is a context and a pass: pass(context) hands over what is ready
// (a bounded amount: a transport_host takes at most each channel's buffer
// count, so one busy channel cannot hold the thread) and says whether it
// found anything. The group calls its members' passes one after the other
// on its thread, each under its mutex; leave() returns once the member's
// pass is not running, and it never runs again, so the member can then
// drain what is left on its own thread (the mutex orders the group
// thread's reads of the channel before the member's). A join or leave
// waits for at most the pass in progress, one member's. The thread starts
// with the first member and ends with the last, so a group with no members
// costs nothing. A pass must not join or leave this group (it would wait
// for itself).
#pragma once

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cstddef>
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
    drain_group() noexcept : drain_group(std::chrono::microseconds{1'000}) {}
    explicit drain_group(std::chrono::microseconds idle_sleep_max) noexcept
        : idle_sleep_max_us_(static_cast<unsigned>(std::clamp<std::chrono::microseconds::rep>(
              idle_sleep_max.count(), backoff::min_sleep_us, 1'000'000))) {}
    drain_group(const drain_group&) = delete;
    drain_group& operator=(const drain_group&) = delete;
    // Every member must have left (a transport_host leaves in stop(), which
    // its destructor calls), so the thread has ended: declare a group
    // before the hosts that join it.
    ~drain_group() {
        assert(members_.empty() && "dfx::drain_group destroyed while a host is still a member");
        end_thread();
    }

    // From now on pass(context) runs on the group's thread, with the other
    // members' passes, until leave(context).
    void join(void* context, bool (*pass)(void*)) {
        const std::lock_guard lifecycle(lifecycle_);
        {
            const waiting_for_members lock(*this);
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
            const waiting_for_members lock(*this);  // waits for the pass in progress
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

    // members_mutex_ taken by join or leave: counted, so the thread lets
    // them have it between two members' passes.
    class waiting_for_members {
    public:
        explicit waiting_for_members(drain_group& g) : g_(g) {
            g_.waiting_.fetch_add(1, std::memory_order_relaxed);
            g_.members_mutex_.lock();
        }
        ~waiting_for_members() {
            g_.members_mutex_.unlock();
            g_.waiting_.fetch_sub(1, std::memory_order_relaxed);
        }
        waiting_for_members(const waiting_for_members&) = delete;
        waiting_for_members& operator=(const waiting_for_members&) = delete;

    private:
        drain_group& g_;
    };

    void run() {
        backoff idle(idle_sleep_max_us_);
        while (!ending_.load(std::memory_order_acquire)) {
            bool any = false;
            // One member at a time under the mutex, by index: a member that
            // joins or leaves in between is seen from the next pass on (one
            // may be skipped or passed twice in this one: harmless).
            for (std::size_t i = 0;; ++i) {
                {
                    const std::lock_guard lock(members_mutex_);
                    if (i >= members_.size()) break;
                    any |= members_[i].pass(members_[i].context);
                }
                if (waiting_.load(std::memory_order_relaxed) != 0) std::this_thread::yield();
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
    std::mutex members_mutex_;      // members_, held by the thread for each member's pass
    std::vector<member> members_;
    std::atomic<unsigned> waiting_{0};  // joins and leaves waiting for members_mutex_
    std::atomic<bool> ending_{false};
    std::thread thread_;
};

}  // namespace dfx
