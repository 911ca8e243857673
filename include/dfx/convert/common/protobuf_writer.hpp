// protobuf_writer: the protocol-buffers wire format (varints, fixed64,
// length-delimited fields) appended to a byte string (or, for a hot
// encoder, basic_protobuf_writer<byte_buffer>), with no schema, no
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

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

// A field's bytes are put together by a lambda (put() below); inlined
// too, or its key is computed at run time, call by call. (A GNU attribute:
// the standard's [[...]] form does not apply to a lambda's call.)
#define DFX_PB_INLINE __attribute__((always_inline))

namespace dfx::convert {

// Appends to a std::string, or to a byte_buffer (its fields are then
// written in place: no copy and no call per field).
template <class Out>
class basic_protobuf_writer {
public:
    // The wire types of protobuf's encoding (the low 3 bits of a key).
    enum wire_type : std::uint32_t { wire_varint = 0, wire_fixed64 = 1, wire_length = 2 };

    // Where an open nested message's body starts (returned by begin()).
    struct open_message {
        std::size_t length_at;
    };

    explicit basic_protobuf_writer(Out& out) : out_(out) {}

    // Bytes needed for `v` as a varint (1..10).
    static constexpr std::size_t varint_size(std::uint64_t v) {
        std::size_t n = 1;
        while (v >= 0x80) {
            v >>= 7;
            ++n;
        }
        return n;
    }

    // Writes `v` as a varint at `p` (room for 10 bytes); returns its size.
    // (Inlined with the field writers below: a key is then a constant.)
    [[gnu::always_inline]] static std::size_t put_varint(char* p, std::uint64_t v) {
        std::size_t n = 0;
        while (v >= 0x80) {
            p[n++] = static_cast<char>((v & 0x7F) | 0x80);
            v >>= 7;
        }
        p[n++] = static_cast<char>(v);
        return n;
    }
    [[gnu::always_inline]] static std::size_t put_key(char* p, std::uint32_t field, wire_type type) {
        return put_varint(p, (static_cast<std::uint64_t>(field) << 3) | type);
    }

    // (Each field is written by one put(), inlined where it is called: the
    // writer writes hundreds of millions of small fields, nearly all with a
    // field number known at compile time, whose key then folds to a
    // constant store.)
    void raw_varint(std::uint64_t v) {
        put<10>([&](char* p) DFX_PB_INLINE { return put_varint(p, v); });
    }
    void key(std::uint32_t field, wire_type type) { raw_varint((static_cast<std::uint64_t>(field) << 3) | type); }

