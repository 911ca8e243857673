// flat_objects_scanner: the fast path for a JSON array of flat objects, the
// shape of the records file's scheduler and orchestrator phases:
//
//   bool ok = scan_flat_objects(R"([{"kind": "dispatch", "start_cycles": 10, "shared_at_start": [1,0,0]}])",
//       [&](std::string_view key, const flat_value& v) { ...; return true; },  // each member, in order
//       [&] { ...; return true; });                                              // an object's end
//   if (!ok) {
//       // not in the subset below, or a callback said no: read the same text
//       // the general way (simdjson), which gives the precise error if there is one
//   }
//
// The sibling of integer_rows_scanner.hpp, with its one concern: it accepts
// a strict subset of JSON and says "no" to everything else, never an error
// of its own. The subset: the outer array, each element an object; each
// key a string of printable ASCII without a backslash; each value one of
//   an integer  -?(0|[1-9][0-9]{0,17})  (below 10^18 in magnitude),
//   null,
//   a string of printable ASCII without a backslash,
//   an array of at most flat_value::max_items such integers,
// with JSON whitespace anywhere between tokens. Whatever it accepts is valid
// JSON whose keys and values it hands over exactly (a string's text is its
// value: no escapes, no other bytes to check as UTF-8). Either callback may
// say no (return false), and the scan stops there: a reader that holds a
// value to its own rules bails out the same way as on text outside the
// subset, so it keeps what it read only when the whole text passed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dfx/convert/common/fast_path_tokens.hpp"

namespace dfx::convert {

// One member's value, as the scanner read it.
struct flat_value {
    enum class kind : unsigned char { integer, null, string, integers };
    static constexpr std::size_t max_items = 8;

    kind type = kind::null;
    std::int64_t number = 0;                       // kind::integer
    std::string_view text;                         // kind::string: between the quotes
    std::array<std::int64_t, max_items> items{};  // kind::integers: the first `count`
    std::size_t count = 0;
};

namespace flat_objects_detail {

// A text in the subset ends with the outer array's ']' (`last`), so every
// loop over whitespace or digits stops there at the latest; a string's loop
// checks it, since a string may hold a ']'.
class cursor {
public:
    cursor(const char* p, const char* last) : p_(p), last_(last) {}

    const char* at() const { return p_; }
    char peek() const { return *p_; }
    void skip() { ++p_; }
    void skip_space() { p_ = fast_path::skip_space(p_); }
    // Takes `c` (and the whitespace after it) when it is next.
    bool take(char c) {
        if (*p_ != c) return false;
        ++p_;
        skip_space();
        return true;
    }

    // An integer of the subset (fast_path::integer).
    bool integer(std::int64_t& out) {
        const char* const after = fast_path::integer(p_, out);
        if (after == nullptr) return false;
        p_ = after;
        return true;
    }
    // A string of printable ASCII without a backslash; its text.
    bool string(std::string_view& out) {
        if (*p_ != '"') return false;
        const char* const first = ++p_;
        for (; p_ != last_ && *p_ != '"'; ++p_) {
            const auto c = static_cast<unsigned char>(*p_);
            if (c < 0x20 || c > 0x7e || c == '\\') return false;
        }
        if (p_ == last_) return false;
        out = std::string_view(first, static_cast<std::size_t>(p_ - first));
        ++p_;
        return true;
    }
    bool value(flat_value& v) {
        switch (*p_) {
        case '"':
            v.type = flat_value::kind::string;
            return string(v.text);
        case 'n':
            if (last_ - p_ < 4 || std::string_view(p_, 4) != "null") return false;
            p_ += 4;
            v.type = flat_value::kind::null;
            return true;
        case '[':
            v.type = flat_value::kind::integers;
            v.count = 0;
            ++p_;
            skip_space();
            if (*p_ != ']') {
                for (;;) {
                    if (v.count == flat_value::max_items || !integer(v.items[v.count])) return false;
                    ++v.count;
                    skip_space();
                    if (*p_ == ']') break;
                    if (!take(',')) return false;
                }
            }
            if (p_ == last_) return false;  // that ']' ends the text: the objects are not closed
            ++p_;
            return true;
        default:
            v.type = flat_value::kind::integer;
            return integer(v.number);
        }
    }

private:
    const char* p_;
    const char* const last_;
};

}  // namespace flat_objects_detail

// Calls on_member(key, value) for each member of each object in order and
// on_object() after each object; true when the whole text is in the subset
// and no callback said no.
template <class OnMember, class OnObject>
bool scan_flat_objects(std::string_view text, OnMember&& on_member, OnObject&& on_object) {
    const char* const last = fast_path::closing_bracket(text);
    if (last == nullptr) return false;
    flat_objects_detail::cursor c(text.data(), last);
    c.skip_space();
    if (!c.take('[')) return false;
    if (c.peek() == ']') return c.at() == last;  // [] and nothing after it
    flat_value v;
    for (;;) {
        if (!c.take('{')) return false;
        if (c.peek() != '}') {
            for (;;) {
                std::string_view key;
                if (!c.string(key)) return false;
                c.skip_space();
                if (!c.take(':')) return false;
                if (!c.value(v) || !on_member(key, static_cast<const flat_value&>(v))) return false;
                c.skip_space();
                if (c.peek() == '}') break;
                if (!c.take(',')) return false;
            }
        }
        c.skip();  // the '}' (not the final ']')
        if (!on_object()) return false;
        c.skip_space();
        if (c.peek() == ']') return c.at() == last;  // the outer array's end, and nothing after it
        if (!c.take(',')) return false;
    }
}

}  // namespace dfx::convert
