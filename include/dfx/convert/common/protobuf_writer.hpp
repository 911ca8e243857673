// protobuf_writer: the protocol-buffers wire format (varints, fixed64,
// length-delimited fields) appended to a byte string, with no schema, no
// generated code and no library. Nested messages get their length
// back-patched: begin() reserves one length byte, end() writes the real
// length and, only for messages of 128 bytes or more, moves the body up to
// make room for the longer varint. Callers name fields by the numbers of
// the .proto they follow (perfetto_packets.hpp for Perfetto traces).
//
//   std::string bytes;
//   protobuf_writer w(bytes);
//   const auto m = w.begin(1);        // field 1: a nested message
//   w.varint(8, 1234);                //   field 8: uint64
//   w.string(2, "name");              //   field 2: string
//   w.fixed64(47, 99);                //   field 47: fixed64
//   w.end(m);
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace dfx::convert {

class protobuf_writer {
public:
    // The wire types of protobuf's encoding (the low 3 bits of a key).
    enum wire_type : std::uint32_t { wire_varint = 0, wire_fixed64 = 1, wire_length = 2 };

    // Where an open nested message's body starts (returned by begin()).
    struct open_message {
        std::size_t length_at;
    };

    explicit protobuf_writer(std::string& out) : out_(out) {}

    // Bytes needed for `v` as a varint (1..10).
    static constexpr std::size_t varint_size(std::uint64_t v) {
        std::size_t n = 1;
        while (v >= 0x80) {
            v >>= 7;
            ++n;
        }
        return n;
    }

    void raw_varint(std::uint64_t v) {
        char buf[10];
        std::size_t n = 0;
        while (v >= 0x80) {
            buf[n++] = static_cast<char>((v & 0x7F) | 0x80);
            v >>= 7;
        }
        buf[n++] = static_cast<char>(v);
        out_.append(buf, n);
    }
    void key(std::uint32_t field, wire_type type) { raw_varint((static_cast<std::uint64_t>(field) << 3) | type); }

    // uint32/uint64/bool/enum, and int32/int64 (negative values take 10
    // bytes, as protobuf's int64 does: the fields used here are never negative
    // in practice).
    void varint(std::uint32_t field, std::uint64_t v) {
        key(field, wire_varint);
        raw_varint(v);
    }
    void int64(std::uint32_t field, std::int64_t v) { varint(field, static_cast<std::uint64_t>(v)); }
    void fixed64(std::uint32_t field, std::uint64_t v) {
        key(field, wire_fixed64);
        char buf[8];
        for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
        out_.append(buf, 8);
    }
    void double_value(std::uint32_t field, double v) {
        std::uint64_t bits = 0;
        static_assert(sizeof bits == sizeof v);
        std::memcpy(&bits, &v, sizeof bits);
        fixed64(field, bits);
    }
    void string(std::uint32_t field, std::string_view s) {
        key(field, wire_length);
        raw_varint(s.size());
        out_.append(s);
    }
    // Already-encoded fields, appended as they are.
    void raw(std::string_view encoded) { out_.append(encoded); }
    // An already-encoded message (or any bytes) as a length-delimited field.
    void bytes(std::uint32_t field, std::string_view encoded) { string(field, encoded); }

    // A nested message: begin(field), its fields, end(). Nesting is allowed;
    // end them innermost first.
    [[nodiscard]] open_message begin(std::uint32_t field) {
        key(field, wire_length);
        out_.push_back('\0');  // one length byte, widened by end() if needed
        return {out_.size() - 1};
    }
    void end(open_message m) {
        const std::size_t body = out_.size() - m.length_at - 1;
        const std::size_t n = varint_size(body);
        if (n > 1) out_.insert(m.length_at + 1, n - 1, '\0');
        std::uint64_t v = body;
        for (std::size_t i = 0; i < n; ++i) {
            out_[m.length_at + i] = static_cast<char>((v & 0x7F) | (i + 1 < n ? 0x80 : 0));
            v >>= 7;
        }
    }

    [[nodiscard]] std::size_t size() const noexcept { return out_.size(); }

private:
    std::string& out_;
};

}  // namespace dfx::convert
