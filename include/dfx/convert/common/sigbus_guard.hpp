// sigbus_guard: survive a mapped input that shrinks while it is read.
//
//   sigbus_guard guard(p, length);        // p: a file mapping being read
//   if (!guard.armed()) ...               // too many at once: read the bytes another way
//   ... read p[0, length) ...
//   if (guard.faulted()) throw ...;       // the file lost pages under the mapping
//
// A mapped page that the file no longer has raises SIGBUS on access. The
// handler installed here (once, process-wide) checks whether the faulting
// address lies in a guarded range; if so it maps zero-filled memory over the
// rest of that range, marks the range faulted and returns, so the read goes
// on over zeros (a scanner sees a '\0', never garbage it could crash on) and
// the owner reports the shrink after the read. A SIGBUS anywhere else is
// handed to the previous disposition (by default: the process dies, as
// before). No longjmp, so no C++ frame is skipped.
#pragma once

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace dfx::convert {

namespace sigbus_detail {

struct range {
    std::atomic<bool> used{false};
    std::atomic<std::uintptr_t> begin{0}, end{0};
    std::atomic<bool> faulted{false};
};
inline constexpr std::size_t max_ranges = 32;
inline range ranges[max_ranges];
inline struct sigaction previous {};
inline std::uintptr_t page_size = 4096;

inline void on_sigbus(int sig, siginfo_t* info, void* context) {
    const auto at = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (range& r : ranges) {
        const std::uintptr_t b = r.begin.load(), e = r.end.load();
        if (b == 0 || at < b || at >= e) continue;
        const std::uintptr_t from = at / page_size * page_size;
        // mmap is a plain system call here; the range is ours, so MAP_FIXED
        // replaces only the vanished file pages of our own mapping.
        if (::mmap(reinterpret_cast<void*>(from), e - from, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
            break;
        r.faulted.store(true);
        return;
    }
    // Not a guarded range: as if this handler were not there.
    if (previous.sa_flags & SA_SIGINFO) {
        if (previous.sa_sigaction != nullptr) return previous.sa_sigaction(sig, info, context);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        return previous.sa_handler(sig);
    }
    ::signal(SIGBUS, SIG_DFL);  // returning re-runs the access, which now kills
}

inline bool install() {
    page_size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return ::sigaction(SIGBUS, &sa, &previous) == 0;
}

}  // namespace sigbus_detail

class sigbus_guard {
public:
    // `begin` must start a page (it is a mapping's address).
    sigbus_guard(const char* begin, std::size_t length) {
        static const bool installed = sigbus_detail::install();
        if (!installed) return;
        for (sigbus_detail::range& r : sigbus_detail::ranges) {
            bool expected = false;
            if (!r.used.compare_exchange_strong(expected, true)) continue;
            r.faulted.store(false);
            r.end.store(reinterpret_cast<std::uintptr_t>(begin) + length);
            r.begin.store(reinterpret_cast<std::uintptr_t>(begin));
            range_ = &r;
            return;
        }
    }
    sigbus_guard(const sigbus_guard&) = delete;
    sigbus_guard& operator=(const sigbus_guard&) = delete;
    ~sigbus_guard() {
        if (range_ == nullptr) return;
        range_->begin.store(0);
        range_->end.store(0);
        range_->used.store(false);
    }
    [[nodiscard]] bool armed() const { return range_ != nullptr; }
    [[nodiscard]] bool faulted() const { return range_ != nullptr && range_->faulted.load(); }

private:
    sigbus_detail::range* range_ = nullptr;
};

}  // namespace dfx::convert
