// plain_json: read a JSON value that json_object_stream has already validated
// in place, without running a parser over it again.
//
// The stream checks the grammar of every byte it delivers, so what a second
// parse of an element would still find out is only its structure, and most
// of an element is skipped by the handlers anyway. For an element that is
// plain (no backslash, so every key and string is its own text; valid UTF-8,
// the one check the stream leaves to the parser) these views walk the text
// directly. They offer the subset of simdjson On-Demand's interface the
// handlers use (type(), get_object(), get_array(), get_string(), get_bool(),
// raw_json_token(), unescaped_key(), value(), count_*), so one handler body,
// written as a template, reads either; an element that is not plain goes to
// simdjson, which unescapes it or reports the error.
//
//     if (is_plain_json(json)) handle(plain_value(json)); else handle(parser.iterate(json));
#pragma once

#include <simdjson.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace dfx::convert {

// Whether a validated value can be read with plain_value. Most elements are
// short and ASCII: one pass 16 (or 8) bytes at a time settles them without a
// call into simdjson's UTF-8 check (which costs more than the pass on short
// input).
inline bool is_plain_json(std::string_view json) {
    constexpr std::uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    const char* p = json.data();
    const std::size_t n = json.size();
    std::uint64_t flags = 0;  // high bits: a backslash or a non-ASCII byte
    std::size_t i = 0;
#if defined(__SSE2__)
    __m128i any = _mm_setzero_si128();  // the same high bits, 16 bytes at a time
    for (; i + 16 <= n; i += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
        any = _mm_or_si128(any, _mm_or_si128(x, _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))));
    }
    if (_mm_movemask_epi8(any) != 0) flags = highs;
#endif
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, sizeof w);
        const std::uint64_t x = w ^ (ones * '\\');
        flags |= ((x - ones) & ~x) | w;
    }
    for (; i < n; ++i) flags |= p[i] == '\\' ? highs : static_cast<std::uint64_t>(static_cast<unsigned char>(p[i]));
    if ((flags & highs) == 0) return true;
    return std::memchr(p, '\\', n) == nullptr && simdjson::validate_utf8(p, n);
}

namespace plain_detail {

inline bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

inline const char* skip_ws(const char* p, const char* end) {
    while (p != end && is_ws(*p)) ++p;
    return p;
}
// Inside a container's text, which ends at its closing bracket: that bracket
// stops the loop, so the bound need not be checked on every byte.
inline const char* skip_ws_inside(const char* p) {
    while (is_ws(*p)) ++p;
    return p;
}

#if defined(__SSE2__)
// Bit k set when p[k] (k < 16) equals c.
inline std::uint32_t bytes_equal(const char* p, char c) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(c))));
}
// Bit k set when p[k] (k < 16) is a quote or a bracket: what a container's
// end depends on ('[' | 0x20 is '{' and ']' | 0x20 is '}').
inline std::uint32_t structure_bytes(const char* p) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i folded = _mm_or_si128(x, _mm_set1_epi8(0x20));
    const __m128i opens = _mm_cmpeq_epi8(folded, _mm_set1_epi8('{'));
    const __m128i closes = _mm_cmpeq_epi8(folded, _mm_set1_epi8('}'));
    const __m128i quotes = _mm_cmpeq_epi8(x, _mm_set1_epi8('"'));
    return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(opens, closes), quotes)));
}
#endif

// The first '"' from p; there is one before end (the text is validated).
// Strings are short: an inline 16-byte step saves a call per string.
inline const char* find_quote(const char* p, const char* end) {
#if defined(__SSE2__)
    for (; end - p >= 16; p += 16)
        if (const std::uint32_t m = bytes_equal(p, '"'); m != 0) return p + __builtin_ctz(m);
#endif
    return static_cast<const char*>(std::memchr(p, '"', static_cast<std::size_t>(end - p)));
}

// The end of the (valid, escape-free) value that starts at p, a member or
// element of a container that closes at `end`. Inside a container only
// quotes and brackets matter, and with no escapes every quote opens or closes
// a string.
inline const char* value_end(const char* p, const char* end) {
    switch (*p) {
    case '"': return find_quote(p + 1, end) + 1;
    case '{':
    case '[': {
        std::size_t depth = 0;
        bool in_string = false;
        auto step = [&](char c) {  // true when c closes the container
            if (c == '"') in_string = !in_string;
            else if (in_string) return false;
            else if (c == '{' || c == '[') ++depth;
            else if (c == '}' || c == ']') return --depth == 0;
            return false;
        };
#if defined(__SSE2__)
        for (; end - p >= 16; p += 16)
            for (std::uint32_t m = structure_bytes(p); m != 0; m &= m - 1) {
                const char* at = p + __builtin_ctz(m);
                if (step(*at)) return at + 1;
            }
#endif
        for (;; ++p)
            if (step(*p)) return p + 1;
    }
    default:  // a number or a literal, inside a container: its closing bracket at `end` stops the loop
        while (!is_ws(*p) && *p != ',' && *p != '}' && *p != ']') ++p;
        return p;
    }
}

}  // namespace plain_detail

