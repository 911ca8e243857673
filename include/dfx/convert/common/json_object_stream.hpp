// json_object_stream: read a JSON file whose top-level value is an object (or
// an array) member by member, and the elements of chosen array members one
// element at a time, without ever holding the whole file in memory.
//
// Why not simdjson over the whole file: simdjson (On-Demand included) needs the
// complete document in one padded buffer. The artefacts the deps / dump /
// critical-path converters read are one big object whose bulk sits in a few
// arrays (deps.json: tasks / tensors / edges; args_dump.json: args; the
// records file: aicore_tasks ...), and at 10^6..10^7 tasks they are gigabytes.
// So this scanner walks the bytes in fixed-size blocks as a push state
// machine (no recursion), validates the JSON grammar of everything (used or
// not, so malformed input is always reported), and hands each wanted element
// to the caller as its own small padded buffer, which the caller parses with
// simdjson On-Demand. Memory is one block plus the largest single element.
//
// (common/json_stream.hpp is a pull-style reader with the same purpose,
// written concurrently for the swimlane converter.)
//
// Every byte is checked for UTF-8 validity as its block arrives
// (common/utf8_scanner.hpp), skipped strings included; nesting deeper than
// max_depth is rejected.
#pragma once

#include <simdjson.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <string_view>

#include "dfx/convert/common/file_blocks.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/utf8_scanner.hpp"

namespace dfx::convert {

// What the caller wants done with one top-level member.
enum class member_use : unsigned char {
    skip,      // validate and drop
    value,     // deliver the whole value through json_member_handler::value
    elements,  // deliver each element of an array value; a non-array value is delivered whole
};

class json_member_handler {
public:
    virtual ~json_member_handler() = default;
    // Called once per top-level key, in file order. A top-level array (instead
    // of an object) is offered as the single member with the empty key "".
    virtual member_use use(std::string_view key) = 0;
    // The whole value of a member (member_use::value, or a non-array member_use::elements).
    virtual void value(std::string_view key, simdjson::padded_string_view json) = 0;
    // One element of an array member, with its position in the array.
    virtual void element(std::string_view key, std::size_t index, simdjson::padded_string_view json) = 0;
    // After the last element of any array member (skipped ones too): its length.
    virtual void array_end(std::string_view /*key*/, std::size_t /*count*/) {}

    // File offset of the first byte of the value (or element) being delivered,
    // set by the stream before each value() / element() call, for messages
    // ("<file>: at byte N: edges[3].pred: ..."). Only read it inside those calls.
    std::uint64_t value_offset = 0;
};

class json_object_stream {
public:
    static constexpr std::size_t max_depth = 1024;

    // `allow_top_array`: accept a top-level array (offered as the member "")
    // besides a top-level object.
    explicit json_object_stream(std::string path, bool allow_top_array = false, std::size_t block_size = std::size_t{1} << 20)
        : path_(std::move(path)), block_size_(block_size), allow_top_array_(allow_top_array) {}

