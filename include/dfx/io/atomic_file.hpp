// atomic_file: one output file, written beside its target and renamed over
// it, so a reader of the path sees the previous file or the new one whole,
// never a truncated one and never none.
//
//   dfx::io::atomic_file out(path, {.sync = dfx::io::sync_policy::fsync});  // throws dfx::io::write_error
//   ... write through out.fd() (pwrite, pwritev) or out.stream() (stdio) ...
//   out.commit();   // flush, fsync (by policy), close, rename over the target
//   // destroyed without commit(): the temporary is removed, the target untouched
//
//   dfx::io::write_atomically(path, [&](std::FILE* f) { ...; return ok; }, options);
//
// The temporary is "<target>.tmp.<pid>" in the target's directory (a rename
// does not cross file systems, and two processes writing one path never
// share a temporary). It is registered in temp_files.hpp from before it
// exists until it is renamed or removed, so SIGINT / SIGTERM / SIGHUP remove
// it too where main() installed that handler. The rename goes over the
// target; the target is never unlinked first. A target that exists and is
// not a regular file (/dev/null, a FIFO, a terminal) is written in place:
// renaming over it would replace the node itself.
//
// Every failure (cannot create, a write error such as ENOSPC, a failed
// fsync, close or rename) is a write_error naming the target; the temporary
// is removed before it is thrown.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <memory>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>

#include "dfx/io/temp_files.hpp"

namespace dfx::io {

// What goes wrong writing an output; the message names the file.
class write_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Whether commit() waits for the data to reach the disk before the rename.
enum class sync_policy {
    none,   // page cache only: converter outputs, which can be made again from their inputs
    fsync,  // fsync before the rename: a run's artefacts, which cannot
};

struct atomic_file_options {
    sync_policy sync = sync_policy::none;
    bool create_directories = false;  // create the target's missing parent directories first
};

class atomic_file {
public:
    explicit atomic_file(std::filesystem::path target, atomic_file_options options = {})
        : target_(std::move(target)), options_(options) {
        namespace fs = std::filesystem;
        std::error_code ec;
        if (options_.create_directories && target_.has_parent_path()) {
            fs::create_directories(target_.parent_path(), ec);
            if (ec) throw write_error(target_.string() + ": cannot create its directory: " + ec.message());
        }
        struct stat st {};
        in_place_ = ::stat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
        temp_ = in_place_ ? target_ : fs::path(target_.string() + ".tmp." + std::to_string(::getpid()));
        if (!in_place_) temp_slot_ = temp_files::add(temp_.string());  // before the file exists
        // The mode fopen("wb") would use: 0666 less the umask.
        fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd_ < 0) {
            const int err = errno;
            temp_files::remove(temp_slot_);
            throw write_error(target_.string() + ": cannot create: " + std::strerror(err));
        }
        temp_pending_ = !in_place_;
    }
    atomic_file(const atomic_file&) = delete;
    atomic_file& operator=(const atomic_file&) = delete;
    ~atomic_file() { discard(); }

    const std::filesystem::path& target() const noexcept { return target_; }
    // The file being written: the temporary, or the target when in place.
    const std::filesystem::path& temp_path() const noexcept { return temp_; }
    bool in_place() const noexcept { return in_place_; }

    // The open descriptor, for pwrite / pwritev / ftruncate. Do not close it.
    int fd() const noexcept { return fd_; }
    // A stdio stream over fd(), opened on first use. Do not fclose it.
    std::FILE* stream() {
        if (!stream_ && fd_ >= 0) {
            stream_ = ::fdopen(fd_, "wb");
            if (!stream_) fail("cannot write", errno);
        }
        return stream_;
    }

    // Flushes, syncs (by policy), closes and renames the temporary over the
    // target. Throws write_error (the temporary is then gone).
    void commit() {
        if (fd_ < 0) throw write_error(target_.string() + ": already committed or discarded");
        int err = 0;
        const auto note = [&](bool ok) {
            if (!ok && err == 0) err = errno != 0 ? errno : EIO;
        };
        errno = 0;
        if (stream_) {
            note(std::fflush(stream_) == 0);
            note(!std::ferror(stream_));  // an earlier fwrite failed (its buffer is gone by now)
        }
        if (options_.sync == sync_policy::fsync && !in_place_) note(::fsync(fd_) == 0);
        note(close_file());  // ENOSPC on NFS and some others shows only here
        if (err != 0) fail("cannot write", err);
        if (!in_place_ && std::rename(temp_.c_str(), target_.c_str()) != 0) fail("cannot move into place", errno);
        temp_pending_ = false;
        temp_files::remove(temp_slot_);
        temp_slot_ = -1;
    }

    // Drops what was written: closes and removes the temporary (the target
    // is untouched). Safe to call more than once.
    void discard() noexcept {
        close_file();
        if (temp_pending_) ::unlink(temp_.c_str());
        temp_pending_ = false;
        temp_files::remove(temp_slot_);
        temp_slot_ = -1;
    }

private:
    bool close_file() noexcept {
        bool ok = true;
        if (stream_) {
            ok = std::fclose(stream_) == 0;  // closes fd_ too
        } else if (fd_ >= 0) {
            ok = ::close(fd_) == 0;
        }
        stream_ = nullptr;
        fd_ = -1;
        return ok;
    }
    [[noreturn]] void fail(const char* what, int err) {
        discard();
        throw write_error(target_.string() + ": " + what + ": " + std::strerror(err));
    }

    std::filesystem::path target_;
    atomic_file_options options_;
    bool in_place_ = false;
    std::filesystem::path temp_;
    bool temp_pending_ = false;  // the temporary exists and is not renamed yet
    int temp_slot_ = -1;         // its temp_files registration (-1: none, or the registry was full)
    int fd_ = -1;
    std::FILE* stream_ = nullptr;
};

// Writes `path` through `write(std::FILE*)`, which returns false on a failure
// it saw (a failed fputs, say), and commits it. Throws write_error; an
// exception from `write` propagates after the temporary is removed.
// The body of write_atomically, compiled once however many callers it has:
// `write(context, stream)` is the caller's callable behind a plain pointer.
inline void write_atomically_through(const std::filesystem::path& path, bool (*write)(void*, std::FILE*),
                                     void* context, atomic_file_options options) {
    atomic_file file(path, options);
    errno = 0;
    if (!write(context, file.stream())) {
        const int err = errno;
        file.discard();
        throw write_error(path.string() + ": cannot write: " + (err != 0 ? std::strerror(err) : "write failed"));
    }
    file.commit();
}

template <class Write>
void write_atomically(const std::filesystem::path& path, Write&& write, atomic_file_options options = {}) {
    using callable = std::remove_reference_t<Write>;
    write_atomically_through(
        path, [](void* context, std::FILE* f) -> bool { return (*static_cast<callable*>(context))(f); },
        const_cast<void*>(static_cast<const void*>(std::addressof(write))), options);
}

}  // namespace dfx::io
