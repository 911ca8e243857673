// The device side of the transport: one producer per thread (per core for
// AICore records), writing records into its channel's buffers.
//
//   dfx::producer<dfx::aicore_task_record> out{channel};   // channel from the host
//   out.push(record);      // hot path: a copy, a compare and a plain store of the count; no fences
//   if (Record* r = out.claim()) { ...fill *r in place...; out.commit(); }
//                          // the same, written straight into the buffer's slot: for a large
//                          // record filled piecewise (an args dump chunk), only the bytes
//                          // written are touched; nullptr = dropped (counted), no commit
//   if (out.claim([&] { return Record{...}; })) out.commit();
//                          // the same, the record constructed in the slot from its final
//                          // values (no default initialisation first)
//   out.finish();          // or the destructor: publish the partial buffer, say "exited"
//
// A packed record (transport/packed_records.hpp: a header and its own
// payload, variable length) is only claimed, with its payload size:
//   if (Chunk* c = out.claim(n)) { ...header and n bytes after it...; out.commit(n); }
//   (or out.claim(n, [&] { return Chunk{...}; }): the header from its final values)
// and records are packed back to back in the buffer, so a small one costs
// its size, not the largest slot.
//
// When a buffer fills it is published to the host (one release store) and a
// free one is taken. With none free, the overflow policy decides: `block`
// parks until the host recycles one, up to its backstop, after which the
// record is dropped and counted, and later records of the same stall are
// dropped without waiting again (one backstop per stall, so a dead host costs
// the device one timeout, not one per record); `drop` counts and goes on.
// Every record is either delivered or counted as dropped.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

#include "dfx/policy/overflow.hpp"
#include "dfx/transport/backoff.hpp"
#include "dfx/transport/channel.hpp"
#include "dfx/transport/packed_records.hpp"

namespace dfx {

// The device's handle on one channel, typed so a producer cannot write
// records of the wrong size into it.
template <class Record>
struct channel_ref {
    void* device_block = nullptr;
};

template <class Record, class Overflow = block<>>
class producer {
    static_assert(std::is_trivially_copyable_v<Record>, "dfx::producer: records must be trivially copyable");
    static_assert(alignof(Record) <= cache_line, "dfx::producer: records must not need more than cache-line alignment");

public:
    explicit producer(channel_ref<Record> ref) noexcept : channel_(ref.device_block) {
        channel_.counters().state.store(static_cast<std::uint32_t>(producer_state::running),
                                        std::memory_order_relaxed);
    }
    producer(const producer&) = delete;
    producer& operator=(const producer&) = delete;
    ~producer() { finish(); }

    void push(const Record& record) noexcept
        requires(!packed_record<Record>)
    {
        ++produced_;
        // Relaxed (a plain store): the host reads it only for a producer that
        // never finished, to count the records still in its hands as lost.
        channel_.counters().produced.store(produced_, std::memory_order_relaxed);
        if (count_ == limit_) [[unlikely]] {
            if (!next_buffer()) {
                ++dropped_;
                return;
            }
        }
        std::memcpy(records_ + std::size_t{count_} * sizeof(Record), &record, sizeof(Record));
        ++count_;
    }

    // The slot the next record goes to, default-initialised in place (its
    // default member initialisers run; an array member without one, like a
    // chunk's payload, is left as it is), or nullptr when the overflow policy
    // dropped it (counted, exactly as push would). A non-null claim must be
    // committed before the next claim, push or finish.
    [[nodiscard]] Record* claim() noexcept
        requires(!packed_record<Record>)
    {
        void* slot = claim_slot();
        return slot ? ::new (slot) Record : nullptr;
    }
    // The same, the record constructed in the slot from make()'s result (a
    // prvalue: guaranteed elision, so each byte is written once, with its
    // final value, not default-initialised first). make() is not called when
    // the record is dropped.
    template <class Make>
        requires(!packed_record<Record> && std::is_same_v<std::invoke_result_t<Make&>, Record>)
    [[nodiscard]] Record* claim(Make&& make) noexcept {
        void* slot = claim_slot();
        return slot ? ::new (slot) Record(make()) : nullptr;
    }
    // The claimed record is complete: it goes with the buffer.
    void commit() noexcept
        requires(!packed_record<Record>)
    {
        ++count_;
    }

    // Packed records: room for the header and `payload` bytes after it
    // (payload <= packed_slot_bytes - sizeof(Record)), the header
    // default-initialised, the payload left as it is; or nullptr when the
    // overflow policy dropped it (counted). A buffer without that much room
    // left goes to the host as it is and the record starts the next one.
    [[nodiscard]] Record* claim(std::uint32_t payload) noexcept
        requires packed_record<Record>
    {
        void* slot = claim_packed_slot(payload);
        return slot ? ::new (slot) Record : nullptr;
    }
    // The same, the header constructed from make()'s result (as claim(make) above).
    template <class Make>
        requires(packed_record<Record> && std::is_same_v<std::invoke_result_t<Make&>, Record>)
    [[nodiscard]] Record* claim(std::uint32_t payload, Make&& make) noexcept {
        void* slot = claim_packed_slot(payload);
        return slot ? ::new (slot) Record(make()) : nullptr;
    }
    // The claimed record is complete with `payload` bytes (at most what was
    // claimed; the header's packed_payload_bytes() says the same).
    void commit(std::uint32_t payload) noexcept
        requires packed_record<Record>
    {
        used_ += packed_stride<Record>(payload);
        ++count_;
    }