    // Reads the whole file, calling `h` as members and elements complete.
    // Throws input_error on I/O errors and malformed JSON; exceptions thrown by
    // the handler propagate unchanged.
    void run(json_member_handler& h) {
        handler_ = &h;
        // Every byte is UTF-8-checked (the skipped strings' too), and the
        // grammar is only ever fed bytes already checked: so the first error
        // in file order wins, UTF-8 or grammar, whatever the block size. The
        // bytes of a sequence a block cuts wait in `pending` (at most 3).
        utf8_scanner utf8(path_);
        char pending[64] = {};  // zeroed: feed() reads a sentinel and padding past the end
        std::size_t pending_n = 0;
        std::uint64_t pending_at = 0;
        const std::uint64_t total = for_each_file_block(path_, block_size_, [&](char* p, std::size_t n, std::uint64_t offset) {
            const auto bad = utf8.scan(p, n, offset);
            const std::uint64_t checked_to = bad ? *bad : offset + n - utf8.carried();
            const std::size_t from_pending =
                checked_to > pending_at ? static_cast<std::size_t>(std::min<std::uint64_t>(pending_n, checked_to - pending_at)) : 0;
            const std::size_t from_block = checked_to > offset ? static_cast<std::size_t>(checked_to - offset) : 0;
            // What is not fed now waits: the rest of pending, then the block's tail.
            char next[64] = {};
            std::size_t next_n = 0;
            for (std::size_t k = from_pending; k < pending_n; ++k) next[next_n++] = pending[k];
            for (std::size_t k = from_block; k < n && !bad; ++k) next[next_n++] = p[k];
            const std::uint64_t next_at = checked_to;
            if (from_pending > 0) {
                pending[from_pending] = '\0';
                feed_block(pending, from_pending, pending_at);
            }
            if (from_block > 0) {
                p[from_block] = '\0';
                feed_block(p, from_block, offset);
            }
            if (bad) utf8.fail_invalid(*bad);
            std::memcpy(pending, next, sizeof pending);
            pending_n = next_n;
            pending_at = next_at;
        });
        utf8.finish();
        if (total == 0) throw input_error(path_ + ": file is empty (expected a JSON object)");
        if (st_ != state::done)
            throw input_error(path_ + ": unexpected end of file after " + std::to_string(total) +
                              " bytes (truncated JSON?)");
    }

private:
    enum class state : unsigned char {
        value,        // a value must start here
        arr_first,    // just after '[': a value or ']'
        obj_first,    // just after '{': a key or '}'
        obj_key,      // after ',' in an object: a key
        string,       // inside a string (key or value)
        escape,       // after a backslash
        unicode,      // inside \uXXXX
        colon,        // after a key
        after_value,  // after a value: ',' or the closing bracket
        number,
        literal,      // true / false / null
        done,         // after the top-level value: only whitespace
    };
    // Number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    enum num_state : unsigned char { n_minus, n_zero, n_int, n_dot, n_frac, n_e, n_esign, n_exp };
    enum class capture : unsigned char { none, key, value };

