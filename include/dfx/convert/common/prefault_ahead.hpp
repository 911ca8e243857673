// prefault_ahead: a second thread that faults in the pages of growing
// buffers a little ahead of the thread that fills them, so that the filling
// thread does not stop at every fresh page while the kernel zeroes it.
//
//   std::vector<rec> table;
//   table.reserve(n);                      // room, not yet faulted in
//   prefault_ahead ahead;
//   const auto t = ahead.watch(table.data(), table.capacity() * sizeof(rec));
//   ahead.start();
//   for (...) {
//       if (table.size() == table.capacity()) ahead.stop();  // before the room moves
//       table.push_back(r);
//       ahead.wrote(t, table.size() * sizeof(rec));
//   }
//   ahead.stop();                          // or the destructor
//
// Why: a fresh anonymous page is zeroed by the kernel at its first write, on
// the writing thread. In `dfx swimlane --format perfetto` at 10^5 tasks the
// backend's tables (130 MB) filled on one thread while the other core was
// idle, and the zeroing (clear_page under the page faults) was 27 % of that
// thread's samples there. The zeroing costs the same CPU on the second
// thread, but off the path the wall time waits on.
//
// How: madvise(MADV_POPULATE_WRITE) (Linux 5.14) faults a range in as a
// write would, without writing: a page already present is left as it is, so
// the two threads never race on bytes. Each buffer is populated up to `lead`
// bytes past what its writer reported (so at most `lead` bytes a buffer are
// resident before they are needed), and the thread sleeps until a writer
// passes half of that lead. Where the call is missing (an older kernel, no
// Linux) nothing happens: the writer faults its pages in as before.
//
// The contract: a watched range stays allocated until stop() has returned.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <thread>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace dfx::convert {

class prefault_ahead {
public:
    static constexpr std::size_t max_ranges = 8;
    // How far ahead of its writer a range is faulted in.
    static constexpr std::size_t lead = std::size_t{4} << 20;
    // One call's bytes: a transparent huge page, so a stop() waits for at
    // most one of them.
    static constexpr std::size_t step = std::size_t{2} << 20;

    // Whether this build can prefault at all (MADV_POPULATE_WRITE known).
    static constexpr bool supported =
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
        true;
#else
        false;
#endif

    prefault_ahead() = default;
    prefault_ahead(const prefault_ahead&) = delete;
    prefault_ahead& operator=(const prefault_ahead&) = delete;
    ~prefault_ahead() { stop(); }

    using range_id = std::size_t;
    static constexpr range_id no_range = max_ranges;

    // A buffer of `bytes` at `base` its owner will fill from the front.
    // Before start() only; no_range when all are taken, it is empty, or
    // the helper has been stopped.
    range_id watch(const void* base, std::size_t bytes) {
        if (thread_.joinable() || stopping_.load() || count_ == max_ranges || bytes == 0 || base == nullptr) {
            return no_range;
        }
        range& r = ranges_[count_];
        r.begin = reinterpret_cast<std::uintptr_t>(base);
        r.end = r.begin + bytes;
        r.done = r.begin & ~std::uintptr_t{page - 1};  // from the page holding its first byte
        return count_++;
    }

    // Starts the thread (once; not at all when unsupported or nothing is watched).
    void start() {
        if (!supported || count_ == 0 || thread_.joinable() || stopping_.load()) return;
        thread_ = std::thread([this] { run(); });
    }

    // The writer of range `id` has filled its first `used` bytes. Cheap: a
    // store and a compare; a wake-up only when it passes the mark.
    void wrote(range_id id, std::size_t used) noexcept {
        if (id >= max_ranges || id >= count_) return;  // (the first test is for the compiler)
        range& r = ranges_[id];
        r.used.store(used, std::memory_order_relaxed);
        std::size_t mark = r.wake_at.load(std::memory_order_relaxed);
        if (used >= mark && r.wake_at.compare_exchange_strong(mark, never, std::memory_order_relaxed)) {
            kick_.fetch_add(1, std::memory_order_release);
            kick_.notify_one();
        }
    }

    // Stops and joins the thread: every range may move or be freed after.
    void stop() noexcept {
        stopping_.store(true);
        if (!thread_.joinable()) return;
        kick_.fetch_add(1, std::memory_order_release);
        kick_.notify_one();
        thread_.join();
    }

    // Bytes faulted in ahead so far, over all ranges (for tests; after stop()).
    [[nodiscard]] std::size_t populated() const noexcept {
        std::size_t n = 0;
        for (std::size_t i = 0; i < count_; ++i) n += ranges_[i].populated;
        return n;
    }

private:
    static constexpr std::size_t page = 4096;
    static constexpr std::size_t never = std::numeric_limits<std::size_t>::max();
    static std::uintptr_t round_up(std::uintptr_t at) noexcept { return (at + page - 1) & ~std::uintptr_t{page - 1}; }

    struct range {
        std::uintptr_t begin = 0, end = 0;
        std::uintptr_t done = 0;         // faulted in below this (the thread's own)
        std::size_t populated = 0;       // bytes this thread faulted in
        bool failed = false;             // the call refused this range: left alone
        std::atomic<std::size_t> used{0};     // the writer's fill, in bytes from begin
        std::atomic<std::size_t> wake_at{1};  // wake the thread when used reaches this (set when idle)
    };

    // One step of work on `r`: true if it faulted something in.
    bool advance(range& r) noexcept {
        if (r.failed) return false;
        const std::size_t used = r.used.load(std::memory_order_relaxed);
        if (used == 0) return false;  // not before its writer starts: it may never
        const std::uintptr_t want = std::min(r.end, r.begin + used + lead);
        if (want <= r.done) return false;
        // Whole pages (madvise takes them): the one holding the buffer's
        // last byte is mapped as a whole, whatever lies past that byte.
        const std::uintptr_t to = round_up(std::min(want, r.done + step));
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
        if (::madvise(reinterpret_cast<void*>(r.done), to - r.done, MADV_POPULATE_WRITE) != 0) {
            r.failed = true;
            return false;
        }
#endif
        r.populated += to - r.done;
        r.done = to;
        return true;
    }

    void run() noexcept {
        while (!stopping_.load(std::memory_order_relaxed)) {
            bool worked = false;
            for (std::size_t i = 0; i < count_; ++i) worked |= advance(ranges_[i]);
            if (worked) continue;
            // Idle: set each range's mark (half the lead behind what is
            // faulted in), then sleep unless a writer is past one already. (A
            // writer that read the old mark wakes the thread at its next
            // report: a late wake-up costs a fault or two, nothing else.)
            const unsigned seen = kick_.load(std::memory_order_acquire);
            bool due = false;
            for (std::size_t i = 0; i < count_; ++i) {
                range& r = ranges_[i];
                const bool open = !r.failed && r.done < r.end;
                const std::size_t filled = r.done > r.begin ? r.done - r.begin : 0;
                const std::size_t half_behind = filled > lead / 2 ? filled - lead / 2 : 0;
                const std::size_t mark = open ? std::max<std::size_t>(1, half_behind) : never;
                r.wake_at.store(mark, std::memory_order_relaxed);
                due |= r.used.load(std::memory_order_relaxed) >= mark;
            }
            if (due || stopping_.load(std::memory_order_relaxed)) continue;
            kick_.wait(seen, std::memory_order_acquire);
        }
    }

    std::array<range, max_ranges> ranges_{};
    std::size_t count_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<unsigned> kick_{0};
    std::thread thread_;
};

}  // namespace dfx::convert