    // A record whose claim gave nullptr (dropped) carried `items` items: a
    // kind whose record holds several (an args dump call record holds a
    // task's arguments) counts them, so the host reports what was lost.
    void count_dropped_items(std::uint64_t items) noexcept { dropped_items_ += items; }

    // Publishes what is buffered and marks the producer exited. Idempotent;
    // no push may follow.
    void finish() noexcept {
        if (finished_) return;
        finished_ = true;
        if (records_ && count_ > 0) publish_current();
        publish_counters();
        // Release: the final buffer and counters are visible to a host that
        // reads `exited` with acquire.
        channel_.counters().state.store(static_cast<std::uint32_t>(producer_state::exited),
                                        std::memory_order_release);
    }

    std::uint64_t produced() const noexcept { return produced_; }
    std::uint64_t dropped() const noexcept { return dropped_; }
    // Records the channel holds in all its buffers (fixed by the host; for
    // packed records, records of the largest size).
    std::uint64_t capacity() const noexcept {
        const channel_geometry& g = channel_.geometry();
        return std::uint64_t{g.buffer_count} * g.records_per_buffer;
    }

private:
    // A claim's accounting and room test: the free slot, or nullptr when the
    // overflow policy dropped the record (counted).
    void* claim_slot() noexcept {
        ++produced_;
        channel_.counters().produced.store(produced_, std::memory_order_relaxed);
        if (count_ == limit_) [[unlikely]] {
            if (!next_buffer()) {
                ++dropped_;
                return nullptr;
            }
        }
        return records_ + std::size_t{count_} * sizeof(Record);
    }
    void* claim_packed_slot(std::uint32_t payload) noexcept {
        ++produced_;
        channel_.counters().produced.store(produced_, std::memory_order_relaxed);
        const std::uint32_t stride = packed_stride<Record>(payload);
        if (room_ - used_ < stride) [[unlikely]] {
            if (!next_buffer()) {
                ++dropped_;
                return nullptr;
            }
        }
        return records_ + used_;
    }

    [[gnu::noinline]] bool next_buffer() noexcept {
        if (records_) publish_current();
        std::uint32_t index = 0;
        if (!take_free(index)) return false;
        current_ = index;
        records_ = channel_.records(index);
        count_ = 0;
        limit_ = channel_.geometry().records_per_buffer;
        if constexpr (packed_record<Record>) {
            used_ = 0;
            room_ = limit_ * channel_.geometry().record_size;
        }
        return true;
    }

    void publish_current() noexcept {
        channel_.buffer(current_).count = count_;
        if constexpr (packed_record<Record>) {
            channel_.buffer(current_).bytes = used_;
            used_ = room_ = 0;
        }
        publish_counters();
        // Never fails: the ready ring holds every buffer of the channel. Its
        // release store publishes the records and the count written above.
        channel_.ready_ring().try_push(current_);
        records_ = nullptr;
        count_ = limit_ = 0;
    }

    // Relaxed: the host reads them after an acquire on a ring or the state.
    void publish_counters() noexcept {
        auto& c = channel_.counters();
        c.produced.store(produced_, std::memory_order_relaxed);
        c.dropped.store(dropped_, std::memory_order_relaxed);
        c.backstops.store(backstops_, std::memory_order_relaxed);
        c.dropped_items.store(dropped_items_, std::memory_order_relaxed);
    }

    bool take_free(std::uint32_t& index) noexcept {
        spsc_ring free = channel_.free_ring();
        if (free.try_pop(index)) {
            stalled_ = false;
            return true;
        }
        if constexpr (!Overflow::blocks) {
            return false;
        } else {
            if (stalled_) return false;  // the backstop already fired in this stall
            const auto start = std::chrono::steady_clock::now();
            backoff wait;
            for (;;) {
                if (free.try_pop(index)) return true;
                if (std::chrono::steady_clock::now() - start >= Overflow::backstop) {
                    stalled_ = true;
                    ++backstops_;
                    publish_counters();
                    return false;
                }
                wait.wait();
            }
        }
    }

    channel_view channel_;
    std::byte* records_ = nullptr;
    std::uint32_t count_ = 0;
    std::uint32_t limit_ = 0;  // 0 while the producer holds no buffer, so push takes the slow path
    std::uint32_t current_ = 0;
    // Packed records only: bytes used and available in the held buffer (room_ is 0 while none is held).
    std::uint32_t used_ = 0;
    std::uint32_t room_ = 0;
    std::uint64_t produced_ = 0;
    std::uint64_t dropped_ = 0;
    std::uint64_t backstops_ = 0;
    std::uint64_t dropped_items_ = 0;
    bool stalled_ = false;
    bool finished_ = false;
};

}  // namespace dfx