    static bool is_ws(unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
    static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
    static bool is_special(unsigned char c) { return c == '"' || c == '\\' || c < 0x20; }
    static bool is_hex(unsigned char c) {
        return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    // Bit k set when p[k] (k < 16) is '"', '\\' or below 0x20.
    static std::uint32_t special_bytes(const char* p) {
#if defined(__SSE2__)
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i quote = _mm_cmpeq_epi8(x, _mm_set1_epi8('"'));
        const __m128i backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'));
        const __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x);
        return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control)));
#else
        std::uint32_t m = 0;
        for (int k = 0; k < 16; ++k) m |= static_cast<std::uint32_t>(is_special(static_cast<unsigned char>(p[k]))) << k;
        return m;
#endif
    }
    static std::size_t skip_ws(const char* p, std::size_t i) {
        while (is_ws(static_cast<unsigned char>(p[i]))) ++i;  // the sentinel at p[n] stops it
        return i;
    }

    [[noreturn]] void fail(std::size_t i, const char* what) const {
        throw input_error(path_ + ": invalid JSON at byte " + std::to_string(base_ + i) + ": " + what);
    }

    void feed_block(const char* p, std::size_t n, std::uint64_t offset) {
        base_ = offset;
        block_len_ = n;
        feed(p, n);
    }

    // Direct-threaded: each label is a state and jumps straight to the one
    // that follows. (A loop with a switch per byte paid a mispredicted
    // indirect jump per token, most of the scan.) Out of bytes, the state is
    // parked in st_ and the next block resumes there.
    //
    // p[n] is a '\0' sentinel, and the padding after it is readable: the
    // loops over whitespace, digits and string contents stop at the sentinel
    // without comparing against n.
    void feed(const char* p, std::size_t n) {
        std::size_t i = 0;
        unsigned char c = 0;
        switch (st_) {
        case state::value: goto value;
        case state::arr_first: goto arr_first;
        case state::obj_first: goto obj_first;
        case state::obj_key: goto obj_key;
        case state::string: goto string;
        case state::escape: goto escape;
        case state::unicode: goto unicode;
        case state::colon: goto colon;
        case state::after_value: goto after_value;
        case state::number: goto number;
        case state::literal: goto literal;
        case state::done: goto done;
        }

    arr_first:
        i = skip_ws(p, i);
        if (i == n) { st_ = state::arr_first; goto out; }
        if (p[i] == ']') { close(p, i++, '['); goto after_finish; }
        goto value_start;
    value:
        i = skip_ws(p, i);
        if (i == n) { st_ = state::value; goto out; }
    value_start:
        c = static_cast<unsigned char>(p[i]);
        if (is_digit(c) && depth_ >= 3) {
            // Most values of the bulk arrays are integers: inside an element
            // (no bookkeeping at this depth), "<int>," and "<int>" before the
            // closing bracket are taken whole. Anything else (a sign, a
            // fraction, an exponent, a space, the block's end) goes the
            // general way from the same byte.
            std::size_t j = i + 1;
            if (c != '0')
                while (is_digit(static_cast<unsigned char>(p[j]))) ++j;
            const char open = nest_[depth_ - 1];
            if (p[j] == ',') {
                i = j + 1;
                if (open == '[') goto value;
                goto obj_key;
            }
            if (p[j] == (open == '[' ? ']' : '}')) {
                close(p, j, open);
                i = j + 1;
                goto after_finish;
            }
        } else if (depth_ >= 3) {  // strings and containers inside an element: nothing to note either
            if (c == '"') {
                in_key_ = false;
                ++i;
                goto string;
            }
            if ((c == '[' || c == '{') && depth_ < max_depth) {
                nest_[depth_++] = static_cast<char>(c);
                ++i;
                if (c == '[') goto arr_first;
                goto obj_first;
            }
        }
        begin_value(i, c);  // fails unless c starts a value
        ++i;
        switch (c) {
        case '"': goto string;
        case '{': goto obj_first;
        case '[': goto arr_first;
        case 't': case 'f': case 'n': goto literal;
        default: goto number;
        }

    obj_first:
        i = skip_ws(p, i);
        if (i == n) { st_ = state::obj_first; goto out; }
        if (p[i] == '}') { close(p, i++, '{'); goto after_finish; }
        if (p[i] != '"') fail(i, "expected a string key or '}'");
        begin_key(i++);
        goto string;
    obj_key:
        i = skip_ws(p, i);
        if (i == n) { st_ = state::obj_key; goto out; }
        if (p[i] != '"') fail(i, "expected a string key");
        begin_key(i++);
        goto string;

    string:
        // Most bytes of a JSON file are string contents: find the first '"',
        // '\\' or control character 16 bytes at a time.
        for (;;) {  // the sentinel at p[n], a control character, stops it
            const std::uint32_t special = special_bytes(p + i);
            if (special != 0) {
                i += static_cast<std::size_t>(__builtin_ctz(special));
                break;
            }
            i += 16;
        }
        if (i == n) { st_ = state::string; goto out; }  // the string goes on in the next block
        if (p[i] == '"') {
            const bool key = in_key_;
            end_string(p, i++);
            if (!key) goto after_finish;
            // Most keys are followed by ": " and a value: straight to it.
            // (The sentinel at p[n] is no space and no value start.)
            if (p[i] == ':' && p[i + 1] == ' ' && static_cast<unsigned char>(p[i + 2]) > ' ') {
                i += 2;
                goto value_start;
            }
            goto colon;
        }
        if (p[i] != '\\') fail(i, "control character inside a string");
        ++i;
    escape:
        if (i == n) { st_ = state::escape; goto out; }
        c = static_cast<unsigned char>(p[i]);
        if (c == 'u') {
            unicode_left_ = 4;
            ++i;
            goto unicode;
        }
        if (c == 0 || std::strchr("\"\\/bfnrt", c) == nullptr) fail(i, "invalid escape sequence in a string");
        ++i;
        goto string;
    unicode:
        for (; unicode_left_ > 0; --unicode_left_, ++i) {
            if (i == n) { st_ = state::unicode; goto out; }
            if (!is_hex(static_cast<unsigned char>(p[i]))) fail(i, "invalid \\u escape in a string");
        }
        goto string;

    colon:
        i = skip_ws(p, i);
        if (i == n) { st_ = state::colon; goto out; }
        if (p[i] != ':') fail(i, "expected ':' after an object key");
        ++i;
        goto value;

    after_finish:  // a value just ended (finish_value has run)
        if (depth_ == 0) goto done;
    after_value:
        i = skip_ws(p, i);
        if (i == n) { st_ = state::after_value; goto out; }
        c = static_cast<unsigned char>(p[i]);
        if (nest_[depth_ - 1] == '{') {
            if (c == ',') { ++i; goto obj_key; }
            if (c == '}') { close(p, i++, '{'); goto after_finish; }
            fail(i, "expected ',' or '}' after an object member");
        }
        if (c == ',') { ++i; goto value; }
        if (c == ']') { close(p, i++, '['); goto after_finish; }
        fail(i, "expected ',' or ']' after an array element");

    number:
        for (;;) {
            if (num_ == n_int || num_ == n_frac || num_ == n_exp) {  // a run of digits
                while (is_digit(static_cast<unsigned char>(p[i]))) ++i;
            }
            if (i == n) { st_ = state::number; goto out; }
            if (!step_number(static_cast<unsigned char>(p[i]))) break;
            ++i;
        }
        // This byte ends the number and belongs to what follows.
        if (num_ != n_zero && num_ != n_int && num_ != n_frac && num_ != n_exp) fail(i, "malformed number");
        finish_value(p, i);
        goto after_finish;

    literal:
        for (; *lit_ != '\0'; ++lit_, ++i) {
            if (i == n) { st_ = state::literal; goto out; }
            if (static_cast<unsigned char>(p[i]) != static_cast<unsigned char>(*lit_)) {
                fail(i, "invalid literal (expected true, false or null)");
            }
        }
        finish_value(p, i);
        goto after_finish;

    done:
        i = skip_ws(p, i);
        if (i != n) fail(i, "unexpected data after the top-level value");
        st_ = state::done;

    out:
        // A capture in progress continues in the next block.
        if (cap_ != capture::none) {
            buf_.append(p + cap_from_, n - cap_from_);
            cap_from_ = 0;
        }
    }

    bool step_number(unsigned char c) {
        switch (num_) {
        case n_minus:
            if (c == '0') { num_ = n_zero; return true; }
            if (is_digit(c)) { num_ = n_int; return true; }
            return false;
        case n_zero:
        case n_int:
            if (num_ == n_int && is_digit(c)) return true;
            if (c == '.') { num_ = n_dot; return true; }
            if (c == 'e' || c == 'E') { num_ = n_e; return true; }
            return false;
        case n_dot:
            if (is_digit(c)) { num_ = n_frac; return true; }
            return false;
        case n_frac:
            if (is_digit(c)) return true;
            if (c == 'e' || c == 'E') { num_ = n_e; return true; }
            return false;
        case n_e:
            if (c == '+' || c == '-') { num_ = n_esign; return true; }
            if (is_digit(c)) { num_ = n_exp; return true; }
            return false;
        case n_esign:
            if (is_digit(c)) { num_ = n_exp; return true; }
            return false;
        case n_exp:
            return is_digit(c);
        }
        return false;
    }

    // A value starts at p[i] (first byte c). Depth 1 is a top-level member's
    // value; depth 2 an element of a member's array. A top-level array is
    // treated as the value of a member named "".
    void begin_value(std::size_t i, unsigned char c) {
        const std::size_t depth = depth_;
        if (depth < 3) note_value_start(i, c, depth);  // deeper values are inside an element: nothing to note
        switch (c) {
        case '{':
        case '[':
            if (depth >= max_depth) fail(i, "nesting too deep");
            nest_[depth_++] = static_cast<char>(c);
            return;
        case '"': in_key_ = false; return;
        case 't': lit_ = "rue"; return;
        case 'f': lit_ = "alse"; return;
        case 'n': lit_ = "ull"; return;
        case '-': num_ = n_minus; return;
        default:
            if (!is_digit(c)) fail(i, "expected a JSON value");
            num_ = c == '0' ? n_zero : n_int;
        }
    }

    // The top level, a member's value or an element starts: note arrays and captures.
    void note_value_start(std::size_t i, unsigned char c, std::size_t depth) {
        if (depth == 0) {
            if (c != '{' && (c != '[' || !allow_top_array_)) fail(i, "the top-level value is not a JSON object");
            if (c == '[') {
                top_array_ = true;
                key_.clear();
                use_ = handler_->use(key_);
                in_array_member_ = true;
                element_count_ = 0;
            }
        } else if (depth == 1 && !top_array_) {
            if (c == '[') {
                in_array_member_ = true;
                element_count_ = 0;
            }
            if (use_ == member_use::value || (use_ == member_use::elements && c != '[')) start_capture(i, 1);
        } else if (depth == (top_array_ ? 1u : 2u) && in_array_member_) {
            ++element_count_;
            if (use_ == member_use::elements) start_capture(i, depth);
        }
    }

    void begin_key(std::size_t i) {
        in_key_ = true;
        if (depth_ == 1 && !top_array_) {  // a top-level key: keep its text
            key_at_ = base_ + i;
            cap_ = capture::key;
            cap_from_ = i + 1;
            buf_.clear();
        }
    }

    void end_string(const char* p, std::size_t i) {
        if (!in_key_) {
            finish_value(p, i + 1);
            return;
        }
        if (cap_ != capture::key) return;
        buf_.append(p + cap_from_, i - cap_from_);
        cap_ = capture::none;
        set_key();
        // A repeated top-level key is refused: Python's json keeps the last
        // value, this stream would deliver both, and either way one of them
        // is silently ignored by a reader.
        if (!top_keys_.insert(key_).second)
            throw input_error(path_ + ": at byte " + std::to_string(key_at_) + ": duplicate top-level key \"" + key_ + "\"");
        use_ = handler_->use(key_);
    }

    // Keys are compared unescaped ("ta\u0073ks" is "tasks"), as Python's json does.
    void set_key() {
        if (buf_.find('\\') == std::string::npos) {
            key_ = buf_;
            return;
        }
        const simdjson::padded_string quoted("\"" + buf_ + "\"");
        std::string_view s;
        auto doc = key_parser_.iterate(quoted);
        if (doc.get_string().get(s) != simdjson::SUCCESS)
            throw input_error(path_ + ": invalid JSON: top-level key \"" + buf_ + "\" has a bad escape");
        key_.assign(s);
    }

    void start_capture(std::size_t i, std::size_t depth) {
        cap_ = capture::value;
        cap_at_ = base_ + i;
        cap_depth_ = depth;
        cap_from_ = i;
        buf_.clear();
    }

    void close(const char* p, std::size_t i, char open) {
        if (nest_[depth_ - 1] != open) fail(i, "mismatched bracket");
        --depth_;
        finish_value(p, i + 1);
    }

    // A value ended just before p[end]; depth_ is back at the depth it started at.
    void finish_value(const char* p, std::size_t end) {
        const std::size_t depth = depth_;
        if (depth < 3) finish_shallow_value(p, end, depth);  // deeper values are inside an element
    }

    // The top level, a member's value or an element ended: deliver captures, close arrays.
    void finish_shallow_value(const char* p, std::size_t end, std::size_t depth) {
        if (cap_ == capture::value && depth == cap_depth_) {
            cap_ = capture::none;
            simdjson::padded_string_view view;
            if (buf_.empty()) {  // it began in this block: in place (the block is padded)
                view = simdjson::padded_string_view(p + cap_from_, end - cap_from_,
                                                    block_len_ - cap_from_ + simdjson::SIMDJSON_PADDING);
            } else {
                buf_.append(p + cap_from_, end - cap_from_);
                buf_.reserve(buf_.size() + simdjson::SIMDJSON_PADDING);
                view = simdjson::padded_string_view(buf_.data(), buf_.size(), buf_.capacity());
            }
            handler_->value_offset = cap_at_;
            if (depth == 1 && !top_array_) handler_->value(key_, view);
            else handler_->element(key_, element_count_ - 1, view);
        }
        if (in_array_member_ && depth == (top_array_ ? 0u : 1u)) {  // the member's array is complete
            in_array_member_ = false;
            handler_->array_end(key_, element_count_);
        }
    }

    std::string path_;
    std::size_t block_size_;
    bool allow_top_array_;
    json_member_handler* handler_ = nullptr;
    std::uint64_t base_ = 0;  // file offset of the block being scanned
    std::size_t block_len_ = 0;  // bytes in it

    state st_ = state::value;  // where the next block resumes (feed parks it there)
    unsigned char num_ = n_int;
    bool in_key_ = false;
    int unicode_left_ = 0;
    const char* lit_ = "";
    char nest_[max_depth];  // the open brackets, outermost first
    std::size_t depth_ = 0;

    bool top_array_ = false;  // the document is an array, not an object
    std::string key_;         // the current top-level key
    std::uint64_t key_at_ = 0;            // file offset of its opening quote
    std::set<std::string> top_keys_;      // the top-level keys seen so far
    member_use use_ = member_use::skip;
    bool in_array_member_ = false;  // inside the array value of a top-level member
    std::size_t element_count_ = 0;

    capture cap_ = capture::none;
    std::size_t cap_depth_ = 0;
    std::size_t cap_from_ = 0;  // where the capture resumes in the current block
    std::uint64_t cap_at_ = 0;  // file offset where the captured value began
    std::string buf_;           // captured bytes (plus simdjson padding capacity)
    simdjson::ondemand::parser key_parser_;
};

}  // namespace dfx::convert
