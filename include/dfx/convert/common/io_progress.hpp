// io_progress: process-wide counters of the bytes the converters have read and
// written, and of what they are doing while no bytes move, for a progress
// display (tools/dfx/progress.hpp) to sample.
//
//   dfx::convert::io_progress::add_read(n);      // a reader, after each block
//   dfx::convert::io_progress::read_bytes();     // the display, from any thread
//
//   {
//       const dfx::convert::io_progress::stage_scope stage("trace, first pass");
//       dfx::convert::io_progress::add_stage_items(events);  // as they are done, from any thread
//   }                                            // the enclosing stage (or none) again
//
// A stage names work that reads and writes nothing for a long time (a 10^7-task
// protobuf trace's first pass is a minute of it): without one, the display
// would stand still and look hung. Labels are string literals, read by the
// display's thread.
//
// The display's line and the command's own output share the terminal: text
// printed while the line shows would start after it, on the same line. So
// the display draws through show_line() and the command prints its own
// lines holding a console_output, which erases the line first:
//
//   {
//       const dfx::convert::io_progress::console_output hold;
//       fmt::print("Perf data:  {}\n", path);  // on a line of its own
//       std::fflush(stdout);
//   }                                           // the display draws again below it
//
// Relaxed atomics: a counter bumped once per block (about 1 MiB) or per chunk
// of items costs nothing measurable, and a display needs no ordering.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string_view>

namespace dfx::convert::io_progress {

namespace detail {
inline std::atomic<std::uint64_t> read{0}, written{0};
inline std::atomic<const char*> stage{nullptr};
inline std::atomic<std::uint64_t> stage_items{0}, stage_total{0};
inline std::recursive_mutex console;  // the terminal's stderr line (a command's holds may nest)
inline bool line_shown = false;  // guarded by console
inline void erase_shown_line() {  // console held
    if (!line_shown) return;
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    line_shown = false;
}
}  // namespace detail

inline void add_read(std::uint64_t n) noexcept { detail::read.fetch_add(n, std::memory_order_relaxed); }
inline void add_written(std::uint64_t n) noexcept { detail::written.fetch_add(n, std::memory_order_relaxed); }
inline std::uint64_t read_bytes() noexcept { return detail::read.load(std::memory_order_relaxed); }
inline std::uint64_t written_bytes() noexcept { return detail::written.load(std::memory_order_relaxed); }

// The current stage for as long as it lives, its item count from 0 and the
// items it will do when known (`total`, 0 when not); the enclosing stage and
// its counts come back when it ends.
class stage_scope {
public:
    explicit stage_scope(const char* label, std::uint64_t total = 0) noexcept
        : outer_(detail::stage.exchange(label, std::memory_order_relaxed)),
          outer_items_(detail::stage_items.exchange(0, std::memory_order_relaxed)),
          outer_total_(detail::stage_total.exchange(total, std::memory_order_relaxed)) {}
    stage_scope(const stage_scope&) = delete;
    stage_scope& operator=(const stage_scope&) = delete;
    ~stage_scope() {
        detail::stage.store(outer_, std::memory_order_relaxed);
        detail::stage_items.store(outer_items_, std::memory_order_relaxed);
        detail::stage_total.store(outer_total_, std::memory_order_relaxed);
    }

private:
    const char* outer_;
    std::uint64_t outer_items_, outer_total_;
};

inline void add_stage_items(std::uint64_t n) noexcept { detail::stage_items.fetch_add(n, std::memory_order_relaxed); }
// A running count (events written, say) told to the display in batches, so
// a hot loop pays one atomic add per `batch` items rather than one per item.
class stage_ticker {
public:
    static constexpr std::uint64_t batch = 4096;
    explicit stage_ticker(std::uint64_t count_now) noexcept : told_(count_now) {}
    void tick(std::uint64_t count_now) noexcept {
        if (count_now - told_ >= batch) finish(count_now);
    }
    // What is left untold; call once at the end (ticking may go on after).
    void finish(std::uint64_t count_now) noexcept {
        add_stage_items(count_now - told_);
        told_ = count_now;
    }

private:
    std::uint64_t told_;
};

// nullptr when no stage is set.
inline const char* stage() noexcept { return detail::stage.load(std::memory_order_relaxed); }
inline std::uint64_t stage_items() noexcept { return detail::stage_items.load(std::memory_order_relaxed); }
inline std::uint64_t stage_total() noexcept { return detail::stage_total.load(std::memory_order_relaxed); }

// The display's side: its line on stderr, replacing the one shown, and its
// erasure at the end.
inline void show_line(std::string_view text) {
    const std::lock_guard lock(detail::console);
    std::fputs("\r\033[K", stderr);
    std::fwrite(text.data(), 1, text.size(), stderr);
    std::fflush(stderr);
    detail::line_shown = true;
}
inline void erase_line() {
    const std::lock_guard lock(detail::console);
    detail::erase_shown_line();
}

// The command's side: the terminal for its own lines while this lives, the
// display's line erased first (if one shows).
class console_output {
public:
    console_output() : lock_(detail::console) { detail::erase_shown_line(); }
    console_output(const console_output&) = delete;
    console_output& operator=(const console_output&) = delete;

private:
    std::lock_guard<std::recursive_mutex> lock_;
};

}  // namespace dfx::convert::io_progress
