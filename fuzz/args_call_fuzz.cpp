// Fuzz target: the args dump's call records as a drain hands a buffer of them
// over (transport/packed_records.hpp's cursor, then
// output/args_call_decoder.hpp, as args_dump_host::keep does). The first byte
// is the record count the producer claims; the rest is the buffer. Every
// decoded record must be one the format allows, and a failed call must
// append nothing and name what was wrong.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dfx/output/args_call_decoder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1 || size > UINT32_MAX) return 0;
    const std::uint32_t count = data[0];
    const auto bytes = static_cast<std::uint32_t>(size - 1);
    // The buffer as the transport holds it: aligned, exactly `bytes` long
    // (what the cursor lets the decoder see is checked against this size).
    std::vector<std::uint64_t> storage((bytes + 7) / 8);
    if (bytes != 0) std::memcpy(storage.data(), data + 1, bytes);
    const dfx::packed_records<dfx::args_call_record> records{reinterpret_cast<const std::byte*>(storage.data()), count,
                                                             bytes};
    dfx::packed_cursor<dfx::args_call_record> at(records);
    std::vector<dfx::args_dump_record> out;
    for (; const dfx::args_call_record* call = at.peek(); at.advance()) {
        const std::size_t before = out.size();
        const dfx::args_call_decoding d = dfx::decode_args_call(*call, out);
        if (!d.ok()) {
            if (out.size() != before || d.args != 0 || d.error[0] == '\0') std::abort();
            break;
        }
        if (d.args == 0 || out.size() != before + d.args) std::abort();
        std::uint64_t offset = 0;
        for (std::size_t i = before; i < out.size(); ++i) {
            const dfx::args_dump_record& r = out[i];
            if (r.task_id != call->task_id || r.func_count > 3 || r.ndims > dfx::max_tensor_dims) std::abort();
            if (static_cast<int>(r.stage) > 1 || static_cast<int>(r.role) > 2 || r.truncated > 1 || r.is_contiguous > 1)
                std::abort();
            for (int d = r.ndims; d < dfx::max_tensor_dims; ++d)
                if (r.shape[d] != 0 || r.strides[d] != 0) std::abort();
            if (r.kind == dfx::dump_arg_kind::scalar) {
                if (r.ndims != 0 || r.payload_size != 0 || r.start_offset != 0 || r.is_contiguous != 1) std::abort();
            } else {
                // A tensor's bytes follow the ones before it in the call's batch.
                if (r.payload_batch != call->payload_batch || r.payload_offset != offset) std::abort();
                offset += r.payload_size;
            }
        }
    }
    return 0;
}