    // uint32/uint64/bool/enum, and int32/int64 (negative values take 10
    // bytes, as protobuf's int64 does: the fields used here are never negative
    // in practice).
    [[gnu::always_inline]] void varint(std::uint32_t field, std::uint64_t v) {
        put<20>([&](char* p) DFX_PB_INLINE {
            const std::size_t k = put_key(p, field, wire_varint);
            return k + put_varint(p + k, v);
        });
    }
    [[gnu::always_inline]] void int64(std::uint32_t field, std::int64_t v) {
        varint(field, static_cast<std::uint64_t>(v));
    }
    [[gnu::always_inline]] void fixed64(std::uint32_t field, std::uint64_t v) {
        put<18>([&](char* p) DFX_PB_INLINE {
            const std::size_t k = put_key(p, field, wire_fixed64);
            if constexpr (std::endian::native == std::endian::little) {
                std::memcpy(p + k, &v, 8);  // (the wire's byte order)
            } else {
                for (std::size_t i = 0; i < 8; ++i) p[k + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
            }
            return k + 8;
        });
    }
    void double_value(std::uint32_t field, double v) {
        std::uint64_t bits = 0;
        static_assert(sizeof bits == sizeof v);
        std::memcpy(&bits, &v, sizeof bits);
        fixed64(field, bits);
    }
    void string(std::uint32_t field, std::string_view s) {
        put<20>([&](char* p) DFX_PB_INLINE {
            const std::size_t k = put_key(p, field, wire_length);
            return k + put_varint(p + k, s.size());
        });
        out_.append(s);
    }
    // Already-encoded fields, appended as they are.
    void raw(std::string_view encoded) { out_.append(encoded); }
    // An already-encoded message (or any bytes) as a length-delimited field.
    void bytes(std::uint32_t field, std::string_view encoded) { string(field, encoded); }

    // A nested message: begin(field), its fields, end(). Nesting is allowed;
    // end them innermost first.
    [[nodiscard, gnu::always_inline]] open_message begin(std::uint32_t field) {
        put<11>([&](char* p) DFX_PB_INLINE {
            const std::size_t k = put_key(p, field, wire_length);
            p[k] = '\0';  // one length byte, widened by end() if needed
            return k + 1;
        });
        return {out_.size() - 1};
    }
    [[gnu::always_inline]] void end(open_message m) {
        const std::size_t body = out_.size() - m.length_at - 1;
        if (body < 0x80) {  // nearly every message: its one length byte
            out_[m.length_at] = static_cast<char>(body);
            return;
        }
        end_long(m, body);
    }

    [[nodiscard]] std::size_t size() const noexcept { return out_.size(); }

private:
    // end() of a message of 128 bytes or more: the body moved up.
    [[gnu::noinline]] void end_long(open_message m, std::size_t body) {
        const std::size_t n = varint_size(body);
        if (n > 1) out_.insert(m.length_at + 1, n - 1, '\0');
        std::uint64_t v = body;
        for (std::size_t i = 0; i < n; ++i) {
            out_[m.length_at + i] = static_cast<char>((v & 0x7F) | (i + 1 < n ? 0x80 : 0));
            v >>= 7;
        }
    }

    // The bytes `fill(p)` writes at p (at most N; it returns how many),
    // written straight into a byte_buffer's tail, or put together on the
    // stack and appended. (Not on the stack for a byte_buffer: bytes stored
    // one at a time and copied out as one wide load stall the copy, which
    // was a quarter of a protobuf trace's time.)
    template <std::size_t N, class Fill>
    [[gnu::always_inline]] void put(Fill&& fill) {
        if constexpr (requires { out_.tail(N); }) {
            out_.commit(fill(out_.tail(N)));
        } else {
            char buf[N];
            out_.append(buf, fill(+buf));
        }
    }
    Out& out_;
};

using protobuf_writer = basic_protobuf_writer<std::string>;

// A growable byte buffer for a hot encoder: a small field is written in
// place at tail(n) (room for n bytes) and then counted by commit(its size),
// with no copy and no call. Not zero-filled as it grows.
class byte_buffer {
public:
    // Where the next `n` bytes go: room for them, not yet counted.
    char* tail(std::size_t n) {
        ensure(n);
        return data_.get() + size_;
    }
    // Counts `n` bytes written at tail().
    void commit(std::size_t n) noexcept { size_ += n; }
    void append(const char* p, std::size_t n) {
        ensure(n);
        if (n != 0) std::memcpy(data_.get() + size_, p, n);
        size_ += n;
    }
    void append(std::string_view s) { append(s.data(), s.size()); }
    void push_back(char c) {
        ensure(1);
        data_[size_++] = c;
    }
    // n copies of c at `at`, the bytes after it moved up.
    void insert(std::size_t at, std::size_t n, char c) {
        ensure(n);
        std::memmove(data_.get() + at + n, data_.get() + at, size_ - at);
        std::memset(data_.get() + at, c, n);
        size_ += n;
    }
    char& operator[](std::size_t i) { return data_[i]; }
    [[nodiscard]] const char* data() const noexcept { return data_.get(); }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    void clear() noexcept { size_ = 0; }

private:
    void ensure(std::size_t n) {
        if (capacity_ - size_ < n) grow(n);
    }
    [[gnu::noinline]] void grow(std::size_t n) {  // (rare: kept out of every inlined field)
        const std::size_t capacity = std::max({2 * capacity_, size_ + n, std::size_t{1} << 16});
        std::unique_ptr<char[]> bigger(new char[capacity]);
        if (size_ != 0) std::memcpy(bigger.get(), data_.get(), size_);
        data_ = std::move(bigger);
        capacity_ = capacity;
    }
    std::unique_ptr<char[]> data_;
    std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace dfx::convert

#undef DFX_PB_INLINE
