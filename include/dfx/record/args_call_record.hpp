// Args dump on the wire: one packed record per capture call (one task, one
// stage), carrying for each argument only what the host cannot derive.
//
//   args_call_record (32 B)  task id, the chunk batch of the call's tensor
//                            bytes, the raw kernel ids {aic, aiv0, aiv1},
//                            payload size
//   then per argument, in capture order (tensors by slot, then scalars),
//   each 8-byte aligned:
//     head (8 B)             arg_index, bits, dtype, ndims, stage, 3 zero bytes
//     value (8 B)            tensor: bytes captured; scalar: the raw 64-bit slot
//     [start offset (8 B)]   only when bits has args_entry_has_start_offset
//     shape[ndims], strides[ndims]   u32 each, tensors only, zero-padded to 8
//
// A one-dimensional contiguous tensor at offset 0 is 24 bytes and a scalar 16,
// where an args_dump_record (record/args_dump_records.hpp) is 128: the host
// rebuilds those (output/args_call_decoder.hpp) with the compacted kernel ids,
// each tensor's offset in its batch (the running sum of the sizes before it,
// in capture order) and the defaults of the fields the entry leaves out. The
// tensor bytes still travel as args_payload_chunk batches on their own
// channel, so args.bin is laid out as before.
//
// A dropped call record loses all its arguments at once: the capture adds
// their count to the channel's dropped items (transport/producer.hpp), so the
// host reports lost arguments, not lost records.
#pragma once

#include <cstdint>

#include "dfx/record/args_dump_records.hpp"
#include "dfx/record/tensor_view.hpp"

namespace dfx {

// No default member initialisers: the capture claims the record in place
// and writes every byte of it once.
struct args_call_record {
    std::uint64_t task_id;
    std::uint64_t payload_batch;  // number of the batch's first chunk on the chunk channel
    std::int32_t kernel_ids[3];   // {aic, aiv0, aiv1} as the scheduler passed them, -1 = inactive
    std::uint32_t size;           // entry bytes after this header

    // A packed record of the transport (transport/packed_records.hpp). The
    // largest call (64 tensors of 5 dimensions at an offset) takes 32 + 64 x 64
    // bytes, so the slot is 8 KiB; records are claimed at their exact size.
    static constexpr std::uint32_t packed_slot_bytes = 8192;
    std::uint32_t packed_payload_bytes() const noexcept { return size; }
};
static_assert(sizeof(args_call_record) == 32);

// An entry's bits (its second byte).
inline constexpr std::uint8_t args_entry_role_mask = 0x3;          // dump_role of a tensor
inline constexpr std::uint8_t args_entry_scalar = 1u << 2;         // a scalar: no shape, no bytes
inline constexpr std::uint8_t args_entry_truncated = 1u << 3;      // larger than the arena: half of it kept
inline constexpr std::uint8_t args_entry_contiguous = 1u << 4;     // tensors only
inline constexpr std::uint8_t args_entry_ambiguous = 1u << 5;      // dump_flag_ambiguous
inline constexpr std::uint8_t args_entry_has_start_offset = 1u << 6;
inline constexpr std::uint8_t args_entry_known_bits = 0x7f;

// Bytes of an entry: head and value, the start offset when non-zero, and a
// tensor's shape and strides.
constexpr std::uint32_t args_tensor_entry_bytes(std::uint32_t ndims, bool has_start_offset) noexcept {
    return 16 + (has_start_offset ? 8 : 0) + 8 * ndims;
}
inline constexpr std::uint32_t args_scalar_entry_bytes = 16;
inline constexpr std::uint32_t args_tensor_entry_max_bytes = args_tensor_entry_bytes(max_tensor_dims, true);

// The most entry bytes a call of a task with these limits can write.
constexpr std::uint64_t args_call_max_payload(int max_tensors, int max_scalars) noexcept {
    return std::uint64_t(max_tensors) * args_tensor_entry_max_bytes + std::uint64_t(max_scalars) * args_scalar_entry_bytes;
}
static_assert(sizeof(args_call_record) + args_call_max_payload(64, 0) <= args_call_record::packed_slot_bytes,
              "the largest call (task_args allows 64 arguments) fits one slot");

}  // namespace dfx
