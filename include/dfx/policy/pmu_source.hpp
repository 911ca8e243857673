// Where PMU counts come from: a counter source is a policy, like a clock.
//
// A counter source is a type with
//   void read(pmu_sample& out) noexcept;          cumulative counts since it was opened
//   pmu_source_status status() const noexcept;    which source it is, and what it could not count
// The AICore view reads it before and after each kernel and records the
// difference (collect/pmu_capture.hpp), so counting is restricted to the
// kernel as on the device. The event type is chosen when the source is
// opened, once per core, off the hot path.
//
// Three kinds exist:
//   a device runtime's own source (reads the core's PMU registers): kind `device`
//   perf_pmu_source (policy/perf_pmu_source.hpp): Linux perf_event_open, kind `perf_event`
//   simulated_pmu_source (below): deterministic counts, kind `simulated`, for
//     hosts without usable perf events; fallback_pmu_source picks it when the
//     preferred source refuses to open, and says why.
#pragma once

#include <concepts>
#include <cstdint>

#include "dfx/policy/pmu_event.hpp"

namespace dfx {

enum class pmu_source_kind : std::uint8_t {
    none = 0,        // the view was given no source: the row's counts are zeros
    device = 1,
    perf_event = 2,
    simulated = 3,
};

// Cumulative counts; 64-bit so a long run never wraps. Slot i is column i of
// the event type (pmu_counters(event)[i]).
struct pmu_sample {
    std::uint64_t total_cycles = 0;
    std::uint64_t counters[pmu_counter_slots] = {};
};

struct pmu_source_status {
    pmu_source_kind kind = pmu_source_kind::none;
    std::uint8_t unavailable_columns = 0;  // bit i: slot i could not be counted here and reads 0
    std::uint16_t refused_errno = 0;       // why the preferred source was not used (0: it was)
};

template <class Source>
concept pmu_counter_source = requires(Source& source, const Source& csource, pmu_sample& out) {
    { source.read(out) } noexcept;
    { csource.status() } noexcept -> std::same_as<pmu_source_status>;
};

// What an AICore view has when it was given no source (PMU off, or a view
// that never stamps PMU). It is deliberately not a counter source.
struct no_pmu_source {};

// Deterministic counts: every kernel (one pair of reads) on a source seeded
// with s counts total_cycles = 1000 + s and slot i = 100 * (i + 1) + s for the
// event's named slots, 0 for unused ones. Obviously synthetic, stable across
// runs and machines, cheap: what a simulator or a test wants.
class simulated_pmu_source {
public:
    explicit simulated_pmu_source(std::uint32_t seed = 0) noexcept : seed_(seed) {}

    bool open(pmu_event_id event) noexcept {
        const pmu_counter_names names = pmu_counters(event);
        named_ = 0;
        for (int i = 0; i < pmu_counter_slots; ++i)
            if (!names[static_cast<std::size_t>(i)].empty()) named_ |= static_cast<std::uint8_t>(1u << i);
        return true;
    }

    // Reads come in pairs (before and after a kernel): after the 2k-th read
    // k kernels have been counted, so each pair differs by one kernel's worth.
    void read(pmu_sample& out) noexcept {
        const std::uint64_t kernels = ++reads_ / 2;
        out.total_cycles = kernels * (1000 + std::uint64_t{seed_});
        for (int i = 0; i < pmu_counter_slots; ++i)
            out.counters[i] = (named_ >> i) & 1u ? kernels * (100 * std::uint64_t(i + 1) + seed_) : 0;
    }

    pmu_source_status status() const noexcept { return {pmu_source_kind::simulated, 0, 0}; }

private:
    std::uint32_t seed_;
    std::uint8_t named_ = 0;
    std::uint64_t reads_ = 0;
};

// Prefer one source, fall back to another when the preferred one refuses to
// open (perf events not permitted, no PMU in the VM, not Linux). The status
// names the source in use and, after a fallback, the preferred one's errno.
//   dfx::host_pmu_source source{core};    // perf_event_open, else simulated (seeded with core)
//   source.open(dfx::pmu_event_id::pipe_utilization);
template <class Preferred, class Fallback>
class fallback_pmu_source {
public:
    template <class... FallbackArgs>
    explicit fallback_pmu_source(FallbackArgs&&... args) noexcept : fallback_(static_cast<FallbackArgs&&>(args)...) {}

    // Opens the preferred source, or the fallback; false only if neither opened.
    bool open(pmu_event_id event) noexcept {
        use_preferred_ = preferred_.open(event);
        if (use_preferred_) return true;
        refused_errno_ = preferred_.status().refused_errno;
        return fallback_.open(event);
    }

    void read(pmu_sample& out) noexcept {
        if (use_preferred_)
            preferred_.read(out);
        else
            fallback_.read(out);
    }

    pmu_source_status status() const noexcept {
        if (use_preferred_) return preferred_.status();
        pmu_source_status s = fallback_.status();
        s.refused_errno = refused_errno_;
        return s;
    }

    bool using_fallback() const noexcept { return !use_preferred_; }

private:
    Preferred preferred_{};
    Fallback fallback_;
    bool use_preferred_ = false;
    std::uint16_t refused_errno_ = 0;
};

}  // namespace dfx
