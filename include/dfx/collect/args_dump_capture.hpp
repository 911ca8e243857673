// Args dump on the AICPU scheduler: the arguments of a task captured at the
// stages their role calls for (../shared/spec/args-dump-and-pmu.md A1.2):
//
//   view.before_dispatch(task_id, kernel_ids, args);   inputs, inouts and scalars
//   view.after_completion(task_id, kernel_ids, args);  outputs and inouts
//
// `args` is the task's dfx::task_args (collect/task_args.hpp); kernel_ids are
// {aic, aiv0, aiv1}, -1 for an inactive slot. Level 1 captures the marked
// arguments of tasks that marked any, level 2 every argument of every task
// (marks ignored). Scalars are reported with role input, arg_index =
// tensor_count + scalar index. An SPMD task dispatched as several blocks
// captures once per before_dispatch call, as the reference does.
//
// A call writes one packed record (record/args_call_record.hpp): a 32-byte
// header and an entry per argument with only what the host cannot derive
// (24 bytes for a one-dimensional tensor, 16 for a scalar), claimed at its
// size and written in place. A tensor's bytes are gathered row-major
// (collect/strided_gather.hpp) into payload chunks on their own channel
// (record/args_dump_records.hpp), each claimed at the size it carries and
// packed after the last one, so a small capture touches the lines it fills,
// not a fresh 4 KiB slot. A call whose bytes fit one chunk (up to 4,032 in
// all) claims it once with its header final and copies each tensor straight
// to its place.
// A tensor larger than the payload arena (the chunk channel's capacity) is
// truncated to half the arena and flagged, as the reference does, so one
// huge tensor cannot stall the scheduler for the whole transfer. Under
// backpressure both claims follow the transport's overflow policy; whatever
// is dropped is counted there (a dropped call record with the number of
// arguments it carried) and shows in args_dump.json.
#pragma once

#include <array>
#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>

#include "dfx/collect/strided_gather.hpp"
#include "dfx/record/args_call_record.hpp"
#include "dfx/record/args_dump_records.hpp"
#include "dfx/transport/packed_records.hpp"

namespace dfx {

// A scheduler sink that can carry a dump: call records and chunks claimed
// in place at their size (the bytes are gathered straight into the
// transport's buffer, so a 256-byte tensor costs a 256-byte copy), the
// arguments of a dropped call record counted, plus the chunk channel's push
// count (numbers the batches) and capacity (the arena). dfx::producers
// provides all of it (collect/producers.hpp).
template <class Sink>
concept args_dump_sink = requires(Sink& sink, const Sink& csink, std::uint32_t payload, std::uint64_t items) {
                             { sink.template claim<args_call_record>(payload) } noexcept -> std::same_as<args_call_record*>;
                             { sink.template commit<args_call_record>(payload) } noexcept;
                             { sink.template count_dropped_items<args_call_record>(items) } noexcept;
                             { sink.template claim<args_payload_chunk>(payload) } noexcept -> std::same_as<args_payload_chunk*>;
                             { sink.template commit<args_payload_chunk>(payload) } noexcept;
                             { csink.template produced<args_payload_chunk>() } noexcept -> std::convertible_to<std::uint64_t>;
                             { csink.template capacity<args_payload_chunk>() } noexcept -> std::convertible_to<std::uint64_t>;
                         };

namespace detail {

template <int Level, class Sink>
class args_dump_capture;

template <class Sink>
class args_dump_capture<0, Sink> {
public:
    constexpr explicit args_dump_capture(Sink*) noexcept {}
    template <class Args>
    void before_dispatch(std::uint64_t, const std::array<std::int32_t, 3>&, const Args&) noexcept {}
    template <class Args>
    void after_completion(std::uint64_t, const std::array<std::int32_t, 3>&, const Args&) noexcept {}
};

template <int Level, class Sink>
class args_dump_capture {
    static_assert(Level == 1 || Level == 2, "dfx::args_dump_capture: dump level in [0, 2]");

public:
    constexpr explicit args_dump_capture(Sink* sink) noexcept : sink_(sink) {}

