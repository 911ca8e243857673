// json_string: the one JSON string escaper, for artefacts and converter
// outputs alike.
//
//   dfx::io::append_json_string(out, name, dfx::io::json_string_style::ascii);  // out: push_back(char), append(string_view)
//   std::string quoted = dfx::io::json_string(name, dfx::io::json_string_style::utf8);
//
// The reference tools are Python, and what we write must read the same as
// what they write: byte for byte where a file is the contract, so the style
// is named at every call site after the json.dumps call it stands in for.
// Both styles escape exactly what Python's json module escapes; they differ
// only in what happens to bytes outside printable ASCII:
//
//   ascii  json.dumps's default (ensure_ascii=True): every byte outside
//          0x20..0x7e is escaped, DEL as \u007f, non-ASCII as UTF-16 \uXXXX
//          (a surrogate pair above U+FFFF). The name map (SceneTest's
//          _dump_name_map, PyPTO's _write_name_map: json.dumps(indent=2)) and
//          dispatch_program.json are written this way, so ours are too; so
//          are the other artefacts, whose strings are ASCII names anyway.
//   utf8   ensure_ascii=False: UTF-8 as is, DEL as is. critical_path's
//          CPM_static.json / CPM_observed.json are written this way. The
//          merged swimlane trace is json.dump's default in the reference but
//          is compared as JSON, not bytes (the conformance README), and raw
//          UTF-8 is shorter and faster to write.
//   html_script  ascii, and '<' '>' '&' as \u003c \u003e \u0026 too: JSON
//          inside an HTML <script> (deps_viewer's depStats / spmdBlocks),
//          where "</script>" in a name would end the script. The reference
//          writes json.dumps there and is open to that; the two read as the
//          same JSON.
//
// In both: '"' '\\' and the control characters \b \f \n \r \t get their short
// escapes, every other byte below 0x20 is \u00XX, hex digits in lower case
// (Python's spelling).
//
// Python strings always hold decoded text; ours are bytes. Invalid UTF-8 (a
// stray continuation byte, a truncated, overlong or surrogate sequence, a
// code point past U+10FFFF) is written as U+FFFD, one per maximal invalid
// subpart, exactly as Python's bytes.decode("utf-8", "replace") would turn it
// into text first. So the output is always valid JSON in valid UTF-8.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace dfx::io {

enum class json_string_style {
    ascii,        // json.dumps(..., ensure_ascii=True), Python's default
    utf8,         // json.dumps(..., ensure_ascii=False)
    html_script,  // ascii, with '<' '>' '&' escaped as well: safe inside <script>
};

namespace json_string_detail {

inline constexpr char hex_digits[] = "0123456789abcdef";

// May byte c be copied as it is? (A byte >= 0x80 may, in the utf8 style,
// as part of valid UTF-8: the caller looks closer.) A template, so each
// style's test compiles to a few compares.
template <json_string_style style>
constexpr bool copied_as_is(unsigned char c) {
    if (c < 0x20 || c == '"' || c == '\\') return false;
    if (c < 0x7F) return style != json_string_style::html_script || (c != '<' && c != '>' && c != '&');
    return c == 0x7F && style == json_string_style::utf8;
}

template <class Out>
void append_u_escape(Out& out, unsigned code_unit) {
    const char esc[6] = {'\\', 'u', hex_digits[(code_unit >> 12) & 0xF], hex_digits[(code_unit >> 8) & 0xF],
                         hex_digits[(code_unit >> 4) & 0xF], hex_digits[code_unit & 0xF]};
    out.append(std::string_view(esc, sizeof esc));
}

// The length of the well-formed UTF-8 sequence at s[i] (2..4), or the
// length of its maximal invalid subpart as a negative number (-1..-3): the
// bytes one U+FFFD replaces. The ranges are Unicode's Table 3-7, which is
// what Python's decoder checks.
inline int utf8_sequence(std::string_view s, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned lead = byte(i);
    int length = 0;
    unsigned second_lo = 0x80, second_hi = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) second_lo = 0xA0;  // overlong below U+0800
        if (lead == 0xED) second_hi = 0x9F;  // U+D800..U+DFFF, surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) second_lo = 0x90;  // overlong below U+10000
        if (lead == 0xF4) second_hi = 0x8F;  // past U+10FFFF
    } else {
        return -1;  // a continuation byte, C0/C1 (always overlong) or F5..FF
    }
    for (int k = 1; k < length; ++k) {
        const std::size_t at = i + static_cast<std::size_t>(k);
        if (at >= s.size()) return -k;  // truncated: what is there is one subpart
        const unsigned lo = k == 1 ? second_lo : 0x80, hi = k == 1 ? second_hi : 0xBF;
        if (byte(at) < lo || byte(at) > hi) return -k;
    }
    return length;
}

