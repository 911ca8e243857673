// The host side of the args dump's wire format: one call record
// (record/args_call_record.hpp) back into the args_dump_records it stands
// for, one per argument, as the host keeps and writes them.
//
//   std::vector<dfx::args_dump_record> out;
//   const dfx::args_call_decoding d = dfx::decode_args_call(call, out);   // appends
//   if (!d.ok()) ...d.error names what was wrong; nothing of this call was appended...
//   dfx::decode_args_call(call, [](const dfx::args_dump_record& r) {...});  // or one at a time
//   dfx::decode_args_call(call, [](const dfx::args_dump_record&) {}).ok();  // or only checked
//
// What the entry leaves out is rebuilt: the task's kernel ids compacted (the
// active ones in slot order), each tensor's offset in its batch (the running
// sum of the sizes before it), and the defaults of a default-constructed
// record (zero shape past ndims, a scalar's ndims 0 and contiguous 1). The
// record is checked, not trusted: an entry that runs past the record, a
// role, stage or bit the format does not have, more dimensions than
// max_tensor_dims, a scalar with a shape, a call without arguments, or
// offsets that overflow make the whole call an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "dfx/record/args_call_record.hpp"
#include "dfx/record/args_dump_records.hpp"
#include "dfx/transport/packed_records.hpp"

namespace dfx {

struct args_call_decoding {
    std::uint32_t args = 0;        // arguments decoded
    const char* error = nullptr;   // what was wrong, or nullptr
    bool ok() const noexcept { return error == nullptr; }
};

// Hands each argument of `call` (its header and call.size entry bytes after
// it: the transport's packed_cursor has checked they are there) to
// emit(const args_dump_record&) in capture order, stopping at the first
// error; with an emit that does nothing it checks a record.
template <class Emit>
args_call_decoding decode_args_call(const args_call_record& call, Emit&& emit) {
    const std::byte* at = packed_payload(&call);
    const std::byte* const end = at + call.size;
    std::uint32_t args = 0;
    const auto fail = [&args](const char* what) { return args_call_decoding{args, what}; };

    std::int32_t funcs[3] = {-1, -1, -1};
    std::uint8_t func_count = 0;
    for (std::int32_t id : call.kernel_ids)
        if (id >= 0) funcs[func_count++] = id;

    if (at == end) return fail("a call record without arguments");
    std::uint64_t offset = 0;  // of the next tensor's bytes in the batch
    while (at != end) {
        if (end - at < 16) return fail("an argument entry runs past its call record");
        std::uint64_t head = 0;
        std::uint64_t value = 0;
        std::memcpy(&head, at, 8);
        std::memcpy(&value, at + 8, 8);
        at += 16;
        const auto arg_index = static_cast<std::uint8_t>(head);
        const auto bits = static_cast<std::uint8_t>(head >> 8);
        const auto dtype = static_cast<std::uint8_t>(head >> 16);
        const auto ndims = static_cast<std::uint8_t>(head >> 24);
        const auto stage = static_cast<std::uint8_t>(head >> 32);
        if ((head >> 40) != 0 || (bits & ~args_entry_known_bits) != 0) return fail("an argument entry has unknown bits");
        if (stage > static_cast<std::uint8_t>(dump_stage::after_completion)) return fail("an argument entry has an unknown stage");
        if (ndims > max_tensor_dims) return fail("an argument entry has more dimensions than max_tensor_dims");

        args_dump_record r{};
        r.task_id = call.task_id;
        r.arg_index = arg_index;
        r.func_ids[0] = funcs[0];
        r.func_ids[1] = funcs[1];
        r.func_ids[2] = funcs[2];
        r.func_count = func_count;
        r.stage = static_cast<dump_stage>(stage);
        r.dtype = dtype;
        r.flags = (bits & args_entry_ambiguous) ? dump_flag_ambiguous : 0;
        if (bits & args_entry_scalar) {
            if (ndims != 0 || (bits & ~(args_entry_scalar | args_entry_ambiguous)) != 0)
                return fail("a scalar entry has tensor fields");
            r.kind = dump_arg_kind::scalar;
            r.role = dump_role::input;
            r.scalar_value = value;
            r.is_contiguous = 1;
        } else {
            const std::uint8_t role = bits & args_entry_role_mask;
            if (role > static_cast<std::uint8_t>(dump_role::inout)) return fail("a tensor entry has an unknown role");
            if (bits & args_entry_has_start_offset) {
                if (end - at < 8) return fail("an argument entry runs past its call record");
                std::memcpy(&r.start_offset, at, 8);
                at += 8;
                if (r.start_offset == 0) return fail("a tensor entry carries a zero start offset");
            }
            if (static_cast<std::size_t>(end - at) < 8u * ndims) return fail("an argument entry runs past its call record");
            std::memcpy(r.shape, at, 4u * ndims);
            std::memcpy(r.strides, at + 4u * ndims, 4u * ndims);
            at += 8u * ndims;
            if (value > UINT64_MAX - offset) return fail("the tensors' sizes overflow their batch");
            r.kind = dump_arg_kind::tensor;
            r.role = static_cast<dump_role>(role);
            r.ndims = ndims;
            r.payload_batch = call.payload_batch;
            r.payload_offset = offset;
            r.payload_size = value;
            r.truncated = (bits & args_entry_truncated) ? 1 : 0;
            r.is_contiguous = (bits & args_entry_contiguous) ? 1 : 0;
            offset += value;
        }
        emit(static_cast<const args_dump_record&>(r));
        ++args;
    }
    return {args, nullptr};
}

// Appends the arguments of `call` to `out`; on an error appends nothing.
inline args_call_decoding decode_args_call(const args_call_record& call, std::vector<args_dump_record>& out) {
    const std::size_t first = out.size();
    args_call_decoding d = decode_args_call(call, [&out](const args_dump_record& r) { out.push_back(r); });
    if (!d.ok()) {
        out.resize(first);
        d.args = 0;
    }
    return d;
}

}  // namespace dfx