class plain_object;
class plain_array;

// One value (surrounding whitespace allowed).
class plain_value {
public:
    plain_value() = default;
    explicit plain_value(std::string_view json) {
        const char* b = plain_detail::skip_ws(json.data(), json.data() + json.size());
        const char* e = json.data() + json.size();
        while (e != b && plain_detail::is_ws(e[-1])) --e;
        text_ = std::string_view(b, static_cast<std::size_t>(e - b));
    }
    // A value's exact text, with no whitespace around it.
    static plain_value trimmed(std::string_view text) {
        plain_value v;
        v.text_ = text;
        return v;
    }

    simdjson::ondemand::json_type type() const {
        using simdjson::ondemand::json_type;
        switch (text_.front()) {
        case '"': return json_type::string;
        case '{': return json_type::object;
        case '[': return json_type::array;
        case 't':
        case 'f': return json_type::boolean;
        case 'n': return json_type::null;
        default: return json_type::number;
        }
    }
    std::string_view raw_json_token() const { return text_; }
    // Only for the matching type(), as with simdjson (which would throw).
    std::string_view get_string() const { return text_.substr(1, text_.size() - 2); }
    bool get_bool() const { return text_.front() == 't'; }
    plain_object get_object() const;
    plain_array get_array() const;
    std::size_t count_elements() const;
    std::size_t count_fields() const;

private:
    std::string_view text_;
};

// What iterating a plain_array or plain_object yields: simdjson yields
// results and fields with the same two accessors.
struct plain_element {
    plain_value v;
    plain_value value() const { return v; }
};
struct plain_field {
    std::string_view key;
    plain_value v;
    std::string_view unescaped_key() const { return key; }
    plain_value value() const { return v; }
};

// Members or elements of a container, in order. `Object` picks which.
template <bool Object>
class plain_container {
public:
    using item = std::conditional_t<Object, plain_field, plain_element>;

    class iterator {
    public:
        iterator(const char* p, const char* end) : p_(p), end_(end) { read(); }
        item operator*() const { return item_; }
        iterator& operator++() {
            p_ = plain_detail::skip_ws_inside(next_);
            if (p_ != end_) ++p_;  // the ','
            read();
            return *this;
        }
        bool operator!=(const iterator& o) const { return p_ != o.p_; }

    private:
        void read() {
            p_ = plain_detail::skip_ws_inside(p_);
            if (p_ == end_) return;
            const char* v = p_;
            if constexpr (Object) {
                const char* key_end = plain_detail::find_quote(p_ + 1, end_);
                item_.key = std::string_view(p_ + 1, static_cast<std::size_t>(key_end - p_ - 1));
                v = plain_detail::skip_ws_inside(plain_detail::skip_ws_inside(key_end + 1) + 1);  // past ':'
            }
            next_ = plain_detail::value_end(v, end_);
            item_.v = plain_value::trimmed(std::string_view(v, static_cast<std::size_t>(next_ - v)));
        }
        const char* p_;
        const char* end_;
        const char* next_ = nullptr;
        item item_{};
    };

    // `json`: the container's text, brackets included.
    explicit plain_container(std::string_view json) : inner_(json.substr(1, json.size() - 2)) {}
    iterator begin() const { return {inner_.data(), inner_.data() + inner_.size()}; }
    iterator end() const { return {inner_.data() + inner_.size(), inner_.data() + inner_.size()}; }
    std::size_t count() const {
        std::size_t n = 0;
        for (auto it = begin(); it != end(); ++it) ++n;
        return n;
    }

private:
    std::string_view inner_;
};

class plain_object : public plain_container<true> {
public:
    using plain_container::plain_container;
    std::size_t count_fields() const { return count(); }
};
class plain_array : public plain_container<false> {
public:
    using plain_container::plain_container;
    std::size_t count_elements() const { return count(); }
};

inline plain_object plain_value::get_object() const { return plain_object(text_); }
inline plain_array plain_value::get_array() const { return plain_array(text_); }
inline std::size_t plain_value::count_elements() const { return get_array().count_elements(); }
inline std::size_t plain_value::count_fields() const { return get_object().count_fields(); }

}  // namespace dfx::convert
