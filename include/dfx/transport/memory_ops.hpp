// Where transport buffers live. A memory-ops policy is a type with
//   static void* allocate(std::size_t bytes) noexcept;     nullptr on failure; 64-byte aligned
//   static void release(void* device_ptr, std::size_t bytes) noexcept;
//   static void* host_view(void* device_ptr) noexcept;     the host's address of the same bytes
// A real runtime allocates device-visible memory and maps it for the host;
// the producer only ever sees the device pointer, the host drain only the
// host view, and nothing stored inside the block is a pointer (buffers are
// named by index), so the two address spaces may differ.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace dfx {

inline constexpr std::size_t cache_line = 64;

// Plain host memory: the simulator and tests. The block is faulted in when
// it is allocated, as a runtime's device memory is ready when it is handed
// out: otherwise the first write to each fresh page (a page fault, about
// 2.7 ms per MB of them on the machine of docs/hot-paths.md) would land on
// the producing threads in the middle of the run.
struct host_memory {
    static void* allocate(std::size_t bytes) noexcept {
        const std::size_t rounded = (bytes + cache_line - 1) / cache_line * cache_line;
        void* block = std::aligned_alloc(cache_line, rounded);
        if (block != nullptr) fault_in(block, rounded);
        return block;
    }
    static void release(void* device_ptr, std::size_t) noexcept { std::free(device_ptr); }
    static void* host_view(void* device_ptr) noexcept { return device_ptr; }

private:
    // One madvise(MADV_POPULATE_WRITE) over the whole pages (half the cost of
    // faulting them one by one); the bytes stay as they are. Without it, a
    // write to each page.
    static void fault_in(void* block, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
        const auto begin = reinterpret_cast<std::uintptr_t>(block);
        const std::uintptr_t first = (begin + page - 1) / page * page;
        const std::uintptr_t last = (begin + bytes) / page * page;
        if (last <= first || ::madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE) == 0) return;
#endif
        auto* bytes_at = static_cast<volatile unsigned char*>(block);
        for (std::size_t at = 0; at < bytes; at += page) bytes_at[at] = 0;
    }
    static constexpr std::size_t page = 4096;
};

}  // namespace dfx
