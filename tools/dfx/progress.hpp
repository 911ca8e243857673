// progress: a line on stderr while a long conversion runs, and only on a
// terminal.
//
//   const dfx::cli::progress_reporter progress("swimlane");  // for the command's lifetime
//
// After progress_delay without finishing, it shows the megabytes the readers
// and writers have moved (convert/common/io_progress.hpp), ticking every
// progress_period, and erases its line when it ends. When stderr is not a
// terminal (a pipe, a file, `dfx all`'s children) it prints nothing at all,
// so logs and golden stderr stay as they are. DFX_PROGRESS_DELAY_MS (a
// number of milliseconds) overrides the delay, for impatient users and for
// the test, which must not depend on how fast this machine converts.
#pragma once

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "dfx/convert/common/io_progress.hpp"

namespace dfx::cli {

class progress_reporter {
public:
    static constexpr std::chrono::milliseconds progress_delay{2000}, progress_period{250};

    explicit progress_reporter(std::string command) : command_(std::move(command)) {
        if (::isatty(STDERR_FILENO) != 1) return;
        thread_ = std::thread([this] { tick(); });
    }
    progress_reporter(const progress_reporter&) = delete;
    progress_reporter& operator=(const progress_reporter&) = delete;
    ~progress_reporter() {
        if (!thread_.joinable()) return;
        {
            const std::lock_guard lock(mutex_);
            done_ = true;
        }
        wake_.notify_one();
        thread_.join();
    }

private:
    static std::chrono::milliseconds delay() {
        const char* env = std::getenv("DFX_PROGRESS_DELAY_MS");
        if (!env || !*env) return progress_delay;
        char* end = nullptr;
        const long ms = std::strtol(env, &end, 10);
        return *end == '\0' && ms >= 0 && ms <= 3'600'000 ? std::chrono::milliseconds{ms} : progress_delay;
    }

    void tick() {
        namespace io = dfx::convert::io_progress;
        std::unique_lock lock(mutex_);
        if (wake_.wait_for(lock, delay(), [this] { return done_; })) return;
        do {
            std::fprintf(stderr, "\r\033[Kdfx %s: %.1f MB read, %.1f MB written", command_.c_str(),
                         static_cast<double>(io::read_bytes()) / 1e6, static_cast<double>(io::written_bytes()) / 1e6);
            std::fflush(stderr);
        } while (!wake_.wait_for(lock, progress_period, [this] { return done_; }));
        std::fprintf(stderr, "\r\033[K");
        std::fflush(stderr);
    }

    std::string command_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool done_ = false;
    std::thread thread_;
};

}  // namespace dfx::cli
