// Whether a consumer's view of a buffer depends on a slice a producer wrote
// into it: the reference tensormap's overlap test (spec dep-gen.md §1.8,
// "Overlap test"), reproduced exactly because it decides which tensormap
// edges deps.json has and what their "overlap" says.
//
// COVERED means the *consumer* slice contains the *producer* slice in every
// dimension (spec §7.1: the reference docs say the opposite; the code wins).
// The precise per-dimension test only runs when both sides are row-major
// views with the same layout; anything else that might overlap is OTHER, a
// conservative "depends, not provably covered".
#pragma once

#include <cstdint>

#include "dfx/record/tensor_view.hpp"

namespace dfx {

enum class tensor_overlap : std::uint8_t { no_overlap, covered, other };

// Elements a view spans from its start offset: prod(shape) for a contiguous
// view, the captured extent otherwise (a strided view's span is not its
// element count). Unsigned wrap-around on absurd shapes matches the reference.
constexpr std::uint64_t view_extent(const tensor_view& v) noexcept {
    if (!v.contiguous) return v.extent;
    std::uint64_t n = 1;
    for (int d = 0; d < v.ndims && d < max_tensor_dims; ++d) n *= v.shape[d];
    return n;
}

// A slice a producer wrote, as the tensormap remembers it.
struct produced_slice {
    std::uint64_t producer = no_task;
    std::uint64_t addr = 0;
    std::uint64_t start_offset = 0;  // elements
    std::uint64_t extent = 0;        // elements spanned
    std::int32_t version = 0;
    std::uint8_t dtype = 0;
    std::uint8_t ndims = 0;
    std::uint32_t shape[max_tensor_dims] = {};
    std::uint32_t strides[max_tensor_dims] = {};

    // What the reference's entry keeps of a producer's view. A contiguous view
    // at offset 0 gets row-major strides derived from its shape rather than
    // its captured ones (the runtime's insert does this to avoid reading the
    // strides); the two differ only on size-1 dimensions, but the difference
    // shows in producer_strides and in the identical-strides precondition.
    static constexpr produced_slice of(const tensor_view& v, std::uint64_t producer_task) noexcept {
        produced_slice s;
        s.producer = producer_task;
        s.addr = v.addr;
        s.start_offset = v.start_offset;
        s.extent = view_extent(v);
        s.version = v.version;
        s.dtype = v.dtype;
        s.ndims = v.ndims <= max_tensor_dims ? v.ndims : static_cast<std::uint8_t>(max_tensor_dims);
        for (int d = 0; d < s.ndims; ++d) s.shape[d] = v.shape[d];
        if (v.contiguous && v.start_offset == 0) {
            std::uint32_t stride = 1;  // u32 arithmetic, as the reference's
            for (int d = s.ndims - 1; d >= 0; --d) {
                s.strides[d] = stride;
                stride *= v.shape[d];
            }
        } else {
            for (int d = 0; d < s.ndims; ++d) s.strides[d] = v.strides[d];
        }
        return s;
    }
};

namespace detail {

// Half-open [begin, end) intervals.
constexpr bool intervals_intersect(std::uint64_t a_begin, std::uint64_t a_end, std::uint64_t b_begin,
                                   std::uint64_t b_end) noexcept {
    return a_end > b_begin && b_end > a_begin;
}

constexpr bool interval_contains(std::uint64_t outer_begin, std::uint64_t outer_end, std::uint64_t inner_begin,
                                 std::uint64_t inner_end) noexcept {
    return outer_begin <= inner_begin && inner_end <= outer_end;
}

}  // namespace detail

// The consumer (a task's argument) against one entry of the same buffer.
constexpr tensor_overlap classify_overlap(const tensor_view& consumer, const produced_slice& produced) noexcept {
    // A newer version of the buffer is a new value: it depends on the older
    // writer whatever the slices are.
    if (consumer.version > produced.version) return tensor_overlap::other;

    // Cheap reject on the flat element ranges.
    const std::uint64_t consumer_begin = consumer.start_offset;
    const std::uint64_t produced_begin = produced.start_offset;
    if (!detail::intervals_intersect(consumer_begin, consumer_begin + view_extent(consumer), produced_begin,
                                     produced_begin + produced.extent))
        return tensor_overlap::no_overlap;

    // The per-dimension test needs both sides to be the same row-major layout
    // over one reference shape; otherwise say OTHER.
    const int ndims = produced.ndims;
    if (consumer.dtype != produced.dtype || consumer.ndims != produced.ndims || ndims == 0 || ndims > max_tensor_dims)
        return tensor_overlap::other;
    for (int d = 0; d < ndims; ++d) {
        if (consumer.strides[d] != produced.strides[d]) return tensor_overlap::other;
        if (produced.strides[d] == 0) return tensor_overlap::other;  // never valid; avoids dividing by it
    }
    if (produced.strides[ndims - 1] != 1) return tensor_overlap::other;
    for (int d = 1; d < ndims; ++d)
        if (produced.strides[d - 1] % produced.strides[d] != 0) return tensor_overlap::other;

    // Reference shape: A[d] = strides[d-1] / strides[d], and A[0] from the
    // whole buffer (the consumer's size: both sides name the same buffer).
    const std::uint64_t elem = dtype_size(produced.dtype);
    if (elem == 0) return tensor_overlap::other;
    const std::uint64_t buffer_elems = consumer.size / elem;
    if (buffer_elems % produced.strides[0] != 0) return tensor_overlap::other;
    std::uint64_t reference_shape[max_tensor_dims] = {};
    reference_shape[0] = buffer_elems / produced.strides[0];
    for (int d = 1; d < ndims; ++d) reference_shape[d] = produced.strides[d - 1] / produced.strides[d];

    // Start offsets as per-dimension coordinates; both must decompose exactly
    // and both slices must fit the reference shape.
    std::uint64_t consumer_at[max_tensor_dims] = {};
    std::uint64_t produced_at[max_tensor_dims] = {};
    std::uint64_t consumer_rest = consumer.start_offset;
    std::uint64_t produced_rest = produced.start_offset;
    for (int d = 0; d < ndims; ++d) {
        consumer_at[d] = consumer_rest / produced.strides[d];
        produced_at[d] = produced_rest / produced.strides[d];
        consumer_rest %= produced.strides[d];
        produced_rest %= produced.strides[d];
    }
    if (consumer_rest != 0 || produced_rest != 0) return tensor_overlap::other;
    for (int d = 0; d < ndims; ++d) {
        if (consumer_at[d] + consumer.shape[d] > reference_shape[d]) return tensor_overlap::other;
        if (produced_at[d] + produced.shape[d] > reference_shape[d]) return tensor_overlap::other;
    }

    bool consumer_contains_producer = true;
    for (int d = 0; d < ndims; ++d) {
        const std::uint64_t c_end = consumer_at[d] + consumer.shape[d];
        const std::uint64_t p_end = produced_at[d] + produced.shape[d];
        if (!detail::intervals_intersect(consumer_at[d], c_end, produced_at[d], p_end)) return tensor_overlap::no_overlap;
        if (!detail::interval_contains(consumer_at[d], c_end, produced_at[d], p_end)) consumer_contains_producer = false;
    }
    return consumer_contains_producer ? tensor_overlap::covered : tensor_overlap::other;
}

}  // namespace dfx
