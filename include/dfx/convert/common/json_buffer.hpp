// json_buffer: JSON text formatted straight into a block of memory.
//
// The converters write traces of millions of small events; each number or
// literal is a plain copy into a block with room to spare, so an event costs
// no allocation. A plain json_buffer grows when full; json_file_writer
// (json_writer.hpp) hands its full block to a writer thread instead.
//
// Numbers follow Python's json module (the reference tools are Python), so
// our output reads the same: integers in decimal, floats as the shortest
// repr that round-trips ("2.3000000000000003", "10.0", "1e-05"), formatted
// with a compiled {fmt} format (no format-string parsing per number).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "dfx/io/json_string.hpp"

namespace dfx::convert {

// Writes the Python repr() of a finite double at `out` (at least 32 bytes)
// and returns its length: the shortest digits that round-trip, in fixed
// notation when the decimal exponent is in [-4, 16), else scientific
// ("1e-05", "1.5e+16"). {fmt}'s shortest format (Dragonbox, compiled format
// string) uses the same thresholds and spelling; Python adds ".0" to
// integral values ("10.0"), which {fmt} leaves out.
inline std::size_t py_float_chars(char* out, double x) {
    char* end = fmt::format_to(out, FMT_COMPILE("{}"), x);
    for (const char* p = out; p != end; ++p) {
        if (*p == '.' || *p == 'e') return static_cast<std::size_t>(end - out);
    }
    *end++ = '.';
    *end++ = '0';
    return static_cast<std::size_t>(end - out);
}

// Appends the Python repr() of a double to `out`. Non-finite values, which
// JSON cannot carry, are written as null.
template <class Out>
void append_py_float(Out& out, double x) {
    if (!std::isfinite(x)) {
        out.append(std::string_view{"null"});
        return;
    }
    char tmp[40];
    out.append(std::string_view(tmp, py_float_chars(tmp, x)));
}

// Bytes being formatted: the append_* interface over one owned block.
class json_buffer {
public:
    json_buffer() = default;
    // Adopts a block of `capacity` bytes (not zeroed: pages are touched, and
    // faulted in, only as output fills them).
    json_buffer(std::unique_ptr<char[]> block, std::size_t capacity) noexcept
        : block_(std::move(block)), buf_(block_.get()), capacity_(capacity) {}
    json_buffer(json_buffer&& o) noexcept
        : block_(std::move(o.block_)), buf_(std::exchange(o.buf_, nullptr)),
          capacity_(std::exchange(o.capacity_, 0)), size_(std::exchange(o.size_, 0)) {}
    json_buffer& operator=(json_buffer&& o) noexcept {
        block_ = std::move(o.block_);
        buf_ = std::exchange(o.buf_, nullptr);
        capacity_ = std::exchange(o.capacity_, 0);
        size_ = std::exchange(o.size_, 0);
        return *this;
    }
    json_buffer(const json_buffer&) = delete;
    json_buffer& operator=(const json_buffer&) = delete;
    virtual ~json_buffer() = default;

