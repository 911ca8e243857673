// Args dump: what the scheduler captures per argument, and the bytes of the
// tensors it captures.
//
// Two record kinds travel on two channels of the same scheduler thread:
//   args_dump_record    one per captured argument (the reference's
//                       ArgsDumpRecord fields, 128 bytes)
//   args_payload_chunk  the tensor bytes, in chunks of up to 4 KiB: a 64-byte
//                       header and its bytes, packed back to back in the
//                       channel's buffers (transport/packed_records.hpp), so
//                       a 256-byte tensor takes 320 bytes, not a 4 KiB slot
//
// A capture call (one task, one stage) writes the bytes of all the tensors
// it captures as one *batch*: a run of chunks numbered by the chunk
// channel's own push count, so the host can tell which chunks it never got.
// A metadata record names its bytes by (batch, offset in batch, size); the
// host places each batch contiguously in args.bin, so a payload is contiguous
// there too, and a payload whose chunks did not all arrive is flagged, not
// silently short.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dfx/record/tensor_view.hpp"

namespace dfx {

// The role of an argument as the dump reports it (the reference's
// ArgsDumpRecord::role): input and inout are captured before dispatch,
// output and inout after completion.
enum class dump_role : std::uint8_t { input = 0, output = 1, inout = 2 };
enum class dump_stage : std::uint8_t { before_dispatch = 0, after_completion = 1 };
enum class dump_arg_kind : std::uint8_t { tensor = 0, scalar = 1 };

// args_dump_record::flags
inline constexpr std::uint8_t dump_flag_ambiguous = 1u << 0;  // the marked variable was added more than once

struct args_dump_record {
    std::uint64_t task_id = 0;
    std::uint64_t payload_batch = 0;     // number of the batch's first chunk on the chunk channel
    std::uint64_t payload_offset = 0;    // of this argument's bytes within the batch
    std::uint64_t payload_size = 0;      // bytes captured; 0 for scalars and empty tensors
    std::uint64_t scalar_value = 0;      // the raw 64-bit slot, scalars only
    std::uint64_t start_offset = 0;      // elements
    std::uint32_t arg_index = 0;         // tensor slot, or tensor_count + scalar index
    std::uint32_t shape[max_tensor_dims] = {};
    std::uint32_t strides[max_tensor_dims] = {};
    std::int32_t func_ids[3] = {-1, -1, -1};  // the task's active kernels in slot order (AIC, AIV0, AIV1)
    dump_role role = dump_role::input;
    dump_stage stage = dump_stage::before_dispatch;
    dump_arg_kind kind = dump_arg_kind::tensor;
    std::uint8_t dtype = 0;
    std::uint8_t ndims = 0;
    std::uint8_t truncated = 0;          // 1: larger than the payload arena; the first half-arena was kept
    std::uint8_t is_contiguous = 1;      // strides[d] == prod(shape[d+1..]) for every d; scalars 1
    std::uint8_t flags = 0;
    std::uint8_t func_count = 0;         // valid entries of func_ids
    std::uint8_t reserved[15] = {};
};
static_assert(sizeof(args_dump_record) == 128);

// The most payload bytes one chunk carries (data stays cache-line aligned
// after the header). Chunks of a batch are cut at this size, the last one
// short; the payload arena is counted in chunks of this size.
inline constexpr std::uint32_t args_payload_chunk_bytes = 4096 - 64;

// A chunk's header; its `size` bytes of data follow it (data()).
struct args_payload_chunk {
    std::uint64_t batch = 0;        // number of the batch's first chunk
    std::uint64_t batch_size = 0;   // bytes in the whole batch
    std::uint64_t offset = 0;       // of data()[0] within the batch
    std::uint32_t size = 0;         // bytes of data
    std::uint32_t reserved[9] = {};

    // A packed record of the transport (transport/packed_records.hpp).
    static constexpr std::uint32_t packed_slot_bytes = 4096;
    std::uint32_t packed_payload_bytes() const noexcept { return size; }
    std::byte* data() noexcept { return reinterpret_cast<std::byte*>(this) + sizeof(*this); }
    const std::byte* data() const noexcept { return reinterpret_cast<const std::byte*>(this) + sizeof(*this); }
};
static_assert(sizeof(args_payload_chunk) == 64);
static_assert(sizeof(args_payload_chunk) + args_payload_chunk_bytes == args_payload_chunk::packed_slot_bytes);

}  // namespace dfx