    template <class Args>
    void before_dispatch(std::uint64_t task_id, const std::array<std::int32_t, 3>& kernel_ids, const Args& args) noexcept {
        capture<dump_stage::before_dispatch>(task_id, kernel_ids, args);
    }
    template <class Args>
    void after_completion(std::uint64_t task_id, const std::array<std::int32_t, 3>& kernel_ids, const Args& args) noexcept {
        capture<dump_stage::after_completion>(task_id, kernel_ids, args);
    }

private:
    // The check lives here, not on the class, so a scheduler loop that
    // never dumps (a view instantiated for its timing stamps only) does not
    // need a sink that can carry dump records. The stage is a template
    // argument so each call compiles only what its stage does (no scalars
    // after completion).
    template <dump_stage Stage, class Args>
    void capture(std::uint64_t task_id, const std::array<std::int32_t, 3>& kernel_ids, const Args& args) noexcept {
        static_assert(args_dump_sink<Sink>,
                      "dfx::scheduler_view: dumping needs a sink that claims args_call_record and "
                      "args_payload_chunk in place at their size (claim<>(n) / commit<>(n)), counts the "
                      "arguments of a dropped call (count_dropped_items<>(n)) "
                      "and reports produced<>() / capacity<>() "
                      "(use dfx::scheduler_sink)");
        // Which tensors this call copies: the marked ones whose role this
        // stage captures (one AND: task_args keeps the stage masks), and
        // whether it writes scalars (before dispatch, any marked). A call
        // with neither (level 1: a task that marked nothing, or after
        // completion a task whose marks are all inputs) stops here, before
        // touching the transport.
        const std::uint64_t tensor_marks = Level == 1 ? args.tensor_dump_mask() : ~0ULL;
        const std::uint64_t chosen = tensor_marks & args.stage_tensors(Stage);
        bool scalars = false;
        if constexpr (Stage == dump_stage::before_dispatch)
            scalars = Level == 1 ? args.scalar_dump_mask() != 0 : args.scalar_count() != 0;
        if (chosen == 0 && !scalars) return;
        write<Stage>(task_id, kernel_ids, args, chosen, scalars);
    }

