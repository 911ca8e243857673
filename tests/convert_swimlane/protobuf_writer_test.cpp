// protobuf_writer: the wire format byte for byte, against encodings worked
// out by hand from the protobuf spec (varint groups of 7 bits, low first;
// key = field << 3 | wire type; fixed64 little-endian).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "dfx/convert/common/protobuf_writer.hpp"

using dfx::convert::protobuf_writer;

namespace {
std::string bytes(std::initializer_list<int> b) {
    std::string s;
    for (int c : b) s.push_back(static_cast<char>(c));
    return s;
}
}  // namespace

TEST_CASE("protobuf_writer: varints, fixed64, strings") {
    std::string out;
    protobuf_writer w(out);
    w.varint(1, 150);  // the spec's example: 08 96 01
    w.varint(8, 0);
    w.int64(4, -1);  // ten bytes, as protobuf's int64
    w.fixed64(47, 0x0102030405060708ull);
    w.string(2, "hi");
    CHECK(out == bytes({0x08, 0x96, 0x01, 0x40, 0x00, 0x20, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
                        0xF9, 0x02, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x12, 0x02, 'h', 'i'}));
    CHECK(protobuf_writer::varint_size(127) == 1);
    CHECK(protobuf_writer::varint_size(128) == 2);
    CHECK(protobuf_writer::varint_size(~0ull) == 10);
}

TEST_CASE("protobuf_writer: nested messages get their lengths back-patched") {
    std::string out;
    protobuf_writer w(out);
    const auto outer = w.begin(1);
    const auto inner = w.begin(11);
    w.varint(9, 1);
    w.end(inner);
    w.end(outer);
    CHECK(out == bytes({0x0A, 0x04, 0x5A, 0x02, 0x48, 0x01}));

    // 200 bytes of body: the one reserved length byte widens to two.
    std::string big;
    protobuf_writer b(big);
    const auto m = b.begin(1);
    b.string(2, std::string(197, 'x'));  // 1 key + 2 length + 197 = 200
    b.end(m);
    REQUIRE(big.size() == 1 + 2 + 200);
    CHECK(big.substr(0, 6) == bytes({0x0A, 0xC8, 0x01, 0x12, 0xC5, 0x01}));
    CHECK(big.back() == 'x');
}

TEST_CASE("protobuf_writer: a byte_buffer gets the same bytes as a string, across its growth") {
    // The byte_buffer path writes each field in place at the buffer's tail:
    // the same fields through both, past several growths of the buffer
    // (64 KiB first) and with fields of every size landing on its edge.
    using dfx::convert::basic_protobuf_writer;
    using dfx::convert::byte_buffer;
    std::string expected;
    byte_buffer buffer;
    protobuf_writer s(expected);
    basic_protobuf_writer<byte_buffer> b(buffer);
    const auto same_fields = [](auto& w, std::uint64_t i) {
        const auto m = w.begin(static_cast<std::uint32_t>(1 + i % 5));
        w.varint(static_cast<std::uint32_t>(1 + i % 3000), i * 0x9E3779B97F4A7C15ull >> (i % 64));
        w.int64(3, -static_cast<std::int64_t>(i));
        w.fixed64(47, i);
        w.double_value(5, 0.5 * static_cast<double>(i));
        w.string(2, std::string(i % 300, static_cast<char>('a' + i % 26)));
        w.end(m);
    };
    for (std::uint64_t i = 0; i < 3000; ++i) {
        same_fields(s, i);
        same_fields(b, i);
    }
    REQUIRE(expected.size() > 4 * (std::size_t{1} << 16));
    REQUIRE(buffer.size() == expected.size());
    CHECK(std::string(buffer.data(), buffer.size()) == expected);
}
