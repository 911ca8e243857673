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
#include <cstdlib>

namespace dfx {

inline constexpr std::size_t cache_line = 64;

// Plain host memory: the simulator and tests.
struct host_memory {
    static void* allocate(std::size_t bytes) noexcept {
        const std::size_t rounded = (bytes + cache_line - 1) / cache_line * cache_line;
        return std::aligned_alloc(cache_line, rounded);
    }
    static void release(void* device_ptr, std::size_t) noexcept { std::free(device_ptr); }
    static void* host_view(void* device_ptr) noexcept { return device_ptr; }
};

}  // namespace dfx
