// A bounded single-producer / single-consumer ring of buffer indices, laid
// out in memory shared by both sides. Head and tail run freely (u32, wrap
// by design); the slot is `index & mask`.
//
// Memory ordering, the one publication point of the whole transport:
//   push: write the slot, then tail.store(release)
//   pop:  tail.load(acquire), read the slot, then head.store(release)
// Whatever the pusher wrote before the push (the records of a buffer, its
// count) is visible to the popper after the pop; whatever the popper read
// before its head store is finished before the pusher can reuse the slot.
#pragma once

#include <atomic>
#include <cstdint>

#include "dfx/transport/memory_ops.hpp"

namespace dfx {

struct spsc_ring_state {
    alignas(cache_line) std::atomic<std::uint32_t> tail{0};  // written by the pusher
    alignas(cache_line) std::atomic<std::uint32_t> head{0};  // written by the popper
};

// A view over a ring's state and slots; cheap to copy, owns nothing.
class spsc_ring {
public:
    spsc_ring() = default;
    spsc_ring(spsc_ring_state* state, std::uint32_t* slots, std::uint32_t capacity) noexcept
        : state_(state), slots_(slots), mask_(capacity - 1) {}

    // Pusher side. Fails only when full.
    bool try_push(std::uint32_t value) noexcept {
        const std::uint32_t tail = state_->tail.load(std::memory_order_relaxed);
        if (tail - state_->head.load(std::memory_order_acquire) > mask_) return false;
        slots_[tail & mask_] = value;
        state_->tail.store(tail + 1, std::memory_order_release);
        return true;
    }

    // Popper side. Fails only when empty.
    bool try_pop(std::uint32_t& value) noexcept {
        const std::uint32_t head = state_->head.load(std::memory_order_relaxed);
        if (head == state_->tail.load(std::memory_order_acquire)) return false;
        value = slots_[head & mask_];
        state_->head.store(head + 1, std::memory_order_release);
        return true;
    }

    bool empty() const noexcept {
        return state_->head.load(std::memory_order_acquire) == state_->tail.load(std::memory_order_acquire);
    }

private:
    spsc_ring_state* state_ = nullptr;
    std::uint32_t* slots_ = nullptr;
    std::uint32_t mask_ = 0;
};

}  // namespace dfx
