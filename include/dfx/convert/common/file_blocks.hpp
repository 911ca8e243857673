// file_blocks: a file's bytes block by block, each block followed by padding
// that may be read (simdjson's SIMDJSON_PADDING) and whose first byte may be
// written (a scanner's sentinel).
//
// Why map instead of read: reading copies every byte out of the page cache
// into a buffer, and for a scan that looks at each byte once that copy costs
// about half as much again as the scan's own memory traffic. A regular file's
// blocks are mapped privately instead: the pages are shared with the page
// cache, and the sentinel written after a block copies one page, not the
// block. Only one block is mapped at a time, so memory stays bounded whatever
// the file's size.
//
// The last block is read into a buffer when its padding would run past the
// file's last page (beyond it, a mapping faults). Anything that is not a
// regular file (a pipe, a terminal) is read through a buffer as it arrives.
// A regular file that shrinks while it is read is an error naming the file:
// the pages it lost under a mapping fault, and sigbus_guard.hpp turns that
// fault into zeros and a flag instead of a killed process. The file is opened
// by open_input (input_file.hpp): a FIFO with no writer or a device is an
// error, not a hang.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/input_file.hpp"
#include "dfx/convert/common/io_progress.hpp"
#include "dfx/convert/common/sigbus_guard.hpp"

namespace dfx::convert {

namespace file_blocks_detail {

class fd_owner {
public:
    explicit fd_owner(int fd) : fd_(fd) {}
    fd_owner(const fd_owner&) = delete;
    fd_owner& operator=(const fd_owner&) = delete;
    ~fd_owner() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }

private:
    int fd_;
};

// One private (copy-on-write) mapping of part of a file; empty if mmap failed.
class mapping {
public:
    mapping(int fd, std::uint64_t offset, std::size_t length) : length_(length) {
        void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, static_cast<off_t>(offset));
        data_ = p == MAP_FAILED ? nullptr : static_cast<char*>(p);
    }
    mapping(const mapping&) = delete;
    mapping& operator=(const mapping&) = delete;
    ~mapping() {
        if (data_ != nullptr) ::munmap(data_, length_);
    }
    char* data() const { return data_; }

private:
    char* data_;
    std::size_t length_;
};

// Reads up to n bytes at `offset` (or at the current position when offset is
// negative); fewer only at the end of the file.
inline std::size_t read_up_to(const std::string& path, int fd, char* out, std::size_t n, std::int64_t offset) {
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = offset < 0 ? ::read(fd, out + got, n - got)
                                     : ::pread(fd, out + got, n - got, static_cast<off_t>(offset) + static_cast<off_t>(got));
        if (r < 0) {
            if (errno == EINTR) continue;
            throw input_error(path + ": read error: " + std::strerror(errno));
        }
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
    }
    return got;
}

// Keeps the kernel reading a mapped file `lead` bytes ahead of the scan.
// A block's pages are read when the scan first touches them: on a file
// that is not in the page cache each miss waits for the disk (the kernel's
// own read-ahead on a fault is synchronous), so reading and scanning took
// turns. Advising the range ahead (POSIX_FADV_WILLNEED) starts its reads
// without waiting for them; each byte is advised once, a step at a time.
// The kernel reads at most max(read_ahead_kb, max_sectors_kb) of the
// device's queue settings per call and drops the rest of the range (128
// KiB and 1,280 KiB are common defaults), so a step stays below those.
// On a cached file the advice finds the pages present and does nothing
// else. Advice the kernel refuses is ignored: it is only a hint.
class read_ahead {
public:
    static constexpr std::uint64_t lead = 64ULL << 20;
    static constexpr std::uint64_t step = 128ULL << 10;

    read_ahead(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
    // The scan is about to read from `offset`.
    void reached(std::uint64_t offset) {
        const std::uint64_t want = std::min(size_, offset + lead);
        for (; advised_ < want; advised_ += step)
            (void)::posix_fadvise(fd_, static_cast<off_t>(advised_), static_cast<off_t>(step), POSIX_FADV_WILLNEED);
    }

private:
    int fd_;
    std::uint64_t size_;
    std::uint64_t advised_ = 0;
};

}  // namespace file_blocks_detail

// Calls on_block(p, n, offset) for consecutive blocks of at most block_size
// bytes (the last may be shorter), where p[0..n) are the file's bytes at
// `offset`, p[n] is writable and p[n..n + SIMDJSON_PADDING) readable. The
// block and its padding are valid only during the call. Returns the file's
// size; throws input_error when the file cannot be opened or read.
template <class OnBlock>
std::uint64_t for_each_file_block(const std::string& path, std::size_t block_size, OnBlock&& on_block) {
    using namespace file_blocks_detail;
    const fd_owner fd(open_input(path));
    constexpr std::size_t padding = simdjson::SIMDJSON_PADDING;
    std::vector<char> buffer;  // for blocks that are not mapped
    auto buffered = [&](std::size_t n, std::int64_t offset) {
        if (buffer.empty()) buffer.resize(block_size + padding);
        return read_up_to(path, fd.get(), buffer.data(), n, offset);
    };

    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        std::uint64_t total = 0;
        for (std::size_t n; (n = buffered(block_size, -1)) > 0; total += n) {
            io_progress::add_read(n);
            on_block(buffer.data(), n, total);
        }
        return total;
    }

    const auto size = static_cast<std::uint64_t>(st.st_size);
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t mappable_end = (size + page - 1) / page * page;  // zero-filled past the end of the file
    const auto shrank = [&] { return input_error(path + ": the file shrank while it was read"); };
    read_ahead ahead(fd.get(), size);
    for (std::uint64_t offset = 0; offset < size;) {
        ahead.reached(offset);
        io_progress::add_read(std::min<std::uint64_t>(block_size, size - offset));
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(block_size, size - offset));
        const std::uint64_t from = offset / page * page;
        const std::uint64_t to = offset + n + padding;
        if (to <= mappable_end) {
            const mapping m(fd.get(), from, static_cast<std::size_t>(to - from));
            const sigbus_guard guard(m.data(), static_cast<std::size_t>(to - from));
            if (m.data() != nullptr && guard.armed()) {
                try {
                    on_block(m.data() + (offset - from), n, offset);
                } catch (...) {
                    if (guard.faulted()) throw shrank();  // what the zeros looked like is not the problem
                    throw;
                }
                if (guard.faulted()) throw shrank();
                offset += n;
                continue;
            }
        }
        const std::size_t got = buffered(n, static_cast<std::int64_t>(offset));
        if (got < n) throw shrank();
        on_block(buffer.data(), n, offset);
        offset += n;
    }
    return size;
}

}  // namespace dfx::convert
