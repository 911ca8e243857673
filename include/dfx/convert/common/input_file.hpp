// input_file: open a converter's input so that it cannot hang or be
// overwritten by the run that reads it.
//
//   const int fd = dfx::convert::open_input(path);      // a regular file or a pipe; throws input_error
//   dfx::convert::require_regular_file(path);           // before a reader that opens the path itself
//   if (dfx::convert::is_input(out_path)) ...           // json_file_writer refuses to replace an input
//
// Why: open() of a FIFO without a writer blocks forever, and a character
// device such as /dev/zero never ends. Regular files are what the converters
// read; a pipe (`... | dfx deps /dev/stdin`) is read too, but its first bytes
// must arrive within input_wait_ms, so a FIFO nobody writes is an error, not a
// hang. Anything else (a directory, a device, a socket) is refused at once.
//
// Every input opened here is remembered by device and inode, so an output
// that names an input under any spelling (the path, a hard link, a symlink)
// is refused instead of destroying the capture. The inode's change time is
// kept too: an input deleted since (a test's scratch file) frees its inode
// number for a new file, which must not count as that input.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "dfx/convert/common/input_error.hpp"

namespace dfx::convert {

// How long a pipe may stay silent before its first byte.
inline constexpr int input_wait_ms = 10'000;

namespace input_file_detail {

struct identity {
    dev_t dev;
    ino_t ino;
    struct timespec ctime;
    bool operator==(const identity& o) const {
        return dev == o.dev && ino == o.ino && ctime.tv_sec == o.ctime.tv_sec && ctime.tv_nsec == o.ctime.tv_nsec;
    }
};
inline identity identity_of(const struct stat& st) { return {st.st_dev, st.st_ino, st.st_ctim}; }

struct registry {
    std::mutex lock;
    std::vector<identity> files;
};
inline registry& inputs() {
    static registry r;
    return r;
}
inline void note(const struct stat& st) {
    auto& r = inputs();
    const std::lock_guard guard(r.lock);
    r.files.push_back(identity_of(st));
}

[[noreturn]] inline void refuse(const std::string& path, const struct stat& st) {
    if (S_ISDIR(st.st_mode)) throw input_error(path + ": is a directory");
    throw input_error(path + ": not a regular file (a device, FIFO or socket cannot be read here)");
}

}  // namespace input_file_detail

// True when `path` exists and is (the same inode as) an input opened so far.
inline bool is_input(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return false;
    auto& r = input_file_detail::inputs();
    const std::lock_guard guard(r.lock);
    const auto id = input_file_detail::identity_of(st);
    for (const auto& known : r.files)
        if (known == id) return true;
    return false;
}

// Throws input_error unless `path` is a regular file (symlinks followed).
inline void require_regular_file(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) throw input_error(path + ": cannot open: " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) input_file_detail::refuse(path, st);
    input_file_detail::note(st);
}

// Opens a regular file or a pipe for reading (blocking reads, close-on-exec)
// and returns its descriptor; the caller closes it. A pipe whose first byte
// (or end) does not come within input_wait_ms is an error.
inline int open_input(const std::string& path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw input_error(path + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        throw input_error(path + ": cannot open: " + std::strerror(err));
    }
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        ::close(fd);
        input_file_detail::refuse(path, st);
    }
    if (S_ISFIFO(st.st_mode)) {
        // A FIFO that never had a writer reports neither data nor hang-up.
        pollfd p{fd, POLLIN, 0};
        int ready = 0;
        while ((ready = ::poll(&p, 1, input_wait_ms)) < 0 && errno == EINTR) {
        }
        if (ready <= 0) {
            ::close(fd);
            throw input_error(path + ": a pipe with no data after " + std::to_string(input_wait_ms / 1000) +
                              " s (no writer?)");
        }
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    input_file_detail::note(st);
    return fd;
}

}  // namespace dfx::convert
