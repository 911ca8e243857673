// json_stream: walk one large JSON document from a file with bounded memory.
//
// simdjson parses a whole document that sits in memory (plus an index of
// four bytes per structural character), so a 1 GB records file cannot go to
// it in one piece. The converters' inputs are, however, a top-level object of
// a few keys whose values are long arrays of small elements (tuples, phase
// objects, edges). json_stream walks that outer structure itself, reading the
// file in fixed-size chunks, and hands each small element to simdjson On-Demand
// as its own padded document (`capture`). Values the caller does not need are
// skipped without being stored (`skip`).
//
// Everything the stream passes over is validated against the JSON grammar
// (structure, strings, escapes, UTF-8, numbers, literals), so a skipped section cannot
// hide a malformed file; captured elements are validated again by simdjson
// when the caller reads them. Errors throw dfx::convert::input_error with the
// file name, what was expected and the byte offset.
//
// Usage (the caller drives the walk):
//
//     json_stream js{path};
//     js.enter_object();
//     std::string key;
//     while (js.next_key(key)) {
//         if (key == "rows") { js.enter_array(); while (js.next_item()) use(js.capture()); }
//         else js.skip();
//     }
//     js.expect_end();
#pragma once

#include <simdjson.h>

#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/input_file.hpp"
#include "dfx/convert/common/io_progress.hpp"

namespace dfx::convert {

class json_stream {
public:
    // Elements larger than this are refused by capture(): a single tuple or
    // phase object is a few hundred bytes, so a multi-megabyte "element" is a
    // malformed or hostile file, and refusing it keeps memory bounded.
    static constexpr std::size_t default_capture_limit = std::size_t{64} << 20;

    explicit json_stream(std::string path, std::size_t chunk_bytes = std::size_t{1} << 20)
        : path_(std::move(path)), buf_(chunk_bytes) {
        const int fd = open_input(path_);  // a FIFO without a writer or a device: an error, not a hang
        file_.reset(::fdopen(fd, "rb"));
        if (!file_) {
            const int err = errno;
            ::close(fd);
            throw input_error(fmt::format("{}: cannot open: {}", path_, std::strerror(err)));
        }
    }

    [[nodiscard]] const std::string& path() const noexcept { return path_; }
    // Byte offset of the next unread byte (for messages).
    [[nodiscard]] std::uint64_t offset() const noexcept { return consumed_ + pos_; }

    // Throws input_error "<file>: <what> (at byte N)".
    [[noreturn]] void fail(std::string_view what) const { fail_at_byte(offset(), what); }
    [[noreturn]] void fail_at_byte(std::uint64_t byte, std::string_view what) const {
        throw input_error(fmt::format("{}: {} (at byte {})", path_, what, byte));
    }

    // The first significant byte of the next value (without consuming it):
    // '{', '[', '"', 't', 'f', 'n', '-' or a digit. Fails at end of input.
    char peek() {
        skip_ws();
        const int c = peek_byte();
        if (c < 0) fail("unexpected end of file (the file is truncated)");
        return static_cast<char>(c);
    }
    // Kind of the next value, for messages: "object", "array", "string", ...
    std::string_view peek_kind() {
        switch (peek()) {
            case '{': return "an object";
            case '[': return "an array";
            case '"': return "a string";
            case 't':
            case 'f': return "a boolean";
            case 'n': return "null";
            default: return "a number";
        }
    }

