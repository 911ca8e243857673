// The marks API (spec A1.3): identity, never name or value; the mask layout;
// ambiguity; errors; scalar dtypes and raw values.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string_view>

#include "dfx/collect/task_args.hpp"

namespace {

dfx::tensor_view view_of(std::uint64_t addr) {
    dfx::tensor_view v;
    v.addr = addr;
    v.dtype = static_cast<std::uint8_t>(dfx::dtype::float32);
    v.ndims = 1;
    v.shape[0] = 4;
    v.strides[0] = 1;
    return v;
}

}  // namespace

TEST_CASE("dump(a, b) marks by identity: bit i for tensor i, bit tensor_count + j for scalar j") {
    dfx::tensor_view a = view_of(0x1000), b = view_of(0x2000), c = view_of(0x3000);
    float alpha = 0.5f;
    std::int32_t n = -3;
    dfx::task_args<> args;
    args.add_input(a);
    args.add_input(b);
    args.add_output(c);
    args.add_scalar(alpha);
    args.add_scalar(n);
    CHECK(args.dump(b, alpha));
    CHECK(args.dump_mask() == ((1u << 1) | (1u << 3)));
    CHECK(args.ambiguous_mask() == 0);
    CHECK(args.error() == nullptr);
    CHECK(args.dump(n, c));
    CHECK(args.dump_mask() == ((1u << 1) | (1u << 2) | (1u << 3) | (1u << 4)));
}

TEST_CASE("equal values or equal views are different arguments: only the variable that was added matches") {
    dfx::tensor_view a = view_of(0x1000);
    const dfx::tensor_view a_copy = a;  // same buffer, same view, different object
    std::int32_t n = 7, same_value = 7;
    dfx::task_args<> args;
    args.add_input(a);
    args.add_scalar(n);
    CHECK_FALSE(args.dump(a_copy));
    CHECK(std::string_view(args.error()) == "dump: tensor is not part of this task's arguments");
    dfx::task_args<> args2;
    args2.add_scalar(n);
    CHECK_FALSE(args2.dump(same_value));
    CHECK(std::string_view(args2.error()) == "dump: scalar is not part of this task's arguments");
    CHECK(args2.dump_mask() == 0);
}

TEST_CASE("a failed mark does not stop the others, and the first error is kept") {
    dfx::tensor_view a = view_of(0x1000), stranger = view_of(0x9000);
    float alpha = 1.0f, beta = 2.0f;
    dfx::task_args<> args;
    args.add_input(a);
    args.add_scalar(alpha);
    CHECK_FALSE(args.dump(stranger, alpha, beta));
    CHECK(args.dump_mask() == (1u << 1));
    CHECK(std::string_view(args.error()) == "dump: tensor is not part of this task's arguments");
}

TEST_CASE("the same variable added twice: the first slot is marked and flagged ambiguous") {
    dfx::tensor_view a = view_of(0x1000), b = view_of(0x2000);
    std::int32_t n = 1;
    dfx::task_args<> args;
    args.add_input(b);
    args.add_input(a);
    args.add_inout(a);
    args.add_scalar(n);
    args.add_scalar(n);
    CHECK(args.dump(a, n));
    CHECK(args.dump_mask() == ((1u << 1) | (1u << 3)));
    CHECK(args.ambiguous_mask() == ((1u << 1) | (1u << 3)));
}

TEST_CASE("dump() marks every argument added so far; with none added it is an error") {
    dfx::tensor_view a = view_of(0x1000), b = view_of(0x2000);
    dfx::task_args<> empty;
    CHECK_FALSE(empty.dump());
    CHECK(std::string_view(empty.error()) == "dump: no arguments added to this task");

    dfx::task_args<> args;
    args.add_input(a);
    args.add_output(b);
    args.add_scalar(3);  // a temporary: passed to the kernel, never matchable by dump(x)...
    CHECK(args.dump());  // ...but dump() covers it
    CHECK(args.dump_mask() == 0b111);
}

TEST_CASE("the mask layout follows the final tensor count, whatever the order of add and dump") {
    dfx::tensor_view a = view_of(0x1000), b = view_of(0x2000);
    float alpha = 0.5f;
    dfx::task_args<> args;
    args.add_scalar(alpha);
    args.add_input(a);
    CHECK(args.dump(alpha));
    CHECK(args.dump_mask() == (1u << 1));
    args.add_input(b);  // one more tensor: scalar 0 is now bit 2
    CHECK(args.dump_mask() == (1u << 2));
}

