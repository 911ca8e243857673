// A PMU counter source for a Linux host: the calling thread's CPU counters
// through perf_event_open, mapped onto the columns of the event type (the
// table is perf_columns() below; docs/pmu.md explains each choice).
//
//   dfx::perf_pmu_source<> source;                      // on the worker thread it will count
//   if (!source.open(dfx::pmu_event_id::pipe_utilization)) ...source.status().refused_errno...
//   dfx::aicore_view<G, C, S, dfx::perf_pmu_source<>> view{&sink, &source};
//
// open() needs the cycle counter; without it (perf_event_paranoid, a VM with
// no PMU, seccomp) it fails and keeps errno, which is what
// fallback_pmu_source (policy/pmu_source.hpp) reports when it falls back to
// the simulated source: dfx::host_pmu_source does exactly that. A column with
// no counter behind it (no CPU analog, or one this CPU lacks) reads 0 and is
// flagged in status().unavailable_columns, so a zero is never mistaken for a
// count.
//
// Counters are opened per event, not as one group: a group larger than the
// CPU's counter budget would never be scheduled. When the kernel multiplexes
// them, each value is scaled by time_enabled / time_running, as perf stat does.
#pragma once

#include <cerrno>
#include <cstdint>

#include "dfx/policy/pmu_event.hpp"
#include "dfx/policy/pmu_source.hpp"

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace dfx {

// The generic CPU counters the mapping uses.
enum class perf_counter : std::uint8_t {
    none,
    cycles,
    instructions,
    branch_instructions,
    branch_misses,
    cache_references,
    cache_misses,
    stalled_cycles_frontend,
    stalled_cycles_backend,
    l1d_read_access,
    l1d_read_miss,
    l1d_write_access,
    l1i_read_access,
    l1i_read_miss,
    ll_read_access,
    ll_read_miss,
    ll_write_access,
    ll_write_miss,
};
inline constexpr int perf_counter_count = 18;

// perf_event_attr type and config of each counter (Linux perf ABI values).
struct perf_event_code {
    std::uint32_t type = 0;
    std::uint64_t config = 0;
};

constexpr perf_event_code perf_code(perf_counter c) noexcept {
    constexpr std::uint32_t hardware = 0, hw_cache = 3;
    constexpr std::uint64_t l1d = 0, l1i = 1, ll = 2, read = 0, write = 1, access = 0, miss = 1;
    const auto cache = [](std::uint64_t id, std::uint64_t op, std::uint64_t result) {
        return perf_event_code{hw_cache, id | (op << 8) | (result << 16)};
    };
    switch (c) {
        case perf_counter::none: break;
        case perf_counter::cycles: return {hardware, 0};
        case perf_counter::instructions: return {hardware, 1};
        case perf_counter::cache_references: return {hardware, 2};
        case perf_counter::cache_misses: return {hardware, 3};
        case perf_counter::branch_instructions: return {hardware, 4};
        case perf_counter::branch_misses: return {hardware, 5};
        case perf_counter::stalled_cycles_frontend: return {hardware, 7};
        case perf_counter::stalled_cycles_backend: return {hardware, 8};
        case perf_counter::l1d_read_access: return cache(l1d, read, access);
        case perf_counter::l1d_read_miss: return cache(l1d, read, miss);
        case perf_counter::l1d_write_access: return cache(l1d, write, access);
        case perf_counter::l1i_read_access: return cache(l1i, read, access);
        case perf_counter::l1i_read_miss: return cache(l1i, read, miss);
        case perf_counter::ll_read_access: return cache(ll, read, access);
        case perf_counter::ll_read_miss: return cache(ll, read, miss);
        case perf_counter::ll_write_access: return cache(ll, write, access);
        case perf_counter::ll_write_miss: return cache(ll, write, miss);
    }
    return {};
}

#if defined(__linux__)
static_assert(perf_code(perf_counter::cycles).type == PERF_TYPE_HARDWARE &&
              perf_code(perf_counter::cycles).config == PERF_COUNT_HW_CPU_CYCLES);
static_assert(perf_code(perf_counter::stalled_cycles_backend).config == PERF_COUNT_HW_STALLED_CYCLES_BACKEND);
static_assert(perf_code(perf_counter::ll_write_miss).type == PERF_TYPE_HW_CACHE &&
              perf_code(perf_counter::ll_write_miss).config ==
                  (PERF_COUNT_HW_CACHE_LL | (PERF_COUNT_HW_CACHE_OP_WRITE << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16)));
#endif

// One column: `count`, minus `minus` when the column is a difference (a
// cache hit is an access that did not miss). `none` leaves the column at 0.
struct perf_column {
    perf_counter count = perf_counter::none;
    perf_counter minus = perf_counter::none;
};
using perf_mapping = std::array<perf_column, pmu_counter_slots>;

// The CPU counter behind each column of each event type, slot for slot with
// pmu_counters(). Where the Ascend column has a CPU analog it is used; where
// it has none the column is 0. ARITHMETIC_UTILIZATION has no per-unit analog
// at all (a CPU core has no cube or vector units perf can count separately),
// so its first three columns carry the generic execution counts instead.
constexpr perf_mapping perf_columns(pmu_event_id event) noexcept {
    using enum perf_counter;
    switch (event) {
        case pmu_event_id::arithmetic_utilization:
            // cube_fp16_exec, cube_int8_exec, vec_fp32_exec, ... (rest 0)
            return {perf_column{instructions}, perf_column{branch_instructions}, perf_column{branch_misses}};
        case pmu_event_id::pipe_utilization:
            // vec_busy, cube_busy, scalar_busy, mte1_busy, mte2_busy, mte3_busy, icache_miss, icache_req
            return {perf_column{}, perf_column{}, perf_column{cycles}, perf_column{}, perf_column{stalled_cycles_backend},
                    perf_column{}, perf_column{l1i_read_miss}, perf_column{l1i_read_access}};
        case pmu_event_id::memory:
            // ub_read, ub_write, l1_read, l1_write, l2_read, l2_write, main_read, main_write
            return {perf_column{l1d_read_access}, perf_column{l1d_write_access}, perf_column{}, perf_column{},
                    perf_column{ll_read_access}, perf_column{ll_write_access}, perf_column{ll_read_miss},
                    perf_column{ll_write_miss}};
        case pmu_event_id::memory_l0:
            // l0a_read, l0a_write, l0b_read, l0b_write, l0c_read, l0c_write
            return {perf_column{l1d_read_access}, perf_column{l1d_write_access}};
        case pmu_event_id::resource_conflict:
            // bankgroup_stall_cycles, bank_stall_cycles, vec_resc_conflict_cycles
            return {perf_column{stalled_cycles_frontend}, perf_column{stalled_cycles_backend}};
        case pmu_event_id::memory_ub:
            // ub_read_bw_mte, l2_write_bw, main_mem_write_bw, ub_write_bw_mte, (vector, scalar: 0)
            return {perf_column{l1d_read_access}, perf_column{ll_write_access}, perf_column{ll_write_miss},
                    perf_column{l1d_write_access}};
        case pmu_event_id::l2_cache:
            // write hit, write miss, r0 read hit, r0 read miss, r1 read hit, r1 read miss
            return {perf_column{ll_write_access, ll_write_miss}, perf_column{ll_write_miss},
                    perf_column{ll_read_access, ll_read_miss}, perf_column{ll_read_miss},
                    perf_column{cache_references, cache_misses}, perf_column{cache_misses}};
        case pmu_event_id::off: break;
    }
    return {};
}

// The system calls, as a policy, so a test can stand in for a kernel that
// refuses (or grants) them.
struct linux_perf_syscalls {
    // Opens a counter of the calling thread, user space only: -1 with errno set on failure.
    static int open(perf_event_code code) noexcept {
#if defined(__linux__)
        perf_event_attr attr{};
        attr.size = sizeof attr;
        attr.type = code.type;
        attr.config = code.config;
        attr.exclude_kernel = 1;  // what perf_event_paranoid <= 2 allows an unprivileged user
        attr.exclude_hv = 1;
        attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
        return static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
#else
        (void)code;
        errno = ENOSYS;
        return -1;
#endif
    }
    // {value, time_enabled, time_running}
    static bool read(int fd, std::uint64_t (&values)[3]) noexcept {
#if defined(__linux__)
        return ::read(fd, values, sizeof values) == static_cast<ssize_t>(sizeof values);
#else
        (void)fd;
        (void)values;
        return false;
#endif
    }
    static void close(int fd) noexcept {
#if defined(__linux__)
        ::close(fd);
#else
        (void)fd;
#endif
    }
};

template <class Syscalls = linux_perf_syscalls>
class perf_pmu_source {
public:
    perf_pmu_source() noexcept {
        for (int& fd : fds_) fd = -1;
    }
    perf_pmu_source(const perf_pmu_source&) = delete;
    perf_pmu_source& operator=(const perf_pmu_source&) = delete;
    ~perf_pmu_source() { close_all(); }

    // Opens the counters the event type needs, for the calling thread.
    // False (errno kept in status()) when the cycle counter cannot be opened.
    bool open(pmu_event_id event) noexcept {
        close_all();
        unavailable_ = 0;
        refused_errno_ = 0;
        if (!open_counter(perf_counter::cycles)) {
            refused_errno_ = static_cast<std::uint16_t>(errno);
            return false;
        }
        columns_ = perf_columns(event);
        const pmu_counter_names names = pmu_counters(event);
        for (int i = 0; i < pmu_counter_slots; ++i) {
            const perf_column& col = columns_[static_cast<std::size_t>(i)];
            if (names[static_cast<std::size_t>(i)].empty()) continue;  // unused slot: no column at all
            const bool ok = col.count != perf_counter::none && open_counter(col.count) &&
                            (col.minus == perf_counter::none || open_counter(col.minus));
            if (!ok) unavailable_ |= static_cast<std::uint8_t>(1u << i);
        }
        return true;
    }

    void read(pmu_sample& out) noexcept {
        std::uint64_t values[perf_counter_count] = {};
        for (int c = 0; c < perf_counter_count; ++c)
            if (fds_[c] >= 0) values[c] = read_scaled(fds_[c]);
        out.total_cycles = values[index(perf_counter::cycles)];
        for (int i = 0; i < pmu_counter_slots; ++i) {
            const perf_column& col = columns_[static_cast<std::size_t>(i)];
            const std::uint64_t a = values[index(col.count)];
            const std::uint64_t b = col.minus == perf_counter::none ? 0 : values[index(col.minus)];
            out.counters[i] = (unavailable_ >> i) & 1u ? 0 : (a > b ? a - b : 0);
        }
    }

    pmu_source_status status() const noexcept {
        return {fds_[index(perf_counter::cycles)] >= 0 ? pmu_source_kind::perf_event : pmu_source_kind::none,
                unavailable_, refused_errno_};
    }

private:
    static constexpr int index(perf_counter c) noexcept { return static_cast<int>(c); }

    bool open_counter(perf_counter c) noexcept {
        int& fd = fds_[index(c)];
        if (fd >= 0) return true;
        fd = Syscalls::open(perf_code(c));
        return fd >= 0;
    }

    static std::uint64_t read_scaled(int fd) noexcept {
        std::uint64_t v[3] = {};
        if (!Syscalls::read(fd, v) || v[2] == 0) return 0;
        if (v[2] >= v[1]) return v[0];
        return static_cast<std::uint64_t>(static_cast<double>(v[0]) * static_cast<double>(v[1]) / static_cast<double>(v[2]));
    }

    void close_all() noexcept {
        for (int& fd : fds_)
            if (fd >= 0) {
                Syscalls::close(fd);
                fd = -1;
            }
    }

    int fds_[perf_counter_count];
    perf_mapping columns_{};
    std::uint8_t unavailable_ = 0;
    std::uint16_t refused_errno_ = 0;
};

// A Linux host's source: perf_event_open when the kernel allows it, else the
// simulated source (seeded per core); status() says which, and why.
using host_pmu_source = fallback_pmu_source<perf_pmu_source<>, simulated_pmu_source>;

}  // namespace dfx