inline char32_t decode_utf8(std::string_view s, std::size_t i, int length) {
    const auto byte = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(s[k])); };
    char32_t cp = byte(i) & (0x7Fu >> length);
    for (int k = 1; k < length; ++k) cp = (cp << 6) | (byte(i + static_cast<std::size_t>(k)) & 0x3Fu);
    return cp;
}

// The escaper, for one style.
template <json_string_style style, class Out>
void append_json_string(Out& out, std::string_view text) {
    namespace d = json_string_detail;
    constexpr bool ascii = style != json_string_style::utf8;
    out.push_back('"');
    std::size_t run = 0;  // start of the bytes not yet appended, copied as they are
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const std::size_t size = text.size();
    for (std::size_t i = 0;;) {
        while (i < size && d::copied_as_is<style>(byte(i))) ++i;  // the common case: printable ASCII
        if (i == size) break;
        const unsigned char c = byte(i);
        if (c >= 0x80) {
            const int length = d::utf8_sequence(text, i);
            if (length > 0 && !ascii) {  // valid UTF-8 stays in the run
                i += static_cast<std::size_t>(length);
                continue;
            }
            out.append(text.substr(run, i - run));
            if (length < 0) {
                if (ascii)
                    d::append_u_escape(out, 0xFFFD);
                else
                    out.append(std::string_view("\xEF\xBF\xBD"));  // U+FFFD in UTF-8
                i += static_cast<std::size_t>(-length);
            } else {
                const char32_t cp = d::decode_utf8(text, i, length);
                if (cp >= 0x10000) {
                    const char32_t v = cp - 0x10000;
                    d::append_u_escape(out, 0xD800 + static_cast<unsigned>(v >> 10));
                    d::append_u_escape(out, 0xDC00 + static_cast<unsigned>(v & 0x3FF));
                } else {
                    d::append_u_escape(out, static_cast<unsigned>(cp));
                }
                i += static_cast<std::size_t>(length);
            }
            run = i;
            continue;
        }
        out.append(text.substr(run, i - run));
        switch (c) {
            case '"': out.append(std::string_view("\\\"")); break;
            case '\\': out.append(std::string_view("\\\\")); break;
            case '\b': out.append(std::string_view("\\b")); break;
            case '\f': out.append(std::string_view("\\f")); break;
            case '\n': out.append(std::string_view("\\n")); break;
            case '\r': out.append(std::string_view("\\r")); break;
            case '\t': out.append(std::string_view("\\t")); break;
            default: d::append_u_escape(out, c);  // the other controls; DEL, '<' '>' '&' where the style says
        }
        run = ++i;
    }
    out.append(text.substr(run));
    out.push_back('"');
}

}  // namespace json_string_detail

// Appends `text` as a JSON string literal, quotes included.
template <class Out>
void append_json_string(Out& out, std::string_view text, json_string_style style) {
    using enum json_string_style;
    switch (style) {
        case ascii: return json_string_detail::append_json_string<ascii>(out, text);
        case utf8: return json_string_detail::append_json_string<utf8>(out, text);
        case html_script: return json_string_detail::append_json_string<html_script>(out, text);
    }
}

// The JSON string literal of `text`, quotes included.
inline std::string json_string(std::string_view text, json_string_style style) {
    std::string out;
    out.reserve(text.size() + 2);
    append_json_string(out, text, style);
    return out;
}

}  // namespace dfx::io
