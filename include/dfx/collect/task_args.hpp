// A task's argument list, with the marks that choose what a level-1 args
// dump captures (the reference's Arg<MaxT, MaxS> and its dump(...)).
//
//   dfx::task_args<> args;
//   args.add_input(a);  args.add_input(b);  args.add_output(c);
//   args.add_scalar(alpha);  args.add_scalar(n);
//   args.dump(b, alpha);        // level 1 captures b and alpha only
//   args.dump();                // ...or every argument added so far
//
// Marks match by identity, never by name or value: a tensor by the address
// of the tensor_view object that was added, a scalar by the address of the
// variable that was added. Two scalars holding the same value are different
// arguments; the same variable added twice is ambiguous, and the first slot
// is marked and flagged. Marks are per argument list: reusing a variable in
// the next task (with a new value or a new view) needs a new mark there.
//
// The list stores copies (the view and the scalar's value when added: what
// the kernel is given); the addresses serve only to match marks. A tensor
// must be an lvalue (its buffer is read at capture time), and so must what
// dump() is given: a temporary has no identity to match.
//
// Errors (too many arguments, marking something that is not in the list)
// do not throw: the call returns false and error() says what happened.
//
// Mask layout (the reference's ArgsDumpArgMask): bit i is tensor slot i, bit
// tensor_count + j is scalar j; a second mask of the same layout flags the
// ambiguous marks.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "dfx/record/args_dump_records.hpp"
#include "dfx/record/tensor_view.hpp"

namespace dfx {

// The dtype recorded for a scalar of type T (the reference's dtype_of<T>):
// integers by width and signedness, bool, float. There is no 64-bit float
// in the reference's DataType, and it would tag a double FLOAT32 and print
// the wrong value, so a double is refused at compile time.
template <class T>
constexpr std::uint8_t scalar_dtype_of() noexcept {
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_enum_v<U>) {
        return scalar_dtype_of<std::underlying_type_t<U>>();
    } else {
        static_assert(std::is_arithmetic_v<U>, "dfx::task_args: a scalar argument must be an arithmetic or enum type");
        static_assert(!std::is_floating_point_v<U> || sizeof(U) == 4,
                      "dfx::task_args: only 32-bit float scalars can be dumped (DataType has no FLOAT64); "
                      "convert to float, or pass the bits as std::uint64_t");
        if constexpr (std::is_same_v<U, bool>) return static_cast<std::uint8_t>(dtype::boolean);
        else if constexpr (std::is_floating_point_v<U>) return static_cast<std::uint8_t>(dtype::float32);
        else if constexpr (std::is_signed_v<U>)
            return static_cast<std::uint8_t>(sizeof(U) == 1 ? dtype::int8 : sizeof(U) == 2 ? dtype::int16
                                             : sizeof(U) == 4 ? dtype::int32 : dtype::int64);
        else
            return static_cast<std::uint8_t>(sizeof(U) == 1 ? dtype::uint8 : sizeof(U) == 2 ? dtype::uint16
                                             : sizeof(U) == 4 ? dtype::uint32 : dtype::uint64);
    }
}

template <int MaxTensors = 32, int MaxScalars = 16>
class task_args {
    static_assert(MaxTensors >= 0 && MaxScalars >= 0 && MaxTensors + MaxScalars <= 64,
                  "dfx::task_args: the dump mask has 64 bits: MaxTensors + MaxScalars <= 64");

public:
    static constexpr int max_tensors = MaxTensors;
    static constexpr int max_scalars = MaxScalars;

    bool add_input(const tensor_view& t) noexcept { return add_tensor(t, dump_role::input); }
    bool add_output(const tensor_view& t) noexcept { return add_tensor(t, dump_role::output); }
    bool add_inout(const tensor_view& t) noexcept { return add_tensor(t, dump_role::inout); }
    // The buffer is read when the task is captured, so the view must outlive the call.
    bool add_input(const tensor_view&&) = delete;
    bool add_output(const tensor_view&&) = delete;
    bool add_inout(const tensor_view&&) = delete;

    // A variable: dump(variable) can mark it later.
    template <class T>
    bool add_scalar(const T& value) noexcept {
        return add_scalar_slot(value, &value);
    }
    // A temporary: passed to the kernel, marked only by dump() (it has no lasting address).
    template <class T>
    bool add_scalar(const T&& value) noexcept {
        return add_scalar_slot(value, nullptr);
    }

    // The runtime binds a freshly allocated OUTPUT buffer at submit; the
    // slot keeps its identity and marks.
    void set_tensor(int slot, const tensor_view& view) noexcept {
        if (slot >= 0 && slot < tensor_count_) tensors_[slot] = view;
    }

    // Marks every argument added so far.
    bool dump() noexcept {
        if (tensor_count_ == 0 && scalar_count_ == 0) return fail("dump: no arguments added to this task");
        tensor_marks_ = low_bits(tensor_count_);
        scalar_marks_ = low_bits(scalar_count_);
        return true;
    }

    // Marks the given variables, each matched by address. Every match is
    // marked even if another argument fails to match.
    template <class... Args>
        requires(sizeof...(Args) > 0)
    bool dump(Args&&... items) noexcept {
        static_assert((std::is_lvalue_reference_v<Args> && ...),
                      "dfx::task_args::dump: pass the variables that were added (lvalues); a temporary has no "
                      "identity to match");
        bool ok = true;
        ((ok = mark(items) && ok), ...);
        return ok;
    }