    // The record and bytes of a call that has something to write; kept
    // apart from the test above so a call with nothing to write (most
    // level-1 after_completion calls) costs that test inline, not a call
    // that saves and restores registers.
    template <dump_stage Stage, class Args>
    void write(std::uint64_t task_id, const std::array<std::int32_t, 3>& kernel_ids, const Args& args,
               std::uint64_t chosen, bool scalars) noexcept {
        static_assert(sizeof(args_call_record) + args_call_max_payload(Args::max_tensors, Args::max_scalars) <=
                      args_call_record::packed_slot_bytes);
        const std::uint64_t ambiguous = Level == 1 ? args.ambiguous_mask() : 0;
        const int tensors = args.tensor_count();
        std::uint64_t scalar_marks = 0;  // the scalars written, by index
        if constexpr (Stage == dump_stage::before_dispatch) {
            if (scalars) {
                // Only scalars whose place in the 64-bit dump mask exists (tensors + j < 64).
                const int end = args.scalar_count() < 64 - tensors ? args.scalar_count() : 64 - tensors;
                const std::uint64_t present = end >= 64 ? ~0ULL : (std::uint64_t{1} << end) - 1;
                scalar_marks = (Level == 1 ? args.scalar_dump_mask() : ~0ULL) & present;
            }
        }

        // Pass 1, over the chosen tensors only: each one's bytes (the whole
        // tensor, or half the arena when it does not fit), where a
        // contiguous one starts and whether it is, kept for pass 2; their
        // sum, so the batch's size goes with its first chunk; and the
        // entries' size, so the call record is claimed at its size.
        const std::uint64_t arena = sink_->template capacity<args_payload_chunk>() * args_payload_chunk_bytes;
        constexpr int slots = Args::max_tensors > 0 ? Args::max_tensors : 1;
        std::uint64_t sizes[slots];            // written for chosen slots only
        const std::byte* sources[slots];       // contiguous chosen slots only
        std::uint64_t truncated = 0;
        std::uint64_t contiguous = 0;
        std::uint64_t batch_size = 0;
        // (Entries counted in the loops, not with std::popcount: without
        // -mpopcnt that is a libgcc call.)
        std::uint32_t entries = 0;
        std::uint32_t entry_bytes = 0;
        for (std::uint64_t left = scalar_marks; left != 0; left &= left - 1) {
            ++entries;
            entry_bytes += args_scalar_entry_bytes;
        }
        for (std::uint64_t left = chosen; left != 0; left &= left - 1) {
            const int i = std::countr_zero(left);
            const tensor_view& v = args.tensor(i);
            const view_layout layout = layout_of(v);
            const std::uint64_t elem = dtype_size(v.dtype);
            const std::uint64_t whole = layout.numel * elem;
            const std::uint64_t payload = whole > arena ? arena / 2 : whole;
            truncated |= std::uint64_t{whole > arena} << i;
            contiguous |= std::uint64_t{layout.contiguous} << i;
            sizes[i] = payload;
            sources[i] = reinterpret_cast<const std::byte*>(static_cast<std::uintptr_t>(v.addr)) + v.start_offset * elem;
            batch_size += payload;
            ++entries;
            entry_bytes += args_tensor_entry_bytes(dims_of(v), v.start_offset != 0);
        }

        const std::uint64_t batch = sink_->template produced<args_payload_chunk>();
        args_call_record* const call = sink_->template claim<args_call_record>(entry_bytes);
        if (call) {
            call->task_id = task_id;
            call->payload_batch = batch;
            call->kernel_ids[0] = kernel_ids[0];
            call->kernel_ids[1] = kernel_ids[1];
            call->kernel_ids[2] = kernel_ids[2];
            call->size = entry_bytes;
        } else {
            // Dropped (counted as one record): count the arguments it carried.
            sink_->template count_dropped_items<args_call_record>(entries);
        }
        std::byte* at = call ? packed_payload(call) : nullptr;

        // A batch that fits one chunk (every capture of tensors up to
        // 4,032 bytes in all) is claimed once, at its size, with its header
        // final, and each tensor is copied straight to its place in it. A
        // larger one is cut into chunks as its bytes come (append).
        const bool one_chunk = batch_size <= args_payload_chunk_bytes;
        std::byte* out = nullptr;
        if (one_chunk && batch_size != 0) {
            if (args_payload_chunk* c = claim_chunk(batch, batch_size, 0, static_cast<std::uint32_t>(batch_size)))
                out = c->data();
        } else if (!one_chunk) {
            batch_ = batch;
            batch_size_ = batch_size;
            chunk_offset_ = 0;
        }

        std::uint64_t offset = 0;
        for (std::uint64_t left = chosen; left != 0; left &= left - 1) {
            const int i = std::countr_zero(left);
            const tensor_view& v = args.tensor(i);
            const std::uint64_t payload = sizes[i];
            const bool dense = (contiguous >> i) & 1u;
            if (at) {
                const std::uint32_t ndims = dims_of(v);
                const std::uint64_t start = v.start_offset;
                const std::uint64_t bits = static_cast<std::uint64_t>(args.role(i)) |
                                           ((truncated >> i) & 1u) << 3 | std::uint64_t{dense} << 4 |
                                           ((ambiguous >> i) & 1u) << 5 | std::uint64_t{start != 0} << 6;
                store8(at, head<Stage>(i, bits, v.dtype, ndims));
                store8(at + 8, payload);
                at += 16;
                if (start != 0) {
                    store8(at, start);
                    at += 8;
                }
                for (std::uint32_t d = 0; d < ndims; ++d) {
                    store4(at + 4 * d, v.shape[d]);
                    store4(at + 4 * (ndims + d), v.strides[d]);
                }
                at += 8 * ndims;
            }
            if (one_chunk) {
                if (out) {
                    std::byte* to = out + offset;
                    if (dense)  // what gather_view does for it, without finding out again
                        std::memcpy(to, sources[i], payload);
                    else
                        gather_view(v, payload, [&to](const std::byte* source, std::uint64_t bytes) {
                            std::memcpy(to, source, bytes);
                            to += bytes;
                        });
                }
            } else if (dense) {
                append(sources[i], payload);
            } else {
                gather_view(v, payload, [this](const std::byte* source, std::uint64_t bytes) { append(source, bytes); });
            }
            offset += payload;
        }
        if (one_chunk) {
            if (out) sink_->template commit<args_payload_chunk>(static_cast<std::uint32_t>(batch_size));
        } else if (open_) {
            send_chunk();
        }

        if constexpr (Stage == dump_stage::before_dispatch) {
            if (at) {
                for (std::uint64_t left = scalar_marks; left != 0; left &= left - 1) {
                    const int j = std::countr_zero(left);
                    const int bit = tensors + j;  // the scalar's place in the dump mask
                    const std::uint64_t bits = args_entry_scalar | ((ambiguous >> bit) & 1u) << 5;
                    store8(at, head<Stage>(bit, bits, args.scalar_dtype(j), 0));
                    store8(at + 8, args.scalar_value(j));
                    at += args_scalar_entry_bytes;
                }
            }
        }
        if (call) sink_->template commit<args_call_record>(entry_bytes);
    }

