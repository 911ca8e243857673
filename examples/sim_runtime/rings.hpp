// The per-scope-depth rings: task window, heap and dep pool, one set per ring
// (ring = min(scope depth, 3)), sized by the ring knobs.
//
// The orchestrator allocates at the head of a ring when it submits a task: a
// window slot, the bytes of the task's runtime-allocated outputs, and one dep
// pool entry per producer it wires. Everything is freed in submit order when
// the oldest task of the ring retires (completed, its consumers completed,
// its scope ended), so a ring that is too small makes the orchestrator wait
// for retirements: that wait is the stall scope stats shows.
//
// Counters are monotonic ("unrolled"): the heap's are cumulative bytes, a
// raw offset is the counter modulo the capacity, and a wrap is the counter
// crossing a multiple of it. An allocation never straddles the end of the
// heap: one that would is placed at the start of the next lap.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "dfx/record/scope_stats_records.hpp"

namespace sim {

inline constexpr int ring_count = dfx::scope_ring_count;  // 4

struct ring_capacity {
    std::uint32_t task_window = 64;
    std::uint64_t heap_bytes = 1u << 20;
    std::uint32_t dep_pool = 256;
};

// What a ring remembers of one task until it retires.
struct ring_slot {
    std::uint32_t local_id = 0;
    std::uint64_t heap_begin = 0, heap_end = 0;  // unrolled; empty when the task allocated nothing
    std::uint32_t dep_end = 0;                   // the dep pool top after this task's entries
    std::uint32_t tensormap_entries = 0;         // writes it put into the tensor map
    std::atomic<bool> releasable{false};         // completed, no consumer left, scope ended
};

struct reclaimed {
    std::uint32_t tasks = 0;
    std::uint32_t tensormap_entries = 0;
};

class ring {
public:
    ring(int id, ring_capacity capacity, std::uint64_t base_addr)
        : id_(id), capacity_(capacity), base_addr_(base_addr),
          // Default-initialised: pages are only touched where outputs land.
          memory_(new (std::nothrow) std::byte[capacity.heap_bytes]) {
        if (!memory_)
            throw std::runtime_error("--ring-heap: cannot allocate " + std::to_string(capacity.heap_bytes) +
                                     " bytes for the heap of ring " + std::to_string(id));
    }

    int id() const { return id_; }
    const ring_capacity& capacity() const { return capacity_; }

    // ---- orchestrator side (one thread) ----

    bool window_full() const { return head_ - tail_.load(std::memory_order_acquire) >= capacity_.task_window; }

    // Where `bytes` would go, if the heap has room for them now.
    std::optional<std::uint64_t> heap_place(std::uint64_t bytes) const {
        std::uint64_t start = heap_alloc_;
        if (start % capacity_.heap_bytes + bytes > capacity_.heap_bytes)
            start = (start / capacity_.heap_bytes + 1) * capacity_.heap_bytes;  // next lap
        if (start + bytes - heap_reclaim_.load(std::memory_order_acquire) > capacity_.heap_bytes) return std::nullopt;
        return start;
    }

    bool dep_pool_has(std::uint32_t entries) const {
        return dep_top_ - dep_tail_.load(std::memory_order_acquire) + entries <= capacity_.dep_pool;
    }

    // Takes the next window slot and the heap range [heap_start, heap_start +
    // bytes) for `slot`; the slot must stay alive until it is reclaimed.
    void admit(ring_slot& slot, std::uint64_t heap_start, std::uint64_t bytes) {
        slot.local_id = head_++;
        slot.heap_begin = heap_start;
        slot.heap_end = heap_start + bytes;
        if (bytes > 0) heap_alloc_ = slot.heap_end;
        slot.dep_end = dep_top_;
        std::lock_guard lock(mutex_);
        live_.push_back(&slot);
    }

    void take_dep_entries(ring_slot& slot, std::uint32_t entries) {
        dep_top_ += entries;
        slot.dep_end = dep_top_;
    }

    float* heap_data(std::uint64_t unrolled) const {
        return reinterpret_cast<float*>(memory_.get() + unrolled % capacity_.heap_bytes);
    }
    std::uint64_t heap_addr(std::uint64_t unrolled) const { return base_addr_ + unrolled % capacity_.heap_bytes; }

    // The ring's counters for a scope-stats sample, raw as a runtime holds them.
    dfx::scope_sample sample(std::int32_t tensormap_live) const {
        dfx::scope_sample s;
        s.task_window_tail = static_cast<std::int32_t>(tail_.load(std::memory_order_acquire));
        s.task_window_head = static_cast<std::int32_t>(head_);
        s.heap_reclaim = heap_reclaim_.load(std::memory_order_acquire) % capacity_.heap_bytes;
        s.heap_alloc = heap_alloc_ % capacity_.heap_bytes;
        s.dep_pool_tail = static_cast<std::int32_t>(dep_tail_.load(std::memory_order_acquire));
        s.dep_pool_top = static_cast<std::int32_t>(dep_top_);
        s.tensormap_live = tensormap_live;
        return s;
    }
    // Laps completed by the allocation and the reclaim pointers.
    std::uint64_t alloc_wraps() const { return heap_alloc_ / capacity_.heap_bytes; }
    std::uint64_t reclaim_wraps() const { return heap_reclaim_.load(std::memory_order_acquire) / capacity_.heap_bytes; }

    std::uint32_t head() const { return head_; }

    // ---- any thread ----

    // Retires releasable tasks from the oldest on; stops at the first that is not.
    reclaimed reclaim() {
        reclaimed out;
        std::lock_guard lock(mutex_);
        while (!live_.empty() && live_.front()->releasable.load(std::memory_order_acquire)) {
            const ring_slot& s = *live_.front();
            live_.pop_front();
            if (s.heap_end > s.heap_begin) heap_reclaim_.store(s.heap_end, std::memory_order_release);
            dep_tail_.store(s.dep_end, std::memory_order_release);
            tail_.store(s.local_id + 1, std::memory_order_release);
            ++out.tasks;
            out.tensormap_entries += s.tensormap_entries;
        }
        return out;
    }

private:
    int id_;
    ring_capacity capacity_;
    std::uint64_t base_addr_;
    std::unique_ptr<std::byte[]> memory_;

    // Heads: written by the orchestrator only.
    std::uint32_t head_ = 0;
    std::uint64_t heap_alloc_ = 0;
    std::uint32_t dep_top_ = 1;  // dep pool counters start at 1 (0 is NULL), as the reference's

    // Tails: advanced under mutex_ by whichever thread retires tasks.
    std::atomic<std::uint32_t> tail_{0};
    std::atomic<std::uint64_t> heap_reclaim_{0};
    std::atomic<std::uint32_t> dep_tail_{1};
    std::mutex mutex_;
    std::deque<ring_slot*> live_;
};

}  // namespace sim
