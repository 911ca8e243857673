// json_object_stream: read a JSON file whose top-level value is an object (or
// an array) member by member, and the elements of chosen array members in
// order, without ever holding the whole file in memory. It is the one
// streaming JSON reader of the converters.
//
// Why not simdjson over the whole file: it needs the complete document in
// one padded buffer, and the artefacts (deps.json: tasks / tensors / edges;
// args_dump.json: args; the records file: rows and per-thread lanes of
// phases) are gigabytes at 10^6..10^7 tasks. So this scanner walks the bytes
// in fixed-size blocks as a push state machine (no recursion), validates the
// grammar of everything (used or not, so malformed input is always
// reported), and hands what the caller wants to it as small padded buffers
// for simdjson On-Demand: a whole member, one element at a time, or runs of
// elements as one "[e1,e2,...]" document (`batches`: simdjson's per-document
// cost then vanishes on small tuples). Memory: one block plus the largest delivery.
//
// One concern per scanner: utf8_scanner.hpp (every byte, as its block
// arrives), json_string_scanner.hpp, json_number_scanner.hpp; the structure
// (brackets, keys, what to deliver, max_depth) is this file's.
// pipelined_handler.hpp runs a handler on a second thread.
//
// Usage:
//
//     struct rows final : json_member_handler {
//         member_use use(std::string_view key) override { return key == "rows" ? member_use::batches : member_use::skip; }
//         void value(std::string_view, simdjson::padded_string_view) override { /* not an array */ }
//         void element(std::string_view, std::size_t, simdjson::padded_string_view) override {}
//         void batch(std::string_view, const element_batch& at, simdjson::padded_string_view json) override {
//             /* json is "[row at.first, ..., row at.first + at.count - 1]" */
//         }
//     } h;
//     json_object_stream(path).run(h);   // or run_pipelined(json_object_stream(path), h)
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "dfx/convert/common/file_blocks.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/json_number_scanner.hpp"
#include "dfx/convert/common/json_string_scanner.hpp"
#include "dfx/convert/common/utf8_scanner.hpp"

namespace dfx::convert {

// What the caller wants done with one top-level member.
enum class member_use : unsigned char {
    skip,            // validate and drop
    value,           // deliver the whole value through json_member_handler::value
    elements,        // deliver each element of an array value; a non-array value is delivered whole
    batches,         // deliver the elements of an array value in runs (json_member_handler::batch);
                     // a non-array value is delivered whole
    nested_batches,  // an array of arrays (one lane per thread): the elements of each inner array in
                     // runs, with the inner array's index; an element that is no array goes to element();
                     // a non-array value is delivered whole
    lanes_only,      // as nested_batches, but the inner arrays' elements are validated and dropped,
                     // not delivered: array_end still counts the lanes (no copy of what is not read)
};

// Where a batch's elements sit: elements first .. first + count - 1 of the
// member's array or, for nested_batches, of its inner array number `outer`.
struct element_batch {
    std::size_t outer = 0;
    std::size_t first = 0;
    std::size_t count = 0;
};

class json_member_handler {
public:
    virtual ~json_member_handler() = default;
    // Called once per top-level key, in file order. A top-level array (instead
    // of an object) is offered as the single member with the empty key "".
    virtual member_use use(std::string_view key) = 0;
    // The whole value of a member (member_use::value, or a non-array value of the others).
    virtual void value(std::string_view key, simdjson::padded_string_view json) = 0;
    // One element of an array member, with its position in the array.
    virtual void element(std::string_view key, std::size_t index, simdjson::padded_string_view json) = 0;
    // member_use::batches / nested_batches: "[e1,e2,...]", the elements as the
    // file has them (its bytes between the brackets are the file's bytes from
    // value_offset on).
    virtual void batch(std::string_view /*key*/, const element_batch& /*at*/, simdjson::padded_string_view /*json*/) {
        throw std::logic_error("json_member_handler: batches asked for but not taken");
    }
    // After the last element of any array member (skipped ones too): its length.
    virtual void array_end(std::string_view /*key*/, std::size_t /*count*/) {}

    // File offset of the first byte of the value (or element, or a batch's
    // first element) being delivered, set by the stream before each
    // value() / element() / batch() call, for messages ("<file>: at byte N:
    // edges[3].pred: ..."). Only read it inside those calls.
    std::uint64_t value_offset = 0;
};

class json_object_stream {
public:
    static constexpr std::size_t max_depth = 1024;