    // Inline fast path: most appends are short literals that fit the block,
    // and with their length known here the copy compiles to a few moves.
    void append(std::string_view s) {
        if (s.size() <= capacity_ - size_) [[likely]] {
            if (!s.empty()) std::memcpy(buf_ + size_, s.data(), s.size());  // an empty view may carry a null data()
            size_ += s.size();
            return;
        }
        append_spilling(s);
    }
    void push_back(char c) {
        if (size_ == capacity_) make_room(1);
        buf_[size_++] = c;
    }
    void append_float(double x) {
        if (!std::isfinite(x)) {
            append("null");
            return;
        }
        reserve(40);
        size_ += py_float_chars(buf_ + size_, x);
    }
    // A microsecond value of a trace: fixed notation with at most 6 decimals
    // (1 ps), trailing zeros dropped ("2.3", "10.0"). Python's repr would write
    // 2.3000000000000003; both read back as the same time once Perfetto rounds
    // to ns, and this is several times cheaper than a shortest round-trip.
    // Values too large for the fast path fall back to the Python repr.
    void append_us(double x) {
        if (!(x > -1e9 && x < 1e9)) {
            append_float(x);
            return;
        }
        reserve(40);
        char* p = buf_ + size_;
        const double scaled = x * 1e6;  // |scaled| < 1e15: exact in a long long
        long long v = static_cast<long long>(scaled >= 0 ? scaled + 0.5 : scaled - 0.5);
        if (v < 0 || (v == 0 && std::signbit(x))) {
            *p++ = '-';
            v = -v;
        }
        const auto whole = static_cast<unsigned long long>(v / 1000000);
        auto frac = static_cast<unsigned>(v % 1000000);
        p = fmt::format_to(p, FMT_COMPILE("{}"), whole);
        *p++ = '.';
        if (frac == 0) {
            *p++ = '0';
        } else {
            // Six digits, two at a time, then the trailing zeros dropped.
            static constexpr char pairs[] =
                "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                "8081828384858687888990919293949596979899";
            for (int i = 4; i >= 0; i -= 2, frac /= 100) std::memcpy(p + i, pairs + 2 * (frac % 100), 2);
            int n = 6;
            while (p[n - 1] == '0') --n;
            p += n;
        }
        size_ = static_cast<std::size_t>(p - buf_);
    }
    // A string literal in the utf8 style: every converter output that holds
    // names is either compared as JSON (the trace) or written by the
    // reference with ensure_ascii=False (critical_path's CPM files).
    void append_string(std::string_view s) { io::append_json_string(*this, s, io::json_string_style::utf8); }
    template <class Int>
    void append_int(Int v) {
        reserve(48);
        // {fmt}'s integer path (digit count from the bit length, two digits
        // per step): profiles of a 50k-task trace put integer formatting at
        // about 60 ms with it against 73 ms with std::to_chars.
        size_ = static_cast<std::size_t>(fmt::format_to(buf_ + size_, FMT_COMPILE("{}"), v) - buf_);
    }

    [[nodiscard]] const char* data() const noexcept { return buf_; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
    [[nodiscard]] std::string_view view() const noexcept { return {buf_, size_}; }
    // Gives the block away (with its capacity); the buffer is left empty.
    std::unique_ptr<char[]> release() noexcept {
        buf_ = nullptr;
        capacity_ = 0;
        size_ = 0;
        return std::move(block_);
    }

protected:
    // Called when `n` more bytes do not fit. A plain buffer grows; a file
    // writer hands its block over and continues in a fresh one.
    virtual void make_room(std::size_t n) { grow(size_ + n); }
    void grow(std::size_t at_least) {
        const std::size_t capacity = std::max({at_least, 2 * capacity_, std::size_t{4096}});
        std::unique_ptr<char[]> bigger(new char[capacity]);
        if (size_ != 0) std::memcpy(bigger.get(), buf_, size_);
        block_ = std::move(bigger);
        buf_ = block_.get();
        capacity_ = capacity;
    }
    void reserve(std::size_t n) {
        if (n > capacity_ - size_) make_room(n);
    }

    std::unique_ptr<char[]> block_;
    char* buf_ = nullptr;
    std::size_t capacity_ = 0;
    std::size_t size_ = 0;

private:
    // Larger than the room left: fill what is left, make room, go on (a
    // file writer may give less room than asked for, never none).
    [[gnu::noinline]] void append_spilling(std::string_view s) {
        while (s.size() > capacity_ - size_) {
            const std::size_t part = capacity_ - size_;
            if (part != 0) std::memcpy(buf_ + size_, s.data(), part);
            size_ = capacity_;
            s.remove_prefix(part);
            make_room(s.size());
        }
        std::memcpy(buf_ + size_, s.data(), s.size());
        size_ += s.size();
    }
};

}  // namespace dfx::convert
