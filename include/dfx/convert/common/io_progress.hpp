// io_progress: process-wide counters of the bytes the converters have read and
// written, for a progress display (tools/dfx/progress.hpp) to sample.
//
//   dfx::convert::io_progress::add_read(n);      // a reader, after each block
//   dfx::convert::io_progress::read_bytes();     // the display, from any thread
//
// Relaxed atomics: a counter bumped once per block (about 1 MiB) costs nothing
// measurable, and a display needs no ordering.
#pragma once

#include <atomic>
#include <cstdint>

namespace dfx::convert::io_progress {

namespace detail {
inline std::atomic<std::uint64_t> read{0}, written{0};
}  // namespace detail

inline void add_read(std::uint64_t n) noexcept { detail::read.fetch_add(n, std::memory_order_relaxed); }
inline void add_written(std::uint64_t n) noexcept { detail::written.fetch_add(n, std::memory_order_relaxed); }
inline std::uint64_t read_bytes() noexcept { return detail::read.load(std::memory_order_relaxed); }
inline std::uint64_t written_bytes() noexcept { return detail::written.load(std::memory_order_relaxed); }

}  // namespace dfx::convert::io_progress
