// spill_file: an unnamed temporary file, for what a converter would
// otherwise hold in memory at 10^7 tasks (issue 19's bounded memory).
//
//   spill_file f;                          // in $TMPDIR, else /tmp
//   const std::uint64_t at = f.size();
//   f.append(rows.data(), rows.size() * sizeof(row));
//   f.read(at, back.data(), n_bytes);      // anywhere, any time
//
//   spill_writer<row, row_codec> w(f);     // records, coded (as differences)
//   w.push(x); ...
//   const auto run = w.finish();           // where they are
//   spill_reader<row, row_codec> r(f, run.offset, run.bytes, run.count);
//   while (const row* x = r.next()) ...    // read back a buffer at a time
//
//   spilled_records<row, row_codec> rows;  // a list: in memory up to a
//                                          // budget, on disk beyond it
//
// The file has no name from the start (O_TMPFILE; where the file system
// cannot, mkstemp and unlink at once), so nothing is left behind when the
// process is killed, and no cleanup is needed. It is read back with pread()
// into the caller's buffers, never mapped: mapped pages count in the
// process's peak RSS, which is the figure spilling exists to bound. Appends
// are written at once, without a buffer of its own: spill_writer buffers.
//
// A failure (no temporary directory, a full disk) is a spill_error (an
// input_error) naming the directory and what went wrong, which the CLI
// reports in one line like every converter failure.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "dfx/convert/common/delta_varint.hpp"
#include "dfx/convert/common/input_error.hpp"

namespace dfx::convert {

// A spill file that cannot be made, written or read back: the machine's
// problem, not the input's, so even a lenient reading that drops a broken
// input (`dfx deps --lenient`'s sidecar) stops on it.
class spill_error : public input_error {
public:
    using input_error::input_error;
};

class spill_file {
public:
    spill_file() : dir_(temp_dir()) {
#ifdef O_TMPFILE
        fd_ = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
        if (fd_ < 0) {  // (no O_TMPFILE here, or the file system refuses it)
            std::string name = dir_ + "/dfx-spill-XXXXXX";
            fd_ = ::mkstemp(name.data());
            if (fd_ >= 0) ::unlink(name.c_str());
        }
        if (fd_ < 0) fail("cannot create a temporary file", errno);
    }
    spill_file(const spill_file&) = delete;
    spill_file& operator=(const spill_file&) = delete;
    ~spill_file() {
        if (fd_ >= 0) ::close(fd_);
    }

    std::uint64_t size() const { return size_; }
    const std::string& directory() const { return dir_; }

    void append(const void* data, std::size_t n) {
        const auto* p = static_cast<const char*>(data);
        while (n > 0) {
            const ssize_t w = ::pwrite(fd_, p, n, static_cast<off_t>(size_));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) fail("cannot write a temporary file", errno);
            if (w == 0) fail("cannot write a temporary file: nothing written", 0);
            p += w;
            n -= static_cast<std::size_t>(w);
            size_ += static_cast<std::uint64_t>(w);
        }
    }

    // Reads [offset, offset + n), which must have been appended.
    void read(std::uint64_t offset, void* out, std::size_t n) const {
        auto* p = static_cast<char*>(out);
        while (n > 0) {
            const ssize_t r = ::pread(fd_, p, n, static_cast<off_t>(offset));
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) fail("cannot read a temporary file back", errno);
            if (r == 0) fail("a temporary file is shorter than written", 0);
            p += r;
            n -= static_cast<std::size_t>(r);
            offset += static_cast<std::uint64_t>(r);
        }
    }

    // $TMPDIR when set and not empty, else /tmp (as mkstemp's callers do).
    static std::string temp_dir() {
        const char* t = std::getenv("TMPDIR");
        std::string d = t && *t ? t : "/tmp";
        while (d.size() > 1 && d.back() == '/') d.pop_back();
        return d;
    }

private:
    [[noreturn]] void fail(const char* what, int err) const {
        throw spill_error(dir_ + ": " + what + (err != 0 ? std::string(": ") + std::strerror(err) : std::string()) +
                          " (large inputs spill to disk: set TMPDIR to a directory with room)");
    }

    std::string dir_;
    int fd_ = -1;
    std::uint64_t size_ = 0;
};

// How records are written to a spill file. A codec writes a record after
// the one before it (`prev`; a default-made T before the first), so that
// sorted records can be written as small differences (delta_varint.hpp):
//
//   struct my_codec {
//       static constexpr std::size_t max_bytes = ...;  // the longest code
//       static void put(std::uint8_t*& w, const T& prev, const T& x);
//       static T get(const std::uint8_t*& r, const T& prev);
//   };
//
// raw_codec writes the bytes as they are.
template <class T>
struct raw_codec {
    static_assert(std::is_trivially_copyable_v<T>);
    static constexpr std::size_t max_bytes = sizeof(T);
    static void put(std::uint8_t*& w, const T&, const T& x) {
        std::memcpy(w, &x, sizeof(T));
        w += sizeof(T);
    }
    static T get(const std::uint8_t*& r, const T&) {
        T x;
        std::memcpy(&x, r, sizeof(T));
        r += sizeof(T);
        return x;
    }
};

// A u64 as its zigzagged difference from the one before: a sorted list of
// dense ids takes a byte an id.
struct u64_delta_codec {
    static constexpr std::size_t max_bytes = varint_max_bytes;
    static void put(std::uint8_t*& w, std::uint64_t prev, std::uint64_t x) { put_varint(w, zigzag(x - prev)); }
    static std::uint64_t get(const std::uint8_t*& r, std::uint64_t prev) { return prev + unzigzag(get_varint(r)); }
};

