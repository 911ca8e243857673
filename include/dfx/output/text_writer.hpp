// A small buffered text writer for artefacts: integers printed exactly
// (uint64 values above 2^53 included, never through a double) and JSON
// strings escaped the way Python's json.dumps does by default (ASCII only).
#pragma once

#include <charconv>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace dfx {

class text_writer {
public:
    explicit text_writer(std::FILE* out) : out_(out) { buffer_.reserve(flush_at + 4096); }
    text_writer(const text_writer&) = delete;
    text_writer& operator=(const text_writer&) = delete;
    ~text_writer() { flush(); }

    text_writer& raw(std::string_view text) {
        buffer_.append(text);
        if (buffer_.size() >= flush_at) flush();
        return *this;
    }

    template <std::integral T>
    text_writer& number(T value) {
        char digits[24];
        const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
        (void)ec;  // 24 bytes hold any 64-bit integer
        return raw(std::string_view(digits, static_cast<std::size_t>(end - digits)));
    }

    // A JSON string literal, quotes included; non-ASCII as \uXXXX (UTF-16).
    text_writer& string(std::string_view text);

    // Writes out what is buffered; false if the stream reported an error.
    bool flush() {
        if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), out_) != buffer_.size()) failed_ = true;
        buffer_.clear();
        return !failed_;
    }
    bool failed() const noexcept { return failed_; }

private:
    static constexpr std::size_t flush_at = 1 << 20;
    std::FILE* out_;
    std::string buffer_;
    bool failed_ = false;
};

namespace detail {

inline void append_u_escape(std::string& out, unsigned code_unit) {
    static constexpr char hex[] = "0123456789abcdef";
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += hex[(code_unit >> shift) & 0xF];
}

// Decodes one UTF-8 sequence at text[i]; an invalid byte decodes as U+FFFD,
// as Python's decoder with errors="replace" would, so output stays valid JSON.
inline char32_t decode_utf8(std::string_view text, std::size_t& i) {
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    const int extra = lead >= 0xF8 ? -1 : lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : -1;
    if (extra < 0 || i + static_cast<std::size_t>(extra) >= text.size()) {
        ++i;
        return U'\uFFFD';
    }
    char32_t cp = lead & (0x3Fu >> extra);
    for (int k = 1; k <= extra; ++k) {
        const unsigned char cont = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
        if ((cont & 0xC0) != 0x80) {
            i += static_cast<std::size_t>(k);
            return U'\uFFFD';
        }
        cp = (cp << 6) | (cont & 0x3Fu);
    }
    i += static_cast<std::size_t>(extra) + 1;
    return cp;
}

}  // namespace detail

inline text_writer& text_writer::string(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {
            const char32_t cp = detail::decode_utf8(text, i);
            if (cp >= 0x10000) {
                const char32_t v = cp - 0x10000;
                detail::append_u_escape(out, 0xD800 + static_cast<unsigned>(v >> 10));
                detail::append_u_escape(out, 0xDC00 + static_cast<unsigned>(v & 0x3FF));
            } else {
                detail::append_u_escape(out, static_cast<unsigned>(cp));
            }
            continue;
        }
        ++i;
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (c < 0x20)
                    detail::append_u_escape(out, c);
                else
                    out += static_cast<char>(c);
        }
    }
    out += '"';
    return raw(out);
}

}  // namespace dfx
