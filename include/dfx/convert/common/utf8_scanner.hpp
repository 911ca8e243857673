// A streaming UTF-8 check: one concern, fed the file block by block, so a
// reader validates every byte it skips as well as the ones it delivers.
//
//   dfx::convert::utf8_scanner utf8;
//   for (each block p[0..n) at file offset off) utf8.next(p, n, off);   // throws on the first bad byte
//   utf8.finish();                                                      // a sequence cut by the end of file
//
// A block may end inside a multi-byte sequence: its first bytes (at most 3)
// are carried to the next block. The fast path is simdjson's validator; only
// when it fails is the block decoded byte by byte, to name the offset.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "dfx/convert/common/input_error.hpp"

namespace dfx::convert {

class utf8_scanner {
public:
    explicit utf8_scanner(std::string path) : path_(std::move(path)) {}

    // The block p[0..n) that starts at file offset `offset`.
    void next(const char* p, std::size_t n, std::uint64_t offset) {
        if (const auto bad = scan(p, n, offset)) fail_invalid(*bad);
    }

    // The same without throwing: the file offset of the first invalid byte
    // (in this block or a sequence carried into it), or nullopt. A reader
    // that must report the first error in file order, UTF-8 or grammar,
    // parses the block only up to it.
    std::optional<std::uint64_t> scan(const char* p, std::size_t n, std::uint64_t offset) {
        std::size_t from = 0;
        if (carried_ > 0) {
            // Complete the carried sequence with the continuation bytes that open this block.
            const std::size_t needed = sequence_length(static_cast<unsigned char>(carry_[0]));
            while (from < n && carried_ + from < needed && is_continuation(p[from])) ++from;
            if (from == n && carried_ + from < needed) {  // a tiny block: still incomplete, keep carrying
                for (std::size_t k = 0; k < n; ++k) carry_[carried_++] = p[k];
                return std::nullopt;
            }
            char seq[4];
            for (std::size_t k = 0; k < carried_; ++k) seq[k] = carry_[k];
            for (std::size_t k = 0; k < from; ++k) seq[carried_ + k] = p[k];
            if (const auto bad = check(seq, carried_ + from, carry_offset_)) return bad;
            carried_ = 0;
        }
        // Hold back a sequence the block cuts: the last lead byte, if its
        // sequence runs past the end.
        std::size_t end = n;
        for (std::size_t back = 1; back <= 3 && back <= n - from; ++back) {
            const auto c = static_cast<unsigned char>(p[n - back]);
            if (is_continuation(static_cast<char>(c))) continue;
            if (c >= 0xC0 && sequence_length(c) > back) end = n - back;
            break;
        }
        if (const auto bad = check(p + from, end - from, offset + from)) return bad;
        for (std::size_t k = end; k < n; ++k) carry_[carried_++] = p[k];
        carry_offset_ = offset + end;
        return std::nullopt;
    }

    [[noreturn]] void fail_invalid(std::uint64_t at) const { fail(at, "invalid UTF-8"); }

    // How many bytes at the end of what was scanned are held back (a
    // sequence not yet complete): not validated yet.
    std::size_t carried() const noexcept { return carried_; }

    // The end of the file: a sequence still carried was cut by it.
    void finish() {
        if (carried_ > 0) fail(carry_offset_, "a UTF-8 sequence cut by the end of the file");
    }

private:
    static bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
    static std::size_t sequence_length(unsigned char lead) { return lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2; }

    static std::optional<std::uint64_t> check(const char* p, std::size_t n, std::uint64_t offset) {
        if (n == 0 || simdjson::validate_utf8(p, n)) return std::nullopt;
        return offset + first_invalid(p, n);
    }

    // The offset of the first byte that does not start or continue a valid
    // sequence (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
    static std::size_t first_invalid(const char* s, std::size_t n) {
        const auto* p = reinterpret_cast<const unsigned char*>(s);
        std::size_t i = 0;
        while (i < n) {
            const unsigned char c = p[i];
            if (c < 0x80) { ++i; continue; }
            std::size_t len = 0;
            unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
            if (c >= 0xC2 && c <= 0xDF) len = 2;
            else if (c == 0xE0) len = 3, lo = 0xA0;
            else if (c >= 0xE1 && c <= 0xEC) len = 3;
            else if (c == 0xED) len = 3, hi = 0x9F;
            else if (c >= 0xEE && c <= 0xEF) len = 3;
            else if (c == 0xF0) len = 4, lo = 0x90;
            else if (c >= 0xF1 && c <= 0xF3) len = 4;
            else if (c == 0xF4) len = 4, hi = 0x8F;
            else return i;
            if (i + len > n) return i;
            if (p[i + 1] < lo || p[i + 1] > hi) return i;
            for (std::size_t k = 2; k < len; ++k)
                if (!is_continuation(static_cast<char>(p[i + k]))) return i;
            i += len;
        }
        return n;  // not reached for input simdjson rejected
    }

    [[noreturn]] void fail(std::uint64_t at, const char* what) const {
        throw input_error(path_ + ": at byte " + std::to_string(at) + ": " + what);
    }

    std::string path_;
    char carry_[4] = {};
    std::size_t carried_ = 0;
    std::uint64_t carry_offset_ = 0;
};

}  // namespace dfx::convert