    // ---- containers -----------------------------------------------------
    void enter_object() {
        if (peek() != '{') fail(fmt::format("expected an object, found {}", peek_kind()));
        ++pos_;
        open_.push_back(frame{'}', true});
    }
    void enter_array() {
        if (peek() != '[') fail(fmt::format("expected an array, found {}", peek_kind()));
        ++pos_;
        open_.push_back(frame{']', true});
    }
    // Inside an object: reads the next key and its ':' into `key` (unescaped).
    // Returns false (and leaves the object) at its closing '}'. After true,
    // exactly one value must be consumed (capture, skip or enter_*).
    bool next_key(std::string& key) {
        if (!advance_in('}')) return false;
        if (peek() != '"') fail("expected a string key");
        const std::uint64_t key_at = offset();
        ++pos_;
        key.clear();
        read_string_into(&key);
        // A repeated top-level key is refused: Python's json keeps the last
        // value, a streaming reader would use the first, and either way one
        // of the two values is silently ignored.
        if (open_.size() == 1) {
            if (!top_keys_.insert(key).second)
                fail_at_byte(key_at, fmt::format("duplicate top-level key \"{}\"", key));
        }
        if (peek() != ':') fail("expected ':' after an object key");
        ++pos_;
        return true;
    }
    // Inside an array: true when another element follows (consume it next),
    // false (and leaves the array) at its closing ']'.
    bool next_item() { return advance_in(']'); }

    // ---- values ---------------------------------------------------------
    // Copies the next complete value into an internal buffer padded for
    // simdjson and returns a view of it (valid until the next capture).
    simdjson::padded_string_view capture(std::size_t limit = default_capture_limit) {
        captured_.clear();
        skip_ws();
        capture_limit_ = limit;
        capturing_ = true;
        mark_ = pos_;
        try {
            scan_value(0);
        } catch (...) {
            capturing_ = false;
            throw;
        }
        captured_.append(buf_.data() + mark_, pos_ - mark_);
        capturing_ = false;
        captured_.reserve(captured_.size() + simdjson::SIMDJSON_PADDING);
        return simdjson::padded_string_view(captured_.data(), captured_.size(), captured_.capacity());
    }
    // Inside an array: copies the next elements - at least one, then more
    // while the batch is under `target_bytes` - into one padded document
    // "[e1, e2, ...]" so that simdjson parses many small elements per call.
    // Returns the number of elements taken; 0 when the array is over (and
    // left). Element bounds come from a quick bracket / string scan; their
    // content is validated by simdjson as the caller reads them.
    std::size_t capture_batch(std::size_t target_bytes, simdjson::padded_string_view& out) {
        if (!advance_in(']')) return 0;
        captured_.assign(1, '[');
        capture_limit_ = default_capture_limit + target_bytes;
        capturing_ = true;
        mark_ = pos_;
        std::size_t count = 0;
        try {
            for (;;) {
                scan_raw_value();
                ++count;
                skip_ws();
                if (peek_byte() != ',' || captured_.size() + (pos_ - mark_) >= target_bytes) break;
                ++pos_;  // the comma; the next element follows
                skip_ws();
                const int c = peek_byte();
                if (c == ']') fail("trailing comma");
            }
        } catch (...) {
            capturing_ = false;
            throw;
        }
        captured_.append(buf_.data() + mark_, pos_ - mark_);
        capturing_ = false;
        captured_.push_back(']');
        captured_.reserve(captured_.size() + simdjson::SIMDJSON_PADDING);
        out = simdjson::padded_string_view(captured_.data(), captured_.size(), captured_.capacity());
        return count;
    }

    // Inside an array: calls f(batch, end_offset) for every capture_batch of
    // it, in order, and leaves the array. `end_offset` is the byte offset just
    // past the batch, for the caller's messages (offset() must not be used
    // inside f: the stream may be ahead). When the array is longer than one
    // batch, the next batches are scanned on a second thread while f parses
    // this one: scanning is a third of reading a large records file, and the
    // two overlap on two cores. The first error in file order wins: a batch
    // that f rejects precedes the scan error of any later batch. When f
    // throws, the thread finishes the batch it is scanning before it stops
    // (so a stalled pipe would hold the error up; inputs are files), and the
    // stream is left somewhere after the failing batch: callers give up.
    // captured_text() does not hold the last batch afterwards.
    template <class F>
    void for_each_batch(std::size_t target_bytes, F&& f) {
        simdjson::padded_string_view batch;
        if (capture_batch(target_bytes, batch) == 0) return;
        if (peek_byte() != ',') {  // one batch holds the whole array: no thread
            f(batch, offset());
            capture_batch(target_bytes, batch);  // leaves the array (or reports what follows instead of ']')
            return;
        }
        // The scanner captures into captured_: the first batch moves out of its way.
        const std::uint64_t first_end = offset();
        std::string first = std::move(captured_);
        captured_ = std::string();
        batch_prefetcher ahead(*this, target_bytes);
        f(simdjson::padded_string_view(first.data(), batch.size(), first.capacity()), first_end);
        while (const auto* next = ahead.next()) f(next->view(), next->end_offset);
    }

