// progress: a line on stderr while a long conversion runs, and only on a
// terminal.
//
//   const dfx::cli::progress_reporter progress("swimlane");  // for the command's lifetime
//
// After progress_delay without finishing, it shows the megabytes the readers
// and writers have moved and the stage the converter is in, with the items
// it has done (convert/common/io_progress.hpp):
//
//   dfx swimlane: 2027.9 MB read, 0.0 MB written; protobuf trace, pass 1 of 2: 12.31 M events
//
// ticking every progress_period, and erases its line when it ends. When
// stderr is not a terminal (a pipe, a file, `dfx all`'s children) it prints
// nothing at all, so logs and golden stderr stay as they are.
// DFX_PROGRESS_DELAY_MS and DFX_PROGRESS_PERIOD_MS (numbers of milliseconds)
// override the delay and the period, for impatient users and for the test,
// which must not depend on how fast this machine converts.
#pragma once

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
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
    // A duration from the environment, in ms; `fallback` when unset or not a
    // number in [minimum, 1 h].
    static std::chrono::milliseconds from_env(const char* name, std::chrono::milliseconds fallback, long minimum) {
        const char* env = std::getenv(name);
        if (!env || !*env) return fallback;
        char* end = nullptr;
        const long ms = std::strtol(env, &end, 10);
        return *end == '\0' && ms >= minimum && ms <= 3'600'000 ? std::chrono::milliseconds{ms} : fallback;
    }

    // 12345 -> "12345", 12345678 -> "12.35 M".
    static std::string count(std::uint64_t n) {
        char text[32];
        if (n >= 1'000'000) std::snprintf(text, sizeof text, "%.2f M", static_cast<double>(n) / 1e6);
        else std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(n));
        return text;
    }

    // The line as it stands now.
    std::string line() const {
        namespace io = dfx::convert::io_progress;
        char text[160];
        std::snprintf(text, sizeof text, "dfx %s: %.1f MB read, %.1f MB written", command_.c_str(),
                      static_cast<double>(io::read_bytes()) / 1e6, static_cast<double>(io::written_bytes()) / 1e6);
        std::string out = text;
        if (const char* stage = io::stage()) {
            out += "; ";
            out += stage;
            const std::uint64_t items = io::stage_items(), total = io::stage_total();
            if (items > 0) out += ": " + count(items) + (total > 0 ? " of " + count(total) : "") + " events";
        }
        return out;
    }

    void tick() {
        namespace io = dfx::convert::io_progress;
        const auto period = from_env("DFX_PROGRESS_PERIOD_MS", progress_period, 1);
        std::unique_lock lock(mutex_);
        if (wake_.wait_for(lock, from_env("DFX_PROGRESS_DELAY_MS", progress_delay, 0), [this] { return done_; })) {
            return;
        }
        do {
            // Drawn without mutex_: the terminal is io_progress's console,
            // which the command may hold (console_output) while it prints.
            lock.unlock();
            io::show_line(line());
            lock.lock();
        } while (!wake_.wait_for(lock, period, [this] { return done_; }));
        lock.unlock();
        io::erase_line();
    }

    std::string command_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool done_ = false;
    std::thread thread_;
};

}  // namespace dfx::cli