    // `allow_top_array`: accept a top-level array (offered as the member "")
    // besides a top-level object.
    // A batch is cut after the element that brings it to this many bytes.
    static constexpr std::size_t default_batch_bytes = std::size_t{256} << 10;

    // `allow_top_array`: accept a top-level array (offered as the member "")
    // besides a top-level object. Tests make the blocks and batches tiny, to
    // cross every boundary.
    explicit json_object_stream(std::string path, bool allow_top_array = false, std::size_t block_size = std::size_t{1} << 20,
                                std::size_t batch_bytes = default_batch_bytes)
        : path_(std::move(path)), block_size_(block_size), batch_bytes_(batch_bytes), allow_top_array_(allow_top_array) {}

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
    enum class capture : unsigned char { none, key, value, batch };
    static bool is_ws(unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
    static bool is_digit(unsigned char c) { return json_number_scanner::is_digit(c); }
    static std::size_t skip_ws(const char* p, std::size_t i) {
        while (is_ws(static_cast<unsigned char>(p[i]))) ++i;  // the sentinel at p[n] stops it
        return i;
    }
    static std::string describe(unsigned char c) {  // for messages
        if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
        static constexpr char hex[] = "0123456789abcdef";
        return std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
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
        if (is_digit(c) && depth_ >= deep_from_) {
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
        } else if (depth_ >= deep_from_) {  // strings and containers inside an element: nothing to note either
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
        i = json_string_scanner::skip_plain(p, i);  // the sentinel at p[n], a control byte, stops it
        if (i == n) { st_ = state::string; goto out; }  // the string goes on in the next block
        if (p[i] == '"') {
            const bool key = in_key_;
            // Most strings end inside an element and need nothing: only a
            // captured key or a value at a shallow depth goes further.
            if (key ? cap_ == capture::key : depth_ < deep_from_) end_string(p, i);
            ++i;
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
        if (!json_string_scanner::simple_escape(c)) fail(i, "invalid escape sequence in a string");
        ++i;
        goto string;
    unicode:
        for (; unicode_left_ > 0; --unicode_left_, ++i) {
            if (i == n) { st_ = state::unicode; goto out; }
            if (!json_string_scanner::is_hex(static_cast<unsigned char>(p[i]))) fail(i, "invalid \\u escape in a string");
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
            if (num_.in_digit_run()) {
                while (is_digit(static_cast<unsigned char>(p[i]))) ++i;
            }
            if (i == n) { st_ = state::number; goto out; }
            if (!num_.step(static_cast<unsigned char>(p[i]))) break;
            ++i;
        }
        // This byte ends the number and belongs to what follows.
        if (!num_.complete()) fail(i, "malformed number");
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

    // A value starts at p[i] (first byte c). Depth 1 is a top-level member's
    // value; depth 2 an element of a member's array. A top-level array is
    // treated as the value of a member named "".
    void begin_value(std::size_t i, unsigned char c) {
        const std::size_t depth = depth_;
        if (depth < deep_from_) note_value_start(i, c, depth);  // deeper values are inside an element: nothing to note
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
        default:
            if (c != '-' && !is_digit(c)) fail(i, ("expected a JSON value, found " + describe(c)).c_str());
            num_.begin(c);
        }
    }

    // The top level, a member's value, an element or (nested_batches) an
    // inner array's element starts: note arrays and captures.
    void note_value_start(std::size_t i, unsigned char c, std::size_t depth) {
        const std::size_t elements_at = top_array_ ? 1 : 2;
        if (depth == 0) {
            if (c != '{' && (c != '[' || !allow_top_array_)) fail(i, "the top-level value is not a JSON object");
            if (c == '[') {
                top_array_ = true;
                key_.clear();
                ask_use();
                in_array_member_ = true;
                element_count_ = 0;
            }
        } else if (depth == 1 && !top_array_) {
            if (c == '[') {
                in_array_member_ = true;
                element_count_ = 0;
            }
            if (use_ == member_use::value || (use_ != member_use::skip && c != '[')) start_capture(i, 1, capture::value);
        } else if (depth == elements_at && in_array_member_) {
            ++element_count_;
            if (use_ == member_use::elements) {
                start_capture(i, depth, capture::value);
            } else if (use_ == member_use::batches) {
                add_to_batch(i, depth, 0, element_count_ - 1);
            } else if (use_ == member_use::nested_batches || use_ == member_use::lanes_only) {
                if (c == '[') {
                    in_inner_array_ = true;
                    inner_count_ = 0;
                } else {
                    start_capture(i, depth, capture::value);  // no lane: the handler says what it makes of it
                }
            }
        } else if (depth == elements_at + 1 && in_inner_array_) {
            ++inner_count_;
            if (use_ == member_use::nested_batches) add_to_batch(i, depth, element_count_ - 1, inner_count_ - 1);
        }
    }

    void ask_use() {
        use_ = handler_->use(key_);
        // An inner array's elements sit one level deeper than a member's. Not
        // for lanes_only: its lanes are counted at the member's depth, their
        // elements only scanned (noting each of the records file's phase
        // records was 12 M of the 730 M instructions `dfx deps` spent reading
        // it at 5x10^4 tasks).
        deep_from_ = use_ == member_use::nested_batches ? 4 : 3;
    }

    // An element starts at p[i]: it opens a batch or joins the open one.
    void add_to_batch(std::size_t i, std::size_t depth, std::size_t outer, std::size_t index) {
        if (cap_ != capture::batch) {
            start_capture(i, depth, capture::batch);
            buf_.push_back('[');
            batch_ = element_batch{outer, index, 0};
        }
        ++batch_.count;
    }

    // The open batch ends just before p[end] (after an element, or at the
    // closing bracket of its array): delivered as "[...]".
    void deliver_batch(const char* p, std::size_t end) {
        cap_ = capture::none;
        buf_.append(p + cap_from_, end - cap_from_);
        buf_.push_back(']');
        buf_.reserve(buf_.size() + simdjson::SIMDJSON_PADDING);
        handler_->value_offset = cap_at_;
        handler_->batch(key_, batch_, simdjson::padded_string_view(buf_.data(), buf_.size(), buf_.capacity()));
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
            throw input_error(path_ + ": at byte " + std::to_string(key_at_) + ": duplicate top-level key \"" + printable_json_key(key_) + "\"");
        ask_use();
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

    void start_capture(std::size_t i, std::size_t depth, capture kind) {
        cap_ = kind;
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
        if (depth < deep_from_) finish_shallow_value(p, end, depth);  // deeper values are inside an element
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
        } else if (cap_ == capture::batch && depth == cap_depth_ && buf_.size() + (end - cap_from_) >= batch_bytes_) {
            deliver_batch(p, end);  // an element ended and the batch is big enough
        }
        if (in_inner_array_ && depth == (top_array_ ? 1u : 2u)) {  // an inner array is complete
            in_inner_array_ = false;
            if (cap_ == capture::batch) deliver_batch(p, end - 1);  // up to its ']'
        }
        if (in_array_member_ && depth == (top_array_ ? 0u : 1u)) {  // the member's array is complete
            in_array_member_ = false;
            if (cap_ == capture::batch) deliver_batch(p, end - 1);
            handler_->array_end(key_, element_count_);
        }
    }

    std::string path_;
    std::size_t block_size_;
    std::size_t batch_bytes_;
    bool allow_top_array_;
    json_member_handler* handler_ = nullptr;
    std::uint64_t base_ = 0;  // file offset of the block being scanned
    std::size_t block_len_ = 0;  // bytes in it

    state st_ = state::value;  // where the next block resumes (feed parks it there)
    json_number_scanner num_;
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
    std::size_t deep_from_ = 3;     // values at this depth and deeper are inside an element: not noted
    bool in_array_member_ = false;  // inside the array value of a top-level member
    std::size_t element_count_ = 0;
    bool in_inner_array_ = false;   // nested_batches: inside one of the member's inner arrays
    std::size_t inner_count_ = 0;
    element_batch batch_;           // the batch being captured

    capture cap_ = capture::none;
    std::size_t cap_depth_ = 0;
    std::size_t cap_from_ = 0;  // where the capture resumes in the current block
    std::uint64_t cap_at_ = 0;  // file offset where the captured value began
    std::string buf_;           // captured bytes (plus simdjson padding capacity)
    simdjson::ondemand::parser key_parser_;
};

}  // namespace dfx::convert