TEST_CASE("running out of slots is an error, not a crash") {
    dfx::tensor_view a = view_of(0x1000);
    float x = 1.0f;
    dfx::task_args<2, 1> args;
    CHECK(args.add_input(a));
    CHECK(args.add_input(a));
    CHECK_FALSE(args.add_input(a));
    CHECK(std::string_view(args.error()) == "add: too many tensor arguments for this task_args");
    CHECK(args.tensor_count() == 2);
    CHECK(args.add_scalar(x));
    CHECK_FALSE(args.add_scalar(x));
    CHECK(args.scalar_count() == 1);
}

TEST_CASE("scalar dtypes (dtype_of) and raw values, zero-extended") {
    using dfx::dtype;
    const auto code = [](dtype d) { return static_cast<std::uint8_t>(d); };
    CHECK(dfx::scalar_dtype_of<float>() == code(dtype::float32));
    CHECK(dfx::scalar_dtype_of<std::int32_t>() == code(dtype::int32));
    CHECK(dfx::scalar_dtype_of<std::uint32_t>() == code(dtype::uint32));
    CHECK(dfx::scalar_dtype_of<std::int64_t>() == code(dtype::int64));
    CHECK(dfx::scalar_dtype_of<std::uint64_t>() == code(dtype::uint64));
    CHECK(dfx::scalar_dtype_of<std::int16_t>() == code(dtype::int16));
    CHECK(dfx::scalar_dtype_of<std::uint16_t>() == code(dtype::uint16));
    CHECK(dfx::scalar_dtype_of<std::int8_t>() == code(dtype::int8));
    CHECK(dfx::scalar_dtype_of<std::uint8_t>() == code(dtype::uint8));
    CHECK(dfx::scalar_dtype_of<bool>() == code(dtype::boolean));
    enum class mode : std::uint16_t { a = 1 };
    CHECK(dfx::scalar_dtype_of<mode>() == code(dtype::uint16));

    std::int8_t minus_one = -1;
    float half = 0.5f;
    bool yes = true;
    dfx::task_args<> args;
    args.add_scalar(minus_one);
    args.add_scalar(half);
    args.add_scalar(yes);
    CHECK(args.scalar_value(0) == 0xFF);  // zero-extended, as the reference stores it
    std::uint32_t half_bits;
    std::memcpy(&half_bits, &half, 4);
    CHECK(args.scalar_value(1) == half_bits);
    CHECK(args.scalar_value(2) == 1);
    CHECK(args.scalar_dtype(0) == code(dtype::int8));
}

TEST_CASE("the list keeps copies: what the task was given, even if the variable changes afterwards") {
    dfx::tensor_view a = view_of(0x1000);
    std::int32_t n = 5;
    dfx::task_args<> args;
    args.add_input(a);
    args.add_scalar(n);
    a.addr = 0x7000;  // the variable is rebound for the next task
    n = 6;
    CHECK(args.tensor(0).addr == 0x1000);
    CHECK(args.scalar_value(0) == 5);
    CHECK(args.dump(a, n));  // still the same variables: identity is the address
    CHECK(args.dump_mask() == 0b11);
}

TEST_CASE("stage masks: inputs and inouts are captured before dispatch, outputs and inouts after completion") {
    dfx::tensor_view in = view_of(0x1000), out = view_of(0x2000), both = view_of(0x3000), in2 = view_of(0x4000);
    float alpha = 1.0f;
    dfx::task_args<> args;
    CHECK(args.stage_tensors(dfx::dump_stage::before_dispatch) == 0);
    CHECK(args.stage_tensors(dfx::dump_stage::after_completion) == 0);
    args.add_input(in);
    args.add_output(out);
    args.add_scalar(alpha);  // scalars are not tensors: no bit
    args.add_inout(both);
    args.add_input(in2);
    CHECK(args.stage_tensors(dfx::dump_stage::before_dispatch) == 0b1101u);
    CHECK(args.stage_tensors(dfx::dump_stage::after_completion) == 0b0110u);
    // A full task_args: the last slot's bit is bit 31, no overflow.
    dfx::task_args<32, 0> full;
    for (int i = 0; i < 32; ++i) CHECK(full.add_output(out));
    CHECK(full.stage_tensors(dfx::dump_stage::before_dispatch) == 0);
    CHECK(full.stage_tensors(dfx::dump_stage::after_completion) == 0xFFFFFFFFull);
}