    // Dimensions an entry carries: the view's, at most max_tensor_dims.
    static std::uint32_t dims_of(const tensor_view& v) noexcept {
        return v.ndims < max_tensor_dims ? v.ndims : max_tensor_dims;
    }
    // An entry's first 8 bytes (little-endian): arg_index, bits, dtype,
    // ndims, stage, three zero bytes.
    template <dump_stage Stage>
    static std::uint64_t head(int arg_index, std::uint64_t bits, std::uint8_t dtype, std::uint32_t ndims) noexcept {
        return static_cast<std::uint64_t>(arg_index) | bits << 8 | std::uint64_t{dtype} << 16 |
               std::uint64_t{ndims} << 24 | std::uint64_t{static_cast<std::uint8_t>(Stage)} << 32;
    }
    static void store8(std::byte* at, std::uint64_t v) noexcept { std::memcpy(at, &v, 8); }
    static void store4(std::byte* at, std::uint32_t v) noexcept { std::memcpy(at, &v, 4); }

    // A chunk claimed at `size` payload bytes with its header final, or
    // nullptr when the overflow policy dropped it (counted).
    args_payload_chunk* claim_chunk(std::uint64_t batch, std::uint64_t batch_size, std::uint64_t offset,
                                    std::uint32_t size) noexcept {
        const auto header = [&] {
            return args_payload_chunk{.batch = batch, .batch_size = batch_size, .offset = offset, .size = size, .reserved = {}};
        };
        if constexpr (requires { { sink_->template claim<args_payload_chunk>(size, header) } -> std::same_as<args_payload_chunk*>; }) {
            return sink_->template claim<args_payload_chunk>(size, header);  // constructed from its final values
        } else {
            args_payload_chunk* c = sink_->template claim<args_payload_chunk>(size);
            if (c) *c = header();
            return c;
        }
    }

    // Bytes into the open chunk, claimed in the channel when its first byte
    // comes, at the size it will carry: the rest of the batch, up to
    // args_payload_chunk_bytes (so chunks are cut where fixed 4 KiB chunks
    // were, and batch numbers stay what they were). A chunk the overflow
    // policy dropped (claim gave nullptr, counted) still takes its share of
    // the batch, so offsets stay right.
    void append(const std::byte* source, std::uint64_t bytes) noexcept {
        while (bytes > 0) {
            if (!open_) open_chunk();
            const std::uint64_t room = capacity_ - size_;
            const std::uint32_t take = static_cast<std::uint32_t>(bytes < room ? bytes : room);
            if (slot_) std::memcpy(slot_->data() + size_, source, take);
            size_ += take;
            source += take;
            bytes -= take;
            if (size_ == capacity_) send_chunk();
        }
    }
    void open_chunk() noexcept {
        open_ = true;
        const std::uint64_t left = batch_size_ - chunk_offset_;
        capacity_ = left < args_payload_chunk_bytes ? static_cast<std::uint32_t>(left) : args_payload_chunk_bytes;
        slot_ = claim_chunk(batch_, batch_size_, chunk_offset_, capacity_);
    }
    void send_chunk() noexcept {
        if (slot_) {
            slot_->size = size_;  // what it was claimed for: the gather hands out exactly a payload's bytes
            sink_->template commit<args_payload_chunk>(size_);
        }
        open_ = false;
        slot_ = nullptr;
        chunk_offset_ += size_;
        size_ = 0;
    }
    Sink* sink_;
    // The batch being written and the chunk open in it (in the channel's slot).
    std::uint64_t batch_ = 0;
    std::uint64_t batch_size_ = 0;
    std::uint64_t chunk_offset_ = 0;
    args_payload_chunk* slot_ = nullptr;
    std::uint32_t size_ = 0;
    std::uint32_t capacity_ = 0;  // payload bytes the open chunk was claimed for
    bool open_ = false;
};
}  // namespace detail
}  // namespace dfx
