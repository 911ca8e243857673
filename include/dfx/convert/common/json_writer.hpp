// json_writer: fast streaming JSON output to a file, written atomically.
//
// The converters write traces of millions of events, so output is formatted
// into large blocks that a background thread writes out while the next block
// fills (background_writer.hpp); nothing is kept per event. The file is
// written as "<path>.tmp.<pid>" and renamed over <path> by commit(), so a
// failed conversion never leaves a truncated file that looks like a valid
// trace, and two conversions to one path never share a temporary.
//
// Numbers follow Python's json module (the reference tools are Python), so
// our output reads the same: integers in decimal, floats as the shortest
// repr that round-trips ("2.3000000000000003", "10.0", "1e-05"), formatted
// with a compiled {fmt} format (no format-string parsing per number).
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/compile.h>
#include <fmt/format.h>

#include <sys/stat.h>
#include <unistd.h>

#include "dfx/convert/common/background_writer.hpp"
#include "dfx/convert/common/input_error.hpp"

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

// Appends a JSON string literal (quotes and escapes). Non-ASCII UTF-8 is
// written as is, which is valid JSON.
template <class Out>
void append_json_string(Out& out, std::string_view s) {
    out.push_back('"');
    std::size_t run = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(s.substr(run, i - run));
        run = i + 1;
        switch (c) {
            case '"': out.append(std::string_view{"\\\""}); break;
            case '\\': out.append(std::string_view{"\\\\"}); break;
            case '\n': out.append(std::string_view{"\\n"}); break;
            case '\r': out.append(std::string_view{"\\r"}); break;
            case '\t': out.append(std::string_view{"\\t"}); break;
            default: {
                char esc[8];
                char* e = fmt::format_to(esc, "\\u{:04x}", c);
                out.append(std::string_view(esc, static_cast<std::size_t>(e - esc)));
            }
        }
    }
    out.append(s.substr(run));
    out.push_back('"');
}

// A byte buffer with the small interface the append_* helpers use, handed to
// the writer thread in large blocks. Appends are plain copies into a block
// with room to spare, so writing an event costs no allocation.
class json_file_writer {
public:
    explicit json_file_writer(std::string path)
        : path_(std::move(path)),
          direct_(is_special_file(path_)),
          tmp_path_(direct_ ? path_ : path_ + ".tmp." + std::to_string(::getpid())) {
        file_.reset(std::fopen(tmp_path_.c_str(), "wb"));
        if (!file_) throw input_error(fmt::format("{}: cannot create: {}", tmp_path_, std::strerror(errno)));
        writer_.emplace(file_.get(), capacity);
        buf_ = writer_->block();
    }
    json_file_writer(const json_file_writer&) = delete;
    json_file_writer& operator=(const json_file_writer&) = delete;
    ~json_file_writer() {
        if (file_) {  // not committed: drop the partial file
            writer_.reset();
            file_.reset();
            if (!direct_) std::remove(tmp_path_.c_str());
        }
    }

    // Inline fast path: most appends are short literals that fit the block,
    // and with their length known here the copy compiles to a few moves.
    void append(std::string_view s) {
        if (s.size() <= capacity - size_) [[likely]] {
            if (!s.empty()) std::memcpy(buf_ + size_, s.data(), s.size());  // an empty view may carry a null data()
            size_ += s.size();
            return;
        }
        append_spilling(s);
    }
    void push_back(char c) {
        if (size_ == capacity) flush();
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
    void append_string(std::string_view s) { append_json_string(*this, s); }
    template <class Int>
    void append_int(Int v) {
        reserve(48);
        // {fmt}'s integer path (digit count from the bit length, two digits
        // per step): profiles of a 50k-task trace put integer formatting at
        // about 60 ms with it against 73 ms with std::to_chars.
        size_ = static_cast<std::size_t>(fmt::format_to(buf_ + size_, FMT_COMPILE("{}"), v) - buf_);
    }
    // Call between events: writes the buffer out once it holds a block.
    void maybe_flush() {
        if (size_ >= block_bytes) flush();
    }
    [[nodiscard]] std::uint64_t bytes_written() const noexcept { return written_ + size_; }

    // Flushes, closes and renames the temporary file over the target.
    void commit() {
        flush();
        if (const int err = writer_->finish(); err != 0) fail_write(err);
        writer_.reset();
        std::FILE* f = file_.release();
        if (std::fclose(f) != 0) fail_write(errno);
        if (direct_) return;
        if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
            const int err = errno;
            std::remove(tmp_path_.c_str());
            throw input_error(fmt::format("{}: cannot write: {}", path_, std::strerror(err)));
        }
    }

private:
    static constexpr std::size_t block_bytes = std::size_t{1} << 20;
    static constexpr std::size_t capacity = block_bytes + (std::size_t{64} << 10);
    struct file_closer {
        void operator()(std::FILE* f) const noexcept { std::fclose(f); }
    };
    // /dev/null, a pipe or a terminal: written in place (renaming a
    // temporary over a device node would replace the node).
    static bool is_special_file(const std::string& path) {
        struct stat st {};
        return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
    }
    void reserve(std::size_t n) {
        if (n > capacity - size_) flush();
    }
    // Larger than the room left: fill the block, hand it over, go on.
    [[gnu::noinline]] void append_spilling(std::string_view s) {
        while (s.size() > capacity - size_) {
            const std::size_t part = capacity - size_;
            std::memcpy(buf_ + size_, s.data(), part);
            size_ = capacity;
            flush();
            s.remove_prefix(part);
        }
        std::memcpy(buf_ + size_, s.data(), s.size());
        size_ += s.size();
    }
    void flush() {
        if (size_ == 0) return;
        if (const int err = writer_->hand_over(size_); err != 0) fail_write(err);
        written_ += size_;
        size_ = 0;
        buf_ = writer_->block();
    }
    [[noreturn]] void fail_write(int err) const {
        throw input_error(fmt::format("{}: write failed: {}", path_, std::strerror(err)));
    }

    std::string path_;
    bool direct_;
    std::string tmp_path_;
    std::unique_ptr<std::FILE, file_closer> file_;
    std::optional<background_writer> writer_;
    char* buf_ = nullptr;  // writer_'s current block
    std::size_t size_ = 0;
    std::uint64_t written_ = 0;
};

}  // namespace dfx::convert