    // The text of the last capture (for messages).
    [[nodiscard]] std::string_view captured_text() const noexcept { return captured_; }

    // Validates and discards the next value.
    void skip() {
        skip_ws();
        scan_value(0);
    }

    // After the root value: only whitespace may follow.
    void expect_end() {
        if (!open_.empty()) fail("internal: expect_end inside a container");
        skip_ws();
        if (peek_byte() >= 0) fail("unexpected data after the end of the JSON document");
    }

private:
    struct frame {
        char close;
        bool first;
    };
    struct file_closer {
        void operator()(std::FILE* f) const noexcept { std::fclose(f); }
    };
    static constexpr int max_depth = 512;

    // for_each_batch's scanner thread: capture_batch in a loop, at most two
    // batches ahead of the consumer. The stream belongs to this thread until
    // the array ends (or the prefetcher is destroyed, which stops and joins it).
    class batch_prefetcher {
    public:
        struct slot {
            std::string bytes;  // capacity includes simdjson's padding
            std::size_t size = 0;
            std::uint64_t end_offset = 0;
            [[nodiscard]] simdjson::padded_string_view view() const {
                return simdjson::padded_string_view(bytes.data(), size, bytes.capacity());
            }
        };

        batch_prefetcher(json_stream& js, std::size_t target_bytes)
            : js_(js), target_bytes_(target_bytes), thread_([this] { scan(); }) {}
        batch_prefetcher(const batch_prefetcher&) = delete;
        batch_prefetcher& operator=(const batch_prefetcher&) = delete;
        ~batch_prefetcher() {
            {
                std::lock_guard lock(mutex_);
                stopping_ = true;
            }
            room_.notify_one();
            thread_.join();
        }

        // The next batch (valid until the next call), or nullptr once the
        // array is over; the scan's error, if any, is thrown in its place.
        const slot* next() {
            std::unique_lock lock(mutex_);
            if (!current_.bytes.empty()) spare_ = std::move(current_.bytes);  // recycled for the next capture
            ready_cv_.wait(lock, [&] { return !ready_.empty() || finished_; });
            if (ready_.empty()) {
                if (error_) std::rethrow_exception(error_);
                return nullptr;
            }
            current_ = std::move(ready_.front());
            ready_.pop_front();
            room_.notify_one();
            return &current_;
        }

    private:
        void scan() {
            try {
                for (;;) {
                    {
                        std::unique_lock lock(mutex_);
                        room_.wait(lock, [&] { return ready_.size() < 2 || stopping_; });
                        if (stopping_) return;
                        js_.captured_ = std::move(spare_);
                        spare_ = std::string();
                    }
                    simdjson::padded_string_view batch;
                    if (js_.capture_batch(target_bytes_, batch) == 0) break;
                    slot s{std::move(js_.captured_), batch.size(), js_.offset()};
                    std::lock_guard lock(mutex_);
                    ready_.push_back(std::move(s));
                    ready_cv_.notify_one();
                }
            } catch (...) {
                std::lock_guard lock(mutex_);
                error_ = std::current_exception();
            }
            std::lock_guard lock(mutex_);
            finished_ = true;
            ready_cv_.notify_one();
        }

