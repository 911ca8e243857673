// temp_files: temporary outputs that must not outlive an interrupted run.
//
//   dfx::io::remove_temp_files_on_signal();   // once, in main()
//   const int slot = dfx::io::temp_files::add(tmp_path);
//   ... write tmp_path, rename it into place ...
//   dfx::io::temp_files::remove(slot);
//
// Outputs are written as "<path>.tmp.<pid>" and renamed into place
// (atomic_file.hpp, which registers and unregisters its temporary here). An
// error removes the temporary in the writer's destructor; SIGINT, SIGTERM and
// SIGHUP run no destructors, so the handler installed here unlinks every
// registered temporary and then re-raises the signal with its default action
// (the exit status still says which signal). The registry is a fixed array of
// fixed buffers: the handler only reads it, and unlink() is
// async-signal-safe. A library never installs the handler by itself: which
// signals a process handles is its main()'s choice.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <string>

namespace dfx::io {

namespace temp_files {

namespace detail {
struct slot {
    std::atomic<int> state{0};  // 0 free, 1 being filled, 2 registered
    char path[4096];
};
inline constexpr std::size_t max_slots = 64;
inline slot slots[max_slots];
}  // namespace detail

// Registers `path`; returns its slot, or -1 when it cannot be registered
// (too long, or too many at once: it is then only removed on errors).
inline int add(const std::string& path) noexcept {
    if (path.size() >= sizeof detail::slots[0].path) return -1;
    for (std::size_t i = 0; i < detail::max_slots; ++i) {
        int expected = 0;
        if (!detail::slots[i].state.compare_exchange_strong(expected, 1)) continue;
        std::memcpy(detail::slots[i].path, path.c_str(), path.size() + 1);
        detail::slots[i].state.store(2);
        return static_cast<int>(i);
    }
    return -1;
}

inline void remove(int slot) noexcept {
    if (slot >= 0) detail::slots[slot].state.store(0);
}

// Whether `path` is registered now (tests, diagnostics).
inline bool registered(const std::string& path) noexcept {
    for (auto& s : detail::slots)
        if (s.state.load() == 2 && path == s.path) return true;
    return false;
}

inline void unlink_all() noexcept {
    for (auto& s : detail::slots)
        if (s.state.load() == 2) ::unlink(s.path);
}

}  // namespace temp_files

namespace temp_files_detail {
inline void on_signal(int sig) {
    temp_files::unlink_all();
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}
}  // namespace temp_files_detail

// Installs the handler for SIGINT, SIGTERM and SIGHUP (not where they are
// ignored, e.g. under nohup).
inline void remove_temp_files_on_signal() {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        struct sigaction sa {};
        sa.sa_handler = temp_files_detail::on_signal;
        sigemptyset(&sa.sa_mask);
        ::sigaction(sig, &sa, nullptr);
    }
}

}  // namespace dfx::io
