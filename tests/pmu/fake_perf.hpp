// A stand-in for the kernel's perf_event_open: it grants or refuses each
// counter as a test scripts it and serves the counts the test sets, so the
// perf source's mapping, scaling and fallback are tested on any machine
// (including a VM with no PMU, where the real call fails).
#pragma once

#include <cerrno>
#include <cstdint>
#include <map>
#include <set>

#include "dfx/policy/perf_pmu_source.hpp"

namespace pmu_test {

struct fake_kernel {
    static inline int refuse_cycles_errno = 0;          // non-zero: opening the cycle counter fails with it
    static inline std::set<dfx::perf_counter> missing;  // counters this "CPU" does not have (ENOENT)
    static inline std::map<dfx::perf_counter, std::uint64_t> counts;
    static inline std::uint64_t time_enabled = 1000, time_running = 1000;
    static inline std::map<int, dfx::perf_counter> open_fds;
    static inline int next_fd = 100;

    static void reset() {
        refuse_cycles_errno = 0;
        missing.clear();
        counts.clear();
        time_enabled = time_running = 1000;
        open_fds.clear();
    }
};

struct fake_syscalls {
    static int open(dfx::perf_event_code code) noexcept {
        for (int c = 1; c < dfx::perf_counter_count; ++c) {
            const auto counter = static_cast<dfx::perf_counter>(c);
            const auto known = dfx::perf_code(counter);
            if (known.type != code.type || known.config != code.config) continue;
            if (counter == dfx::perf_counter::cycles && fake_kernel::refuse_cycles_errno) {
                errno = fake_kernel::refuse_cycles_errno;
                return -1;
            }
            if (fake_kernel::missing.count(counter)) {
                errno = ENOENT;
                return -1;
            }
            const int fd = fake_kernel::next_fd++;
            fake_kernel::open_fds[fd] = counter;
            return fd;
        }
        errno = EINVAL;
        return -1;
    }
    static bool read(int fd, std::uint64_t (&values)[3]) noexcept {
        const auto it = fake_kernel::open_fds.find(fd);
        if (it == fake_kernel::open_fds.end()) return false;
        values[0] = fake_kernel::counts[it->second];
        values[1] = fake_kernel::time_enabled;
        values[2] = fake_kernel::time_running;
        return true;
    }
    static void close(int fd) noexcept { fake_kernel::open_fds.erase(fd); }
};

using fake_perf_source = dfx::perf_pmu_source<fake_syscalls>;
using fake_host_source = dfx::fallback_pmu_source<fake_perf_source, dfx::simulated_pmu_source>;

}  // namespace pmu_test