        json_stream& js_;
        std::size_t target_bytes_;
        std::mutex mutex_;
        std::condition_variable ready_cv_, room_;
        std::deque<slot> ready_;
        slot current_;
        std::string spare_;
        bool stopping_ = false, finished_ = false;
        std::exception_ptr error_;
        std::thread thread_;  // last: starts once everything above is built
    };

    // Comma handling shared by next_key / next_item.
    bool advance_in(char close) {
        if (open_.empty() || open_.back().close != close) fail("internal: unbalanced json_stream walk");
        char c = peek();
        if (c == close) {
            ++pos_;
            open_.pop_back();
            return false;
        }
        if (open_.back().first) {
            open_.back().first = false;
        } else {
            if (c != ',') fail(fmt::format("expected ',' or '{}'", close));
            ++pos_;
            c = peek();
            if (c == close) fail("trailing comma");
        }
        return true;
    }

    bool refill() {
        if (capturing_) {
            captured_.append(buf_.data() + mark_, end_ - mark_);
            if (captured_.size() > capture_limit_) {
                fail(fmt::format("a single element is larger than {} bytes", capture_limit_));
            }
            mark_ = 0;
        }
        consumed_ += end_;
        pos_ = 0;
        end_ = 0;
        if (eof_) return false;
        end_ = std::fread(buf_.data(), 1, buf_.size(), file_.get());
        io_progress::add_read(end_);
        if (end_ < buf_.size()) {
            if (std::ferror(file_.get())) {
                throw input_error(fmt::format("{}: read error: {}", path_, std::strerror(errno)));
            }
            eof_ = true;
        }
        return end_ > 0;
    }
    int peek_byte() {
        if (pos_ == end_ && !refill()) return -1;
        return static_cast<unsigned char>(buf_[pos_]);
    }
    int get_byte() {
        if (pos_ == end_ && !refill()) return -1;
        return static_cast<unsigned char>(buf_[pos_++]);
    }
    int need_byte(std::string_view inside) {
        const int c = get_byte();
        if (c < 0) fail(fmt::format("unexpected end of file inside {} (the file is truncated)", inside));
        return c;
    }
    void skip_ws() {
        for (;;) {
            while (pos_ < end_) {
                const char c = buf_[pos_];
                if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
                ++pos_;
            }
            if (!refill()) return;
        }
    }

    // One complete value, bounds only (strings, escapes and bracket nesting);
    // used for batches that simdjson validates afterwards.
    void scan_raw_value() {
        int c = peek_byte();
        if (c < 0) fail("unexpected end of file (the file is truncated)");
        if (c == '"') {
            ++pos_;
            read_string_into(nullptr);
            return;
        }
        if (c != '[' && c != '{') {  // a scalar: up to the next delimiter
            if (c == ',' || c == ']' || c == '}' || c == ':') fail(fmt::format("unexpected character '{}'", printable(c)));
            for (;;) {
                while (pos_ < end_) {
                    const char b = buf_[pos_];
                    if (b == ',' || b == ']' || b == '}' || b == ' ' || b == '\n' || b == '\r' || b == '\t') return;
                    ++pos_;
                }
                if (!refill()) return;
            }
        }
        raw_closers_.clear();
        for (;;) {
            while (pos_ < end_) {
                // Skip the bytes that cannot change the nesting (digits, commas, ...).
                while (pos_ < end_ && !structural_[static_cast<unsigned char>(buf_[pos_])]) ++pos_;
                if (pos_ == end_) break;
                const char b = buf_[pos_++];
                if (b == '"') {
                    read_string_into(nullptr);
                } else if (b == '[' || b == '{') {
                    if (raw_closers_.size() > static_cast<std::size_t>(max_depth)) fail("nesting too deep");
                    raw_closers_.push_back(b == '[' ? ']' : '}');
                } else if (b == ']' || b == '}') {
                    if (raw_closers_.empty() || raw_closers_.back() != b) fail(fmt::format("unexpected '{}'", b));
                    raw_closers_.pop_back();
                    if (raw_closers_.empty()) return;
                }
            }
            if (!refill()) fail("unexpected end of file (the file is truncated)");
        }
    }

