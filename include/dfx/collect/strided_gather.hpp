// A tensor view's bytes in "logical_contiguous" order: its elements
// row-major over the view's shape (last dimension fastest), gathered from
// buffer + (start_offset + sum(idx[d] * strides[d])) * element size, as the
// reference's dump writes them. Handed out as the longest contiguous runs
// the layout allows, so a contiguous view is one copy and a row-strided one
// is one copy per row.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dfx/record/tensor_view.hpp"

namespace dfx {

// Elements in the view: the product of its shape (1 for a 0-d view).
constexpr std::uint64_t view_numel(const tensor_view& v) noexcept {
    const int ndims = v.ndims < max_tensor_dims ? v.ndims : max_tensor_dims;
    std::uint64_t n = 1;
    for (int d = 0; d < ndims; ++d) n *= v.shape[d];
    return n;
}

// The reference's is_contiguous: strides[d] == prod(shape[d+1..]) for every
// d. The start offset does not matter.
constexpr bool view_is_contiguous(const tensor_view& v) noexcept {
    const int ndims = v.ndims < max_tensor_dims ? v.ndims : max_tensor_dims;
    std::uint64_t inner = 1;
    for (int d = ndims - 1; d >= 0; --d) {
        if (v.strides[d] != inner) return false;
        inner *= v.shape[d];
    }
    return true;
}

// Both of the above in one walk of the dimensions (innermost first: a
// contiguous view's strides are the running product that ends as numel).
struct view_layout {
    std::uint64_t numel = 1;
    bool contiguous = true;
};
constexpr view_layout layout_of(const tensor_view& v) noexcept {
    const int ndims = v.ndims < max_tensor_dims ? v.ndims : max_tensor_dims;
    view_layout l;
    for (int d = ndims - 1; d >= 0; --d) {
        l.contiguous &= v.strides[d] == l.numel;
        l.numel *= v.shape[d];
    }
    return l;
}

// Calls emit(const std::byte* source, std::uint64_t bytes) for the first
// `max_bytes` bytes of the view's logical stream, in order.
template <class Emit>
void gather_view(const tensor_view& v, std::uint64_t max_bytes, Emit&& emit) noexcept {
    const std::uint64_t elem = dtype_size(v.dtype);
    const std::uint64_t numel = view_numel(v);
    if (elem == 0 || numel == 0 || max_bytes == 0) return;
    const auto* base = reinterpret_cast<const std::byte*>(static_cast<std::uintptr_t>(v.addr));
    std::uint64_t budget = max_bytes < numel * elem ? max_bytes : numel * elem;

    if (view_is_contiguous(v)) {
        emit(base + v.start_offset * elem, budget);
        return;
    }

    // A run is one row when the last dimension is dense, else one element;
    // the odometer walks the dimensions outside the run.
    const int ndims = v.ndims < max_tensor_dims ? v.ndims : max_tensor_dims;
    const bool dense_rows = v.strides[ndims - 1] == 1;
    const int outer = dense_rows ? ndims - 1 : ndims;
    const std::uint64_t run_bytes = (dense_rows ? v.shape[ndims - 1] : 1) * elem;
    std::uint32_t idx[max_tensor_dims] = {};
    for (;;) {
        std::uint64_t offset = v.start_offset;
        for (int d = 0; d < outer; ++d) offset += std::uint64_t{idx[d]} * v.strides[d];
        const std::uint64_t n = run_bytes < budget ? run_bytes : budget;
        emit(base + offset * elem, n);
        budget -= n;
        if (budget == 0) return;
        int d = outer - 1;
        while (d >= 0 && ++idx[d] == v.shape[d]) idx[d--] = 0;
        if (d < 0) return;
    }
}

}  // namespace dfx
