// A tensor argument as the runtime sees it: which buffer, which version, and
// the strided view into it. The fields the reference's ChipTensor carries and
// the dependency replay and the args dump need.
#pragma once

#include <cstdint>

namespace dfx {

inline constexpr int max_tensor_dims = 5;
inline constexpr std::uint64_t no_task = UINT64_MAX;  // owner of an external tensor

// Element types, with the reference's codes (DataType).
enum class dtype : std::uint8_t {
    float32 = 0,
    float16 = 1,
    int32 = 2,
    int16 = 3,
    int8 = 4,
    uint8 = 5,
    bfloat16 = 6,
    int64 = 7,
    uint64 = 8,
    uint16 = 9,
    uint32 = 10,
    boolean = 11,
    fp8e4m3fn = 12,
    fp8e8m0 = 13,
    fp4e2m1 = 14,
};

constexpr const char* dtype_name(std::uint8_t code) noexcept {
    constexpr const char* names[] = {"FLOAT32", "FLOAT16", "INT32", "INT16", "INT8", "UINT8", "BFLOAT16", "INT64",
                                     "UINT64", "UINT16", "UINT32", "BOOL", "FP8E4M3FN", "FP8E8M0", "FP4E2M1"};
    return code < 15 ? names[code] : "UNKNOWN";
}

namespace detail {
// At namespace scope, not a local constexpr array: a local one is built on
// the stack at every call (15 stores on the args dump's hot path).
inline constexpr std::uint8_t dtype_sizes[] = {4, 2, 4, 2, 1, 1, 2, 8, 8, 2, 4, 1, 1, 1, 1};
}  // namespace detail

// Bytes per element; 0 for an unknown code. (FP4 is stored a byte per element, as the reference does.)
constexpr std::uint32_t dtype_size(std::uint8_t code) noexcept {
    return code < 15 ? detail::dtype_sizes[code] : 0;
}

// How a task uses an argument (the reference's TensorArgType codes).
enum class arg_type : std::uint8_t {
    input = 0,
    output = 1,           // allocated by the runtime at submit: no view yet
    inout = 2,
    output_existing = 3,
    no_dep = 4,           // written as "UNKNOWN" in deps.json
};

struct tensor_view {
    std::uint64_t addr = 0;           // buffer base, bytes
    std::uint64_t size = 0;           // whole buffer, bytes
    std::uint64_t owner_task_id = no_task;  // the task that created the buffer
    std::uint64_t start_offset = 0;   // elements
    std::uint64_t extent = 0;         // elements spanned; used when !contiguous
    std::int32_t version = 0;
    std::uint8_t ndims = 0;
    std::uint8_t dtype = 0;
    bool manual_dep = false;
    bool contiguous = true;
    std::uint32_t shape[max_tensor_dims] = {};
    std::uint32_t strides[max_tensor_dims] = {};  // elements, > 0
};
static_assert(sizeof(tensor_view) == 88);

}  // namespace dfx
