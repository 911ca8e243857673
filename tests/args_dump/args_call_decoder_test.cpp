// The args dump's wire format, decoded: call records built byte by byte from
// the layout documented in record/args_call_record.hpp (not by the capture),
// and what the host makes of them; then every way a record can be malformed.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "dfx/output/args_call_decoder.hpp"

namespace {

// A call record and its entries, laid out as the capture lays them out.
struct call_bytes {
    alignas(64) std::array<std::byte, 1024> bytes{};
    std::uint32_t used = 0;  // entry bytes

    call_bytes(std::uint64_t task, std::uint64_t batch, std::array<std::int32_t, 3> kernels) {
        put8(0, task);
        put8(8, batch);
        for (int i = 0; i < 3; ++i) put4(16 + 4 * i, static_cast<std::uint32_t>(kernels[i]));
    }
    void put8(std::uint32_t at, std::uint64_t v) { std::memcpy(bytes.data() + at, &v, 8); }
    void put4(std::uint32_t at, std::uint32_t v) { std::memcpy(bytes.data() + at, &v, 4); }
    void word(std::uint64_t v) {
        put8(32 + used, v);
        used += 8;
    }
    static std::uint64_t head(int arg_index, int bits, int dtype, int ndims, int stage) {
        return std::uint64_t(arg_index) | std::uint64_t(bits) << 8 | std::uint64_t(dtype) << 16 |
               std::uint64_t(ndims) << 24 | std::uint64_t(stage) << 32;
    }
    // shape and strides as u32 pairs, packed two to a word
    void dims(std::initializer_list<std::uint32_t> shape, std::initializer_list<std::uint32_t> strides) {
        std::vector<std::uint32_t> all(shape);
        all.insert(all.end(), strides);
        for (std::size_t i = 0; i < all.size(); ++i) put4(32 + used + 4 * static_cast<std::uint32_t>(i), all[i]);
        used += 4 * static_cast<std::uint32_t>(all.size());
    }
    const dfx::args_call_record& record() {
        put4(28, used);
        return *reinterpret_cast<const dfx::args_call_record*>(bytes.data());
    }
};

}  // namespace

TEST_CASE("a call with a strided 2-D inout at an offset, a 1-D input and a scalar decodes to three records") {
    call_bytes c(0x77, 12, {-1, 5, 9});
    // slot 2: inout (2), truncated, ambiguous, at an offset, not contiguous; FLOAT16, 2 dims
    c.word(call_bytes::head(2, 2 | 1 << 3 | 1 << 5 | 1 << 6, 1, 2, 0));
    c.word(96);  // bytes captured
    c.word(40);  // start offset
    c.dims({4, 6}, {16, 1});
    // slot 3: input, contiguous; UINT8, 1 dim
    c.word(call_bytes::head(3, 0 | 1 << 4, 5, 1, 0));
    c.word(300);
    c.dims({300}, {1});
    // scalar 0 of 5 tensors: arg_index 5, INT32
    c.word(call_bytes::head(5, 1 << 2, 2, 0, 0));
    c.word(0xfffffffe);

    std::vector<dfx::args_dump_record> out(1);  // appends after what is there
    const dfx::args_call_decoding d = dfx::decode_args_call(c.record(), out);
    REQUIRE(d.ok());
    CHECK(d.args == 3);
    REQUIRE(out.size() == 4);

    const dfx::args_dump_record& t = out[1];
    CHECK(t.task_id == 0x77);
    CHECK(t.payload_batch == 12);
    CHECK(t.payload_offset == 0);
    CHECK(t.payload_size == 96);
    CHECK(t.scalar_value == 0);
    CHECK(t.start_offset == 40);
    CHECK(t.arg_index == 2);
    CHECK(t.shape[0] == 4);
    CHECK(t.shape[1] == 6);
    CHECK(t.shape[2] == 0);
    CHECK(t.strides[0] == 16);
    CHECK(t.strides[1] == 1);
    CHECK(t.strides[2] == 0);
    CHECK(t.func_count == 2);  // the active kernels, compacted in slot order
    CHECK(t.func_ids[0] == 5);
    CHECK(t.func_ids[1] == 9);
    CHECK(t.func_ids[2] == -1);
    CHECK(t.role == dfx::dump_role::inout);
    CHECK(t.stage == dfx::dump_stage::before_dispatch);
    CHECK(t.kind == dfx::dump_arg_kind::tensor);
    CHECK(t.dtype == 1);
    CHECK(t.ndims == 2);
    CHECK(t.truncated == 1);
    CHECK(t.is_contiguous == 0);
    CHECK(t.flags == dfx::dump_flag_ambiguous);

    const dfx::args_dump_record& u = out[2];
    CHECK(u.payload_batch == 12);
    CHECK(u.payload_offset == 96);  // after the first tensor's bytes
    CHECK(u.payload_size == 300);
    CHECK(u.start_offset == 0);
    CHECK(u.role == dfx::dump_role::input);
    CHECK(u.is_contiguous == 1);
    CHECK(u.truncated == 0);
    CHECK(u.flags == 0);
    CHECK(u.ndims == 1);

    const dfx::args_dump_record& s = out[3];
    CHECK(s.kind == dfx::dump_arg_kind::scalar);
    CHECK(s.role == dfx::dump_role::input);
    CHECK(s.arg_index == 5);
    CHECK(s.scalar_value == 0xfffffffe);
    CHECK(s.dtype == 2);
    CHECK(s.ndims == 0);
    CHECK(s.is_contiguous == 1);
    CHECK(s.payload_batch == 0);  // a scalar has no bytes
    CHECK(s.payload_size == 0);
    CHECK(s.func_count == 2);
    // The rest is a default record's: the same bytes as one built field by field.
    dfx::args_dump_record expected{};
    expected.task_id = 0x77;
    expected.scalar_value = 0xfffffffe;
    expected.arg_index = 5;
    expected.func_ids[0] = 5;
    expected.func_ids[1] = 9;
    expected.kind = dfx::dump_arg_kind::scalar;
    expected.dtype = 2;
    expected.func_count = 2;
    CHECK(std::memcmp(&s, &expected, sizeof expected) == 0);
}

