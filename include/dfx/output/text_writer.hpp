// A small buffered text writer for artefacts: integers printed exactly
// (uint64 values above 2^53 included, never through a double) and JSON
// strings escaped the way Python's json.dumps does by default (ASCII only).
//
//   dfx::text_writer out(file);   // a std::FILE* it does not own
//   out.raw("{\"name\": ").string(name).raw(", \"n\": ").number(n).raw("}\n");
//   if (!out.flush()) ...;         // false once any write failed
#pragma once

#include <charconv>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

#include "dfx/io/json_string.hpp"

namespace dfx {

class text_writer {
public:
    explicit text_writer(std::FILE* out) : out_(out) { buffer_.reserve(flush_at + 4096); }
    text_writer(const text_writer&) = delete;
    text_writer& operator=(const text_writer&) = delete;
    ~text_writer() { flush(); }

    // Out of line (here and below): a writer makes hundreds of calls, and
    // inlined they were a large part of a host translation unit's code;
    // a call per token costs nothing beside the file I/O.
    [[gnu::noinline]] text_writer& raw(std::string_view text) {
        buffer_.append(text);
        if (buffer_.size() >= flush_at) flush();
        return *this;
    }

    // Every integer type goes through one of two conversions.
    template <std::integral T>
    text_writer& number(T value) {
        if constexpr (std::is_signed_v<T>)
            return signed_number(value);
        else
            return unsigned_number(value);
    }

    // A JSON string literal, quotes included (io/json_string.hpp). ascii
    // unless told: the name map is json.dumps's default in the reference,
    // and the other artefacts' strings are ASCII names. The style is a
    // template argument, not a run-time one, so a translation unit compiles
    // only the escapers it writes with (the host TU: ascii alone).
    template <io::json_string_style Style = io::json_string_style::ascii>
    [[gnu::noinline]] text_writer& string(std::string_view text) {
        io::json_string_detail::append_json_string<Style>(buffer_, text);
        if (buffer_.size() >= flush_at) flush();
        return *this;
    }

    // Writes out what is buffered; false if the stream reported an error.
    bool flush() {
        if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), out_) != buffer_.size()) failed_ = true;
        buffer_.clear();
        return !failed_;
    }
    bool failed() const noexcept { return failed_; }

private:
    static constexpr std::size_t flush_at = 1 << 20;

    template <class T>
    text_writer& digits_of(T value) {
        char digits[24];
        const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
        (void)ec;  // 24 bytes hold any 64-bit integer
        return raw(std::string_view(digits, static_cast<std::size_t>(end - digits)));
    }
    [[gnu::noinline]] text_writer& signed_number(std::int64_t value) { return digits_of(value); }
    [[gnu::noinline]] text_writer& unsigned_number(std::uint64_t value) { return digits_of(value); }

    std::FILE* out_;
    std::string buffer_;
    bool failed_ = false;
};

}  // namespace dfx