    int tensor_count() const noexcept { return tensor_count_; }
    int scalar_count() const noexcept { return scalar_count_; }
    const tensor_view& tensor(int slot) const noexcept { return tensors_[slot]; }
    dump_role role(int slot) const noexcept { return roles_[slot]; }
    std::uint64_t scalar_value(int index) const noexcept { return scalars_[index]; }
    std::uint8_t scalar_dtype(int index) const noexcept { return scalar_dtypes_[index]; }

    std::uint64_t dump_mask() const noexcept { return compose(tensor_marks_, scalar_marks_); }
    // The tensor slots a capture at `stage` copies when marked: inputs and
    // inouts before dispatch, outputs and inouts after completion (kept as
    // tensors are added, so a capture selects with one AND, not a loop).
    std::uint64_t stage_tensors(dump_stage stage) const noexcept {
        return stage_tensors_[stage == dump_stage::before_dispatch ? 0 : 1];
    }
    std::uint64_t ambiguous_mask() const noexcept { return compose(tensor_ambiguous_, scalar_ambiguous_); }
    // The two halves of dump_mask() apart (bit i: tensor slot i, bit j:
    // scalar j), so a capture tests each without shifting them together.
    std::uint64_t tensor_dump_mask() const noexcept { return tensor_marks_; }
    std::uint64_t scalar_dump_mask() const noexcept { return scalar_marks_; }

    // The first error, or nullptr.
    const char* error() const noexcept { return error_; }

private:
    static constexpr std::uint64_t low_bits(int n) noexcept { return n >= 64 ? ~0ULL : (1ULL << n) - 1; }

    std::uint64_t compose(std::uint64_t tensors, std::uint64_t scalars) const noexcept {
        return tensors | (tensor_count_ < 64 ? scalars << tensor_count_ : 0);
    }

    bool fail(const char* message) noexcept {
        if (!error_) error_ = message;
        return false;
    }

    bool add_tensor(const tensor_view& t, dump_role role) noexcept {
        if (tensor_count_ >= MaxTensors) return fail("add: too many tensor arguments for this task_args");
        tensors_[tensor_count_] = t;
        tensor_ids_[tensor_count_] = &t;
        roles_[tensor_count_] = role;
        const std::uint64_t bit = std::uint64_t{1} << tensor_count_;  // tensor_count_ < MaxTensors <= 64
        if (role != dump_role::output) stage_tensors_[0] |= bit;
        if (role != dump_role::input) stage_tensors_[1] |= bit;
        ++tensor_count_;
        return true;
    }

    template <class T>
    bool add_scalar_slot(const T& value, const void* identity) noexcept {
        constexpr std::uint8_t code = scalar_dtype_of<T>();
        if (scalar_count_ >= MaxScalars) return fail("add: too many scalar arguments for this task_args");
        std::uint64_t raw = 0;  // narrow values zero-extended, as the reference stores them
        std::memcpy(&raw, &value, sizeof(T));
        scalars_[scalar_count_] = raw;
        scalar_ids_[scalar_count_] = identity;
        scalar_dtypes_[scalar_count_] = code;
        ++scalar_count_;
        return true;
    }

    template <class T>
    bool mark(const T& item) noexcept {
        if constexpr (std::is_base_of_v<tensor_view, T>) {
            const tensor_view& t = item;
            return mark_first(tensor_ids_, tensor_count_, &t, tensor_marks_, tensor_ambiguous_,
                              "dump: tensor is not part of this task's arguments");
        } else {
            (void)scalar_dtype_of<T>();  // the same compile-time checks as add_scalar
            return mark_first(scalar_ids_, scalar_count_, &item, scalar_marks_, scalar_ambiguous_,
                              "dump: scalar is not part of this task's arguments");
        }
    }

    bool mark_first(const void* const* ids, int count, const void* identity, std::uint64_t& marks,
                    std::uint64_t& ambiguous, const char* missing) noexcept {
        int first = -1, matches = 0;
        for (int i = 0; i < count; ++i)
            if (ids[i] == identity) {
                if (first < 0) first = i;
                ++matches;
            }
        if (first < 0) return fail(missing);
        marks |= 1ULL << first;
        if (matches > 1) ambiguous |= 1ULL << first;
        return true;
    }

    tensor_view tensors_[MaxTensors > 0 ? MaxTensors : 1] = {};
    const void* tensor_ids_[MaxTensors > 0 ? MaxTensors : 1] = {};
    dump_role roles_[MaxTensors > 0 ? MaxTensors : 1] = {};
    std::uint64_t scalars_[MaxScalars > 0 ? MaxScalars : 1] = {};
    const void* scalar_ids_[MaxScalars > 0 ? MaxScalars : 1] = {};
    std::uint8_t scalar_dtypes_[MaxScalars > 0 ? MaxScalars : 1] = {};
    std::uint64_t stage_tensors_[2] = {};  // [before dispatch, after completion]
    std::uint64_t tensor_marks_ = 0;
    std::uint64_t scalar_marks_ = 0;
    std::uint64_t tensor_ambiguous_ = 0;
    std::uint64_t scalar_ambiguous_ = 0;
    int tensor_count_ = 0;
    int scalar_count_ = 0;
    const char* error_ = nullptr;
};

}  // namespace dfx