TEST_CASE("an after-completion output keeps its stage; no active kernel gives func_count 0") {
    call_bytes c(3, 4, {-1, -1, -1});
    c.word(call_bytes::head(0, 1 | 1 << 4, 0, 1, 1));
    c.word(16);
    c.dims({4}, {1});
    std::vector<dfx::args_dump_record> out;
    REQUIRE(dfx::decode_args_call(c.record(), out).ok());
    REQUIRE(out.size() == 1);
    CHECK(out[0].stage == dfx::dump_stage::after_completion);
    CHECK(out[0].role == dfx::dump_role::output);
    CHECK(out[0].func_count == 0);
    CHECK(out[0].func_ids[0] == -1);
}

TEST_CASE("a malformed call record is an error naming what is wrong, and appends nothing") {
    const auto decode = [](call_bytes& c, std::uint32_t size_override = UINT32_MAX) {
        std::vector<dfx::args_dump_record> out(2);
        const dfx::args_call_record& r = c.record();
        if (size_override != UINT32_MAX) c.put4(28, size_override);
        const dfx::args_call_decoding d = dfx::decode_args_call(r, out);
        CHECK(out.size() == 2);
        CHECK(d.args == 0);
        return d.ok() ? std::string() : std::string(d.error);
    };
    const auto valid_first = [](call_bytes& c) {  // one good tensor, so an error after it must undo it
        c.word(call_bytes::head(0, 1 << 4, 5, 1, 0));
        c.word(8);
        c.dims({8}, {1});
    };
    SUBCASE("no arguments") {
        call_bytes c(1, 0, {0, -1, -1});
        CHECK(decode(c) == "a call record without arguments");
    }
    SUBCASE("an entry cut after its head") {
        call_bytes c(1, 0, {0, -1, -1});
        valid_first(c);
        c.word(call_bytes::head(1, 1 << 2, 2, 0, 0));  // a scalar's head without its value
        CHECK(decode(c) == "an argument entry runs past its call record");
    }
    SUBCASE("shape and strides past the record") {
        call_bytes c(1, 0, {0, -1, -1});
        valid_first(c);
        c.word(call_bytes::head(1, 1 << 4, 5, 3, 0));
        c.word(8);
        c.dims({2, 2, 2}, {4, 2, 1});
        CHECK(decode(c, c.used - 8) == "an argument entry runs past its call record");
    }
    SUBCASE("a start offset past the record, or a zero one") {
        call_bytes c(1, 0, {0, -1, -1});
        c.word(call_bytes::head(1, 1 << 6, 5, 0, 0));
        c.word(0);
        CHECK(decode(c) == "an argument entry runs past its call record");
        call_bytes z(1, 0, {0, -1, -1});
        z.word(call_bytes::head(1, 1 << 6, 5, 0, 0));
        z.word(0);
        z.word(0);
        CHECK(decode(z) == "a tensor entry carries a zero start offset");
    }
    SUBCASE("unknown bits, stage, role or dimensions") {
        for (const std::uint64_t head : {call_bytes::head(0, 1 << 7, 5, 1, 0), call_bytes::head(0, 0, 5, 1, 0) | std::uint64_t{1} << 40}) {
            call_bytes c(1, 0, {0, -1, -1});
            c.word(head);
            c.word(8);
            c.dims({8}, {1});
            CHECK(decode(c) == "an argument entry has unknown bits");
        }
        call_bytes s(1, 0, {0, -1, -1});
        s.word(call_bytes::head(0, 0, 5, 1, 2));
        s.word(8);
        s.dims({8}, {1});
        CHECK(decode(s) == "an argument entry has an unknown stage");
        call_bytes r(1, 0, {0, -1, -1});
        r.word(call_bytes::head(0, 3, 5, 1, 0));
        r.word(8);
        r.dims({8}, {1});
        CHECK(decode(r) == "a tensor entry has an unknown role");
        call_bytes d(1, 0, {0, -1, -1});
        d.word(call_bytes::head(0, 0, 5, 6, 0));
        d.word(8);
        d.dims({1, 1, 1, 1, 1, 8}, {8, 8, 8, 8, 8, 1});
        CHECK(decode(d) == "an argument entry has more dimensions than max_tensor_dims");
    }
    SUBCASE("a scalar with tensor fields") {
        for (const int bits : {1 << 2 | 1 << 4, 1 << 2 | 1 << 3, 1 << 2 | 1, 1 << 2 | 1 << 6}) {
            call_bytes c(1, 0, {0, -1, -1});
            c.word(call_bytes::head(0, bits, 2, 0, 0));
            c.word(7);
            CHECK(decode(c) == "a scalar entry has tensor fields");
        }
        call_bytes c(1, 0, {0, -1, -1});
        c.word(call_bytes::head(0, 1 << 2, 2, 1, 0));
        c.word(7);
        c.dims({1}, {1});
        CHECK(decode(c) == "a scalar entry has tensor fields");
    }
    SUBCASE("sizes that overflow the batch") {
        call_bytes c(1, 0, {0, -1, -1});
        c.word(call_bytes::head(0, 1 << 4, 5, 0, 0));
        c.word(UINT64_MAX);
        c.word(call_bytes::head(1, 1 << 4, 5, 0, 0));
        c.word(1);
        CHECK(decode(c) == "the tensors' sizes overflow their batch");
    }
}