    // One complete value, validated. The opening byte is not yet consumed.
    void scan_value(int depth) {
        if (depth > max_depth) fail("nesting too deep");
        const int c = peek_byte();
        if (c < 0) fail("unexpected end of file (the file is truncated)");
        switch (c) {
            case '{': scan_object(depth); return;
            case '[': scan_array(depth); return;
            case '"': ++pos_; read_string_into(nullptr); return;
            case 't': scan_literal("true"); return;
            case 'f': scan_literal("false"); return;
            case 'n': scan_literal("null"); return;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    scan_number();
                    return;
                }
                fail(fmt::format("unexpected character '{}'", printable(c)));
        }
    }
    void scan_object(int depth) {
        ++pos_;
        skip_ws();
        if (peek_byte() == '}') {
            ++pos_;
            return;
        }
        for (;;) {
            skip_ws();
            if (need_byte("an object") != '"') fail("expected a string key");
            read_string_into(nullptr);
            skip_ws();
            if (need_byte("an object") != ':') fail("expected ':' after an object key");
            skip_ws();
            scan_value(depth + 1);
            skip_ws();
            const int c = need_byte("an object");
            if (c == '}') return;
            if (c != ',') fail("expected ',' or '}' in an object");
        }
    }
    void scan_array(int depth) {
        ++pos_;
        skip_ws();
        if (peek_byte() == ']') {
            ++pos_;
            return;
        }
        for (;;) {
            skip_ws();
            scan_value(depth + 1);
            skip_ws();
            const int c = need_byte("an array");
            if (c == ']') return;
            if (c != ',') fail("expected ',' or ']' in an array");
        }
    }
    void scan_literal(std::string_view word) {
        for (const char w : word) {
            if (need_byte("a literal") != w) fail(fmt::format("invalid literal (expected '{}')", word));
        }
    }
    void scan_number() {
        int c = peek_byte();
        if (c == '-') {
            ++pos_;
            c = peek_byte();
        }
        if (c == '0') {
            ++pos_;
        } else if (c >= '1' && c <= '9') {
            scan_digits();
        } else {
            fail("invalid number");
        }
        c = peek_byte();
        if (c == '.') {
            ++pos_;
            if (!is_digit(peek_byte())) fail("invalid number (no digit after '.')");
            scan_digits();
            c = peek_byte();
        }
        if (c == 'e' || c == 'E') {
            ++pos_;
            c = peek_byte();
            if (c == '+' || c == '-') ++pos_;
            if (!is_digit(peek_byte())) fail("invalid number (no digit in exponent)");
            scan_digits();
        }
    }
    void scan_digits() {
        for (;;) {
            while (pos_ < end_ && is_digit(static_cast<unsigned char>(buf_[pos_]))) ++pos_;
            if (pos_ < end_ || !refill()) return;
        }
    }
    // After the opening quote. Appends the unescaped text to `out` when given.
    void read_string_into(std::string* out) {
        for (;;) {
            // Fast path: plain characters up to the next quote / escape / control.
            std::size_t p = pos_;
            while (p < end_ && !string_stop_[static_cast<unsigned char>(buf_[p])]) ++p;
            if (out) out->append(buf_.data() + pos_, p - pos_);
            pos_ = p;
            if (pos_ == end_) {  // the string goes on in the next chunk
                if (!refill()) fail("unexpected end of file inside a string (the file is truncated)");
                continue;
            }
            const int c = need_byte("a string");
            if (c == '"') return;
            if (c >= 0x80) {  // a multi-byte character: valid UTF-8, or the file is not JSON
                if (out) out->push_back(static_cast<char>(c));
                read_utf8_tail(c, out);
                continue;
            }
            if (c != '\\') fail("control character inside a string");
            const int e = need_byte("a string");
            switch (e) {
                case '"': case '\\': case '/':
                    if (out) out->push_back(static_cast<char>(e));
                    break;
                case 'b': if (out) out->push_back('\b'); break;
                case 'f': if (out) out->push_back('\f'); break;
                case 'n': if (out) out->push_back('\n'); break;
                case 'r': if (out) out->push_back('\r'); break;
                case 't': if (out) out->push_back('\t'); break;
                case 'u': {
                    unsigned cp = 0;
                    for (int i = 0; i < 4; ++i) {
                        const int h = need_byte("a string");
                        cp = cp * 16 + hex_value(h);
                    }
                    if (out) append_utf8(*out, cp);
                    break;
                }
                default: fail("invalid escape in a string");
            }
        }
    }
    unsigned hex_value(int h) const {
        if (h >= '0' && h <= '9') return static_cast<unsigned>(h - '0');
        if (h >= 'a' && h <= 'f') return static_cast<unsigned>(h - 'a' + 10);
        if (h >= 'A' && h <= 'F') return static_cast<unsigned>(h - 'A' + 10);
        fail("invalid \\u escape in a string");
    }
    // Keys only need to compare equal to ASCII names; surrogate pairs are kept
    // as two code points, which is enough for that.
    // The continuation bytes of a UTF-8 sequence that began with `lead`:
    // overlong forms, surrogates and code points above U+10FFFF are invalid
    // (RFC 3629), as simdjson holds the values it parses to.
    void read_utf8_tail(int lead, std::string* out) {
        int n = 0;
        unsigned cp = 0;
        if (lead >= 0xC2 && lead <= 0xDF) n = 1, cp = static_cast<unsigned>(lead & 0x1F);
        else if (lead >= 0xE0 && lead <= 0xEF) n = 2, cp = static_cast<unsigned>(lead & 0x0F);
        else if (lead >= 0xF0 && lead <= 0xF4) n = 3, cp = static_cast<unsigned>(lead & 0x07);
        else fail("invalid UTF-8 in a string");
        for (int i = 0; i < n; ++i) {
            const int b = need_byte("a string");
            if ((b & 0xC0) != 0x80) fail("invalid UTF-8 in a string");
            if (out) out->push_back(static_cast<char>(b));
            cp = (cp << 6) | static_cast<unsigned>(b & 0x3F);
        }
        if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
            fail("invalid UTF-8 in a string");
    }

