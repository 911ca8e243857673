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
// A tensor's bytes are gathered row-major (collect/strided_gather.hpp) into
// payload chunks on their own channel (record/args_dump_records.hpp), each
// claimed at the size it carries and packed after the last one, so a small
// capture touches the lines it fills, not a fresh 4 KiB slot. A call whose
// bytes fit one chunk (up to 4,032 in all) claims it once with its header
// final and copies each tensor straight to its place; each metadata record
// is built in its slot: a copy of a constant holding its defaults (a few
// vector stores), then the fields that differ.
// A tensor larger than the payload arena (the chunk channel's capacity) is
// truncated to half the arena and flagged, as the reference does, so one
// huge tensor cannot stall the scheduler for the whole transfer. Under
// backpressure both pushes follow the transport's overflow policy; whatever
// is dropped is counted there and shows in args_dump.json.
#pragma once

#include <array>
#include <bit>
#include <concepts>
#include <cstdint>
#include <cstring>

#include "dfx/collect/sink.hpp"
#include "dfx/collect/strided_gather.hpp"
#include "dfx/record/args_dump_records.hpp"

namespace dfx {

// A scheduler sink that can carry a dump: argument records, chunks claimed
// in place at their size (the bytes are gathered straight into the
// transport's buffer, so a 256-byte tensor costs a 256-byte copy),
// plus the chunk channel's push count (numbers the batches) and capacity (the arena).
// dfx::producers provides both (collect/producers.hpp).
template <class Sink>
concept args_dump_sink = record_sink<Sink, args_dump_record> &&
                         requires(Sink& sink, const Sink& csink, std::uint32_t payload) {
                             { sink.template claim<args_payload_chunk>(payload) } noexcept -> std::same_as<args_payload_chunk*>;
                             { sink.template commit<args_payload_chunk>(payload) } noexcept;
                             { csink.template produced<args_payload_chunk>() } noexcept -> std::convertible_to<std::uint64_t>;
                             { csink.template capacity<args_payload_chunk>() } noexcept -> std::convertible_to<std::uint64_t>;
                         };

namespace detail {

// A record's defaults as a constant: copying it is a few vector stores
// (a record built field by field from an initialiser list is cleared with
// `rep stos` first by g++ on x86-64, which costs more than the copy).
inline constexpr args_dump_record blank_record{};

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
                      "dfx::scheduler_view: dumping needs a sink that accepts args_dump_record and "
                      "args_payload_chunk, claims chunks in place at their size (claim<>(n) / commit<>(n)) "
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

    // The records and bytes of a call that has something to write; kept
    // apart from the test above so a call with nothing to write (most
    // level-1 after_completion calls) costs that test inline, not a call
    // that saves and restores registers.
    template <dump_stage Stage, class Args>
    void write(std::uint64_t task_id, const std::array<std::int32_t, 3>& kernel_ids, const Args& args,
               std::uint64_t chosen, bool scalars) noexcept {
        const int tensors = args.tensor_count();
        const std::uint64_t ambiguous = Level == 1 ? args.ambiguous_mask() : 0;

        // Pass 1, over the chosen tensors only: each one's bytes (the whole
        // tensor, or half the arena when it does not fit), where a
        // contiguous one starts and whether it is, kept for pass 2, and their
        // sum, so the batch's size goes with its first chunk.
        const std::uint64_t arena = sink_->template capacity<args_payload_chunk>() * args_payload_chunk_bytes;
        constexpr int slots = Args::max_tensors > 0 ? Args::max_tensors : 1;
        std::uint64_t sizes[slots];            // written for chosen slots only
        const std::byte* sources[slots];       // contiguous chosen slots only
        std::uint64_t truncated = 0;
        std::uint64_t contiguous = 0;
        std::uint64_t batch_size = 0;
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
        }

        // The active kernels, compacted once per call, not per record.
        std::int32_t funcs[3] = {-1, -1, -1};
        std::uint8_t func_count = 0;
        for (std::int32_t id : kernel_ids)
            if (id >= 0) funcs[func_count++] = id;

        const std::uint64_t batch = sink_->template produced<args_payload_chunk>();
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

        // Every record is constructed in its slot from its final values
        // (emplace_record, collect/sink.hpp); the dimensions past ndims and
        // the reserved bytes are zero, as a default-initialised record's.
        std::uint64_t offset = 0;
        for (std::uint64_t left = chosen; left != 0; left &= left - 1) {
            const int i = std::countr_zero(left);
            const tensor_view& v = args.tensor(i);
            const std::uint64_t payload = sizes[i];
            const bool dense = (contiguous >> i) & 1u;
            const std::uint8_t ndims = static_cast<std::uint8_t>(v.ndims < max_tensor_dims ? v.ndims : max_tensor_dims);
            emplace_record<args_dump_record>(*sink_, [&] {
                args_dump_record r = blank_record;  // its defaults: a few vector stores of a constant
                r.task_id = task_id;
                r.payload_batch = batch;
                r.payload_offset = offset;
                r.payload_size = payload;
                r.start_offset = v.start_offset;
                r.arg_index = static_cast<std::uint32_t>(i);
                for (int d = 0; d < ndims; ++d) {
                    r.shape[d] = v.shape[d];
                    r.strides[d] = v.strides[d];
                }
                r.func_ids[0] = funcs[0];
                r.func_ids[1] = funcs[1];
                r.func_ids[2] = funcs[2];
                r.role = args.role(i);
                r.stage = Stage;
                r.dtype = v.dtype;
                r.ndims = ndims;
                r.truncated = static_cast<std::uint8_t>((truncated >> i) & 1u);
                r.is_contiguous = dense ? 1 : 0;
                r.flags = (ambiguous >> i) & 1u ? dump_flag_ambiguous : 0;
                r.func_count = func_count;
                return r;  // returned in place: the record is built in its slot (emplace_record)
            });
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
            if (!scalars) return;
            const std::uint64_t scalar_marks = Level == 1 ? args.scalar_dump_mask() : ~0ULL;
            for (int j = 0; j < args.scalar_count(); ++j) {
                const int bit = tensors + j;  // the scalar's place in the dump mask
                if (bit >= 64 || !((scalar_marks >> j) & 1u)) continue;
                emplace_record<args_dump_record>(*sink_, [&] {
                    args_dump_record r = blank_record;
                    r.task_id = task_id;
                    r.scalar_value = args.scalar_value(j);
                    r.arg_index = static_cast<std::uint32_t>(bit);
                    r.func_ids[0] = funcs[0];
                    r.func_ids[1] = funcs[1];
                    r.func_ids[2] = funcs[2];
                    r.role = dump_role::input;
                    r.stage = Stage;
                    r.kind = dump_arg_kind::scalar;
                    r.dtype = args.scalar_dtype(j);
                    r.flags = (ambiguous >> bit) & 1u ? dump_flag_ambiguous : 0;
                    r.func_count = func_count;
                    return r;
                });
            }
        }
    }

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