// Reads `count` records from `bytes` bytes at `offset` of a spill file, in
// order, a buffer at a time.
template <class T, class Codec = raw_codec<T>>
class spill_reader {
public:
    spill_reader(const spill_file& f, std::uint64_t offset, std::uint64_t bytes, std::uint64_t count,
                 std::size_t buffer_bytes = std::size_t{1} << 18)
        : file_(&f), offset_(offset), bytes_left_(bytes), left_(count),
          buffer_(std::max(buffer_bytes, 2 * Codec::max_bytes)) {}
    // Records coded in memory instead (spilled_records that never filled
    // their buffer), which must outlive the reader.
    spill_reader(const std::uint8_t* bytes, std::size_t size, std::uint64_t count)
        : file_(nullptr), offset_(0), bytes_left_(0), left_(count), at_(bytes), end_(bytes + size) {}
    // (Moved, not copied: a copy would read the original's buffer.)
    spill_reader(spill_reader&&) noexcept = default;
    spill_reader& operator=(spill_reader&&) noexcept = default;
    spill_reader(const spill_reader&) = delete;
    spill_reader& operator=(const spill_reader&) = delete;

    // The next record, or null past the last; valid until the next call.
    const T* next() {
        if (left_ == 0) return nullptr;
        if (static_cast<std::size_t>(end_ - at_) < Codec::max_bytes && bytes_left_ > 0) refill();
        current_ = Codec::get(at_, current_);
        --left_;
        return &current_;
    }

private:
    void refill() {
        const auto kept = static_cast<std::size_t>(end_ - at_);
        if (kept > 0) std::memmove(buffer_.data(), at_, kept);  // (at_ is null before the first fill)
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(bytes_left_, buffer_.size() - kept));
        file_->read(offset_, buffer_.data() + kept, n);
        offset_ += n;
        bytes_left_ -= n;
        at_ = buffer_.data();
        end_ = buffer_.data() + kept + n;
    }

    const spill_file* file_;
    std::uint64_t offset_, bytes_left_, left_;
    std::vector<std::uint8_t> buffer_;
    const std::uint8_t* at_ = nullptr;
    const std::uint8_t* end_ = nullptr;
    T current_{};
};

// Records coded into a spill file a buffer at a time: the writing half of
// spill_reader. Each finish() ends a stretch of records (a sorted run) that
// a spill_reader reads back from its offset, the codec starting afresh.
template <class T, class Codec = raw_codec<T>>
class spill_writer {
public:
    explicit spill_writer(spill_file& f, std::size_t buffer_bytes = std::size_t{1} << 18)
        : file_(&f), buffer_(std::max(buffer_bytes, 2 * Codec::max_bytes)), start_(f.size()) {}

    void push(const T& x) {
        if (static_cast<std::size_t>(buffer_.data() + buffer_.size() - w_) < Codec::max_bytes) flush();
        Codec::put(w_, prev_, x);
        prev_ = x;
        ++count_;
    }

    // Where the stretch since the last finish() is: (offset, bytes, records).
    struct stretch {
        std::uint64_t offset, bytes, count;
    };
    stretch finish() {
        flush();
        const stretch s{start_, file_->size() - start_, count_};
        start_ = file_->size();
        count_ = 0;
        prev_ = T{};
        return s;
    }

private:
    void flush() {
        file_->append(buffer_.data(), static_cast<std::size_t>(w_ - buffer_.data()));
        w_ = buffer_.data();
    }

    spill_file* file_;
    std::vector<std::uint8_t> buffer_;
    std::uint8_t* w_ = buffer_.data();
    std::uint64_t start_;
    std::uint64_t count_ = 0;
    T prev_{};
};

// A list of records, pushed, then read back in order as often as needed:
// coded in memory up to `memory_bytes`, on disk (a spill_file) from then on.
// So a small input never touches the disk.
//
//   spilled_records<row, row_codec> rows;
//   rows.push(x);                   // ...
//   for (auto r = rows.read(); const row* x = r.next();) ...
template <class T, class Codec = raw_codec<T>>
class spilled_records {
public:
    explicit spilled_records(std::size_t memory_bytes = std::size_t{8} << 20)
        : capacity_(std::max(memory_bytes, 2 * Codec::max_bytes)) {}

    void push(const T& x) {
        // (allocated, not zeroed: its untouched pages cost nothing)
        if (!bytes_) bytes_.reset(new std::uint8_t[capacity_]);
        if (capacity_ - used_ < Codec::max_bytes) flush();
        std::uint8_t* w = bytes_.get() + used_;
        Codec::put(w, prev_, x);
        used_ = static_cast<std::size_t>(w - bytes_.get());
        prev_ = x;
        ++count_;
    }
    std::uint64_t size() const { return count_; }
    bool on_disk() const { return file_ != nullptr; }

    // A reader of every record pushed so far (none may be pushed after).
    spill_reader<T, Codec> read() {
        if (!file_) return spill_reader<T, Codec>(bytes_.get(), used_, count_);
        flush();
        return spill_reader<T, Codec>(*file_, 0, file_->size(), count_);
    }

private:
    void flush() {
        if (!file_) file_ = std::make_unique<spill_file>();
        if (used_ > 0) file_->append(bytes_.get(), used_);
        used_ = 0;
    }

    std::size_t capacity_;
    std::unique_ptr<std::uint8_t[]> bytes_;  // coded, not yet on disk
    std::size_t used_ = 0;
    std::unique_ptr<spill_file> file_;
    std::uint64_t count_ = 0;
    T prev_{};
};

}  // namespace dfx::convert