    static void append_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }
    static bool is_digit(int c) noexcept { return c >= '0' && c <= '9'; }
    static std::string printable(int c) {
        if (c >= 0x20 && c < 0x7F) return std::string(1, static_cast<char>(c));
        return fmt::format("\\x{:02x}", c);
    }

    std::string path_;
    std::unique_ptr<std::FILE, file_closer> file_;
    std::vector<char> buf_;
    std::size_t pos_ = 0;
    std::size_t end_ = 0;
    std::uint64_t consumed_ = 0;
    bool eof_ = false;
    std::vector<frame> open_;
    std::set<std::string> top_keys_;  // the top-level object's keys so far
    // capture state
    std::string captured_;
    bool capturing_ = false;
    std::size_t mark_ = 0;
    std::size_t capture_limit_ = default_capture_limit;
    std::string raw_closers_;  // scan_raw_value's bracket stack
    static constexpr auto string_stop_ = [] {  // bytes that end a run of plain string characters
        std::array<bool, 256> t{};
        for (int c = 0; c < 0x20; ++c) t[static_cast<std::size_t>(c)] = true;
        for (int c = 0x80; c < 0x100; ++c) t[static_cast<std::size_t>(c)] = true;  // checked as UTF-8
        t['"'] = t['\\'] = true;
        return t;
    }();
    static constexpr auto structural_ = [] {
        std::array<bool, 256> t{};
        for (const unsigned char c : {'"', '[', ']', '{', '}'}) t[c] = true;
        return t;
    }();
};

}  // namespace dfx::convert
