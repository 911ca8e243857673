// Variable-length records packed back to back in a channel's buffers: each
// is a fixed header (the record type) followed by as many payload bytes as
// it says, so a record costs what it carries, not its largest size.
//
//   struct my_chunk {                                   // the header
//       std::uint32_t size = 0;                         // payload bytes that follow it
//       static constexpr std::uint32_t packed_slot_bytes = 4096;   // largest header + payload
//       std::uint32_t packed_payload_bytes() const noexcept { return size; }
//   };
//   // device: if (my_chunk* c = out.claim(n)) { ...fill c and n bytes after it...; out.commit(n); }
//   // host:   for (packed_cursor<my_chunk> at(records); const my_chunk* c = at.peek(); at.advance()) ...
//
// A channel of packed records keeps the fixed-record geometry with
// packed_slot_bytes as its record size, so "records per buffer" still bounds
// the largest records a buffer holds; smaller ones simply fit more. Each
// record starts on a cache line. The buffer's header says how many records
// it holds and how many bytes they use (channel.hpp: buffer_header), so the
// host walks exactly what the producer wrote.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <new>

#include "dfx/transport/memory_ops.hpp"

namespace dfx {

template <class Record>
concept packed_record = requires(const Record& r) {
    { Record::packed_slot_bytes } -> std::convertible_to<std::uint32_t>;
    { r.packed_payload_bytes() } noexcept -> std::convertible_to<std::uint32_t>;
};

// Bytes a record with `payload` bytes takes in a buffer: the next starts on a cache line.
template <class Record>
constexpr std::uint32_t packed_stride(std::uint32_t payload) noexcept {
    return static_cast<std::uint32_t>((sizeof(Record) + payload + cache_line - 1) / cache_line * cache_line);
}

// The record size a channel of this kind is built with (its geometry unit).
template <class Record>
constexpr std::uint32_t channel_record_size() noexcept {
    if constexpr (packed_record<Record>) {
        static_assert(Record::packed_slot_bytes % cache_line == 0 && Record::packed_slot_bytes > sizeof(Record),
                      "dfx::packed_record: the slot must be whole cache lines and hold the header");
        return Record::packed_slot_bytes;
    } else {
        return sizeof(Record);
    }
}

// One collected buffer of packed records, as the host drain hands it over.
template <class Record>
struct packed_records {
    const std::byte* bytes = nullptr;
    std::uint32_t count = 0;  // records the producer committed
    std::uint32_t size = 0;   // bytes they use
};

// Walks a buffer of packed records. Stops early at a record that would run
// past the buffer's bytes or claims a payload larger than its slot (a
// producer bug, or memory not written by one): intact() then says so, and
// nothing past that point is read.
template <class Record>
class packed_cursor {
public:
    explicit packed_cursor(packed_records<Record> records) noexcept : records_(records) {}

    // The record at the cursor, or nullptr at the end (or at a malformed one).
    const Record* peek() const noexcept {
        if (index_ == records_.count || records_.size - at_ < sizeof(Record)) return nullptr;
        const Record* r = std::launder(reinterpret_cast<const Record*>(records_.bytes + at_));
        const std::uint32_t payload = r->packed_payload_bytes();
        if (payload > Record::packed_slot_bytes - sizeof(Record) || packed_stride<Record>(payload) > records_.size - at_)
            return nullptr;
        return r;
    }
    // Precondition: peek() gave a record.
    void advance() noexcept {
        at_ += packed_stride<Record>(peek()->packed_payload_bytes());
        ++index_;
    }
    // Every committed record was walked (call once peek() gave nullptr).
    bool intact() const noexcept { return index_ == records_.count; }
    // Bytes walked so far (where a malformed record starts).
    std::uint32_t offset() const noexcept { return at_; }
    // Records walked so far.
    std::uint32_t index() const noexcept { return index_; }

private:
    packed_records<Record> records_;
    std::uint32_t at_ = 0;
    std::uint32_t index_ = 0;
};

// A record's payload: the bytes right after its header.
template <class Record>
std::byte* packed_payload(Record* r) noexcept {
    return reinterpret_cast<std::byte*>(r) + sizeof(Record);
}
template <class Record>
const std::byte* packed_payload(const Record* r) noexcept {
    return reinterpret_cast<const std::byte*>(r) + sizeof(Record);
}

}  // namespace dfx
