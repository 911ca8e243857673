// One producer's share of the transport: a single block of shared memory
// holding a control header, two index rings and a fixed set of buffers.
//
//   [ channel_header | ready slots | free slots | buffer 0 | buffer 1 | ... ]
//
// Each buffer is a cache-line header (record count; for variable-length
// records, transport/packed_records.hpp, also their bytes) followed by records. A
// buffer is always in exactly one place: the producer's hands, the ready
// ring, the host's hands, or the free ring. Both rings can hold every
// buffer, so publishing a full buffer never waits; only taking a free one
// can, which is what the overflow policy decides about.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "dfx/transport/memory_ops.hpp"
#include "dfx/transport/spsc_ring.hpp"

namespace dfx {

enum class producer_state : std::uint32_t { idle = 0, running = 1, exited = 2 };

// Written by the producer, read by the host (after an acquire).
struct producer_counters {
    alignas(cache_line) std::atomic<std::uint64_t> produced{0};
    std::atomic<std::uint64_t> dropped{0};
    std::atomic<std::uint64_t> backstops{0};  // times the block policy's backstop fired
    // What the dropped records carried, for a kind whose record holds several
    // items (an args dump call record: its arguments); 0 for the others.
    std::atomic<std::uint64_t> dropped_items{0};
    std::atomic<std::uint32_t> state{static_cast<std::uint32_t>(producer_state::idle)};
};

// Fixed once the host has built the channel; read-only afterwards.
struct channel_geometry {
    std::uint32_t buffer_count = 0;
    std::uint32_t records_per_buffer = 0;
    std::uint32_t record_size = 0;
    std::uint32_t ring_capacity = 0;
    std::uint64_t buffer_stride = 0;
    std::uint64_t ready_slots_offset = 0;
    std::uint64_t free_slots_offset = 0;
    std::uint64_t buffers_offset = 0;
    std::uint64_t total_bytes = 0;
};

struct alignas(cache_line) buffer_header {
    std::uint32_t count = 0;  // records in the buffer
    std::uint32_t bytes = 0;  // bytes they use: written for packed records only (packed_records.hpp)
};

struct channel_header {
    spsc_ring_state ready;  // producer -> host: full buffers
    spsc_ring_state free;   // host -> producer: empty buffers
    producer_counters counters;
    alignas(cache_line) channel_geometry geometry;
};

constexpr std::uint64_t round_up(std::uint64_t v, std::uint64_t to) noexcept { return (v + to - 1) / to * to; }

constexpr std::uint32_t next_power_of_two(std::uint32_t v) noexcept {
    std::uint32_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

constexpr channel_geometry make_geometry(std::uint32_t buffers, std::uint32_t records_per_buffer,
                                         std::uint32_t record_size) noexcept {
    channel_geometry g;
    g.buffer_count = buffers;
    g.records_per_buffer = records_per_buffer;
    g.record_size = record_size;
    g.ring_capacity = next_power_of_two(buffers);
    g.buffer_stride = round_up(sizeof(buffer_header) + std::uint64_t{records_per_buffer} * record_size, cache_line);
    g.ready_slots_offset = round_up(sizeof(channel_header), cache_line);
    g.free_slots_offset = g.ready_slots_offset + round_up(g.ring_capacity * sizeof(std::uint32_t), cache_line);
    g.buffers_offset = g.free_slots_offset + round_up(g.ring_capacity * sizeof(std::uint32_t), cache_line);
    g.total_bytes = g.buffers_offset + g.buffer_stride * buffers;
    return g;
}

// A typed-less window onto a channel block from one side's address space.
class channel_view {
public:
    channel_view() = default;
    explicit channel_view(void* block) noexcept
        : base_(static_cast<std::byte*>(block)), header_(std::launder(static_cast<channel_header*>(block))) {}

    channel_header& header() const noexcept { return *header_; }
    const channel_geometry& geometry() const noexcept { return header_->geometry; }
    producer_counters& counters() const noexcept { return header_->counters; }

    spsc_ring ready_ring() const noexcept { return ring(header_->ready, geometry().ready_slots_offset); }
    spsc_ring free_ring() const noexcept { return ring(header_->free, geometry().free_slots_offset); }

    buffer_header& buffer(std::uint32_t index) const noexcept {
        return *std::launder(reinterpret_cast<buffer_header*>(buffer_base(index)));
    }
    std::byte* records(std::uint32_t index) const noexcept { return buffer_base(index) + sizeof(buffer_header); }

    explicit operator bool() const noexcept { return header_ != nullptr; }

private:
    std::byte* buffer_base(std::uint32_t index) const noexcept {
        return base_ + geometry().buffers_offset + geometry().buffer_stride * index;
    }
    spsc_ring ring(spsc_ring_state& state, std::uint64_t slots_offset) const noexcept {
        return spsc_ring(&state, reinterpret_cast<std::uint32_t*>(base_ + slots_offset), geometry().ring_capacity);
    }

    std::byte* base_ = nullptr;
    channel_header* header_ = nullptr;
};

// Builds a channel in a freshly allocated block (host side, before any
// producer starts): every buffer starts on the free ring.
inline channel_view construct_channel(void* host_block, const channel_geometry& g) noexcept {
    auto* header = ::new (host_block) channel_header{};
    header->geometry = g;
    channel_view view(host_block);
    for (std::uint32_t i = 0; i < g.buffer_count; ++i) {
        ::new (static_cast<void*>(&view.buffer(i))) buffer_header{};
        view.free_ring().try_push(i);
    }
    return view;
}

}  // namespace dfx
