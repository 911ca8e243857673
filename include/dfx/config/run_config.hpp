// The run configuration: the five collector switches, ring knobs, AICPU
// thread count and output prefix, with the reference RunConfig semantics
// (../shared/spec/run-config.md §1-§4) and stricter validation where the
// reference silently accepts nonsense (see docs/run-config.md).
//
//   dfx::run_config_input in;           // what the user wrote
//   in.enable_chip_swimlane = true;     // bool -> level 4
//   in.output_prefix = work_dir + "/dfx_outputs";
//   dfx::run_config cfg = dfx::validate(in);   // throws dfx::config_error
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dfx/config/config_error.hpp"
#include "dfx/policy/collector_choice.hpp"
#include "dfx/policy/dump_level.hpp"
#include "dfx/policy/pmu_event.hpp"
#include "dfx/policy/swimlane_level.hpp"

namespace dfx {

// A level as the user wrote it: a bool (true means "the usual level") or an int.
struct level_arg {
    long long value = 0;
    bool is_bool = false;

    constexpr level_arg() = default;
    constexpr level_arg(bool on) : value(on ? 1 : 0), is_bool(true) {}  // NOLINT: implicit by design
    template <std::integral T>
        requires(!std::same_as<T, bool>)
    constexpr level_arg(T level) : value(static_cast<long long>(level)) {}  // NOLINT
};

// A ring knob as the user wrote it: one value for every scope-depth ring, or
// exactly one value per ring (0 keeps that ring's default).
struct ring_knob {
    std::vector<long long> values;
    bool per_ring = false;

    static ring_knob scalar(long long v) { return {{v}, false}; }
    static ring_knob rings(std::vector<long long> v) { return {std::move(v), true}; }
};

inline constexpr int ring_count = 4;  // scope-depth rings 0..3
inline constexpr std::size_t output_prefix_max = 1023;  // the runtime's prefix buffer, less the NUL

struct run_config_input {
    std::optional<level_arg> enable_chip_swimlane;
    std::optional<level_arg> enable_l2_swimlane;  // deprecated alias of enable_chip_swimlane
    level_arg enable_dump_args{0};
    long long enable_pmu = 0;
    bool enable_dep_gen = false;
    bool enable_scope_stats = false;
    std::optional<ring_knob> ring_task_window;
    std::optional<ring_knob> ring_heap;
    std::optional<ring_knob> ring_dep_pool;
    long long aicpu_thread_num = 0;  // 0 = auto
    std::string output_prefix;
    bool keep_work_dir = false;
};

using warning_sink = std::function<void(std::string_view)>;

inline void warn_to_stderr(std::string_view message) {
    std::cerr << "DeprecationWarning: " << message << '\n';
}

struct validation_options {
    warning_sink warn = warn_to_stderr;
    int max_aicpu_threads = 4;  // the platform's range is [2, max]; a2a3 has 4, a5 has 5
};

// Per-ring values after validation; a ring whose value is 0 keeps its default.
using ring_values = std::array<std::uint64_t, ring_count>;

struct ring_overrides {
    std::optional<ring_values> task_window;
    std::optional<ring_values> heap;
    std::optional<ring_values> dep_pool;
};

struct run_config {
    collector_choice collectors;
    ring_overrides rings;
    int aicpu_thread_num = 0;
    std::string output_prefix;
    bool keep_work_dir = false;

    bool any_enabled() const noexcept { return collectors.any_enabled(); }
};

namespace detail {

inline std::string describe(const level_arg& a) {
    return a.is_bool ? (a.value ? "true" : "false") : std::to_string(a.value);
}

inline int normalize_swimlane_level(const level_arg& a, const std::string& field) {
    if (a.is_bool) return a.value ? max_swimlane_level : 0;
    if (a.value < 0 || a.value > max_swimlane_level)
        throw config_error(field,
                           "must be a collection level in [0, 4] (0=off, 1=AICore timing, "
                           "2=+dispatch/finish, 3=+sched phases, 4=+orch phases), got " +
                               describe(a));
    return static_cast<int>(a.value);
}

inline int normalize_dump_level(const level_arg& a) {
    if (a.is_bool) return a.value ? 1 : 0;
    if (a.value < 0 || a.value > max_dump_level)
        throw config_error("enable_dump_args",
                           "must be a dump level in [0, 2] (0=off, 1=marked arguments only, "
                           "2=every argument of every task), got " +
                               describe(a));
    return static_cast<int>(a.value);
}

inline int validate_pmu_event(long long event) {
    if (!is_pmu_event(event))
        throw config_error("enable_pmu",
                           "must be 0 (off) or a PMU event type: 1 ARITHMETIC_UTILIZATION, "
                           "2 PIPE_UTILIZATION, 4 MEMORY, 5 MEMORY_L0, 6 RESOURCE_CONFLICT, "
                           "7 MEMORY_UB, 8 L2_CACHE; got " +
                               std::to_string(event));
    return static_cast<int>(event);
}

struct ring_rule {
    const char* field;
    const char* phrase;
    bool (*accepts)(long long);
};

inline constexpr long long int32_max = 2147483647LL;

inline constexpr ring_rule task_window_rule{
    "ring_task_window", "be a power of 2 in [4, INT32_MAX]",
    [](long long v) { return v >= 4 && v <= int32_max && (v & (v - 1)) == 0; }};
inline constexpr ring_rule heap_rule{"ring_heap", "be >= 1024 (bytes per ring)",
                                     [](long long v) { return v >= 1024; }};
inline constexpr ring_rule dep_pool_rule{"ring_dep_pool", "be in [4, INT32_MAX]",
                                         [](long long v) { return v >= 4 && v <= int32_max; }};

inline std::optional<ring_values> validate_ring(const std::optional<ring_knob>& knob, const ring_rule& rule) {
    if (!knob) return std::nullopt;
    ring_values out{};
    if (!knob->per_ring) {
        const long long v = knob->values.empty() ? 0 : knob->values.front();
        if (knob->values.size() != 1 || !rule.accepts(v))
            throw config_error(rule.field, std::string("must ") + rule.phrase + ", got " + std::to_string(v) +
                                               (v == 0 ? " (leave the knob unset to keep the default)" : ""));
        out.fill(static_cast<std::uint64_t>(v));
        return out;
    }
    if (knob->values.size() != ring_count)
        throw config_error(rule.field, "must have exactly 4 entries (one per scope-depth ring), got " +
                                           std::to_string(knob->values.size()));
    for (int i = 0; i < ring_count; ++i) {
        const long long v = knob->values[static_cast<std::size_t>(i)];
        if (v != 0 && !rule.accepts(v))
            throw config_error(rule.field, std::string("entries must ") + rule.phrase +
                                               " (or 0 to keep default), got " + std::to_string(v) +
                                               " for ring " + std::to_string(i));
        out[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(v);
    }
    return out;
}

}  // namespace detail

// Validates and normalises what the user wrote. The first failing field
// raises config_error; the order follows the reference's __post_init__.
inline run_config validate(const run_config_input& in, const validation_options& options = {}) {
    run_config out;

    if (in.enable_l2_swimlane) {
        if (options.warn)
            options.warn(
                "enable_l2_swimlane is deprecated; use enable_chip_swimlane instead (the artefact is "
                "chip_swimlane_records.json). The alias will be removed in a future release.");
        if (in.enable_chip_swimlane)
            throw config_error("enable_l2_swimlane",
                               "received both enable_chip_swimlane and the deprecated enable_l2_swimlane; "
                               "pass only enable_chip_swimlane");
    }
    if (in.enable_chip_swimlane)
        out.collectors.swimlane_level = detail::normalize_swimlane_level(*in.enable_chip_swimlane,
                                                                         "enable_chip_swimlane");
    else if (in.enable_l2_swimlane)
        out.collectors.swimlane_level = detail::normalize_swimlane_level(*in.enable_l2_swimlane,
                                                                         "enable_l2_swimlane");
    out.collectors.dump_level = detail::normalize_dump_level(in.enable_dump_args);
    out.collectors.pmu_event = detail::validate_pmu_event(in.enable_pmu);
    out.collectors.dep_gen = in.enable_dep_gen;
    out.collectors.scope_stats = in.enable_scope_stats;

    // The artefacts live in the work dir, so any collector keeps it.
    out.keep_work_dir = in.keep_work_dir || out.any_enabled();

    out.rings.task_window = detail::validate_ring(in.ring_task_window, detail::task_window_rule);
    out.rings.heap = detail::validate_ring(in.ring_heap, detail::heap_rule);
    out.rings.dep_pool = detail::validate_ring(in.ring_dep_pool, detail::dep_pool_rule);

    const long long threads = in.aicpu_thread_num;
    if (threads != 0 && (threads < 2 || threads > options.max_aicpu_threads))
        throw config_error("aicpu_thread_num", "must be 0 (auto) or in [2, " +
                                                   std::to_string(options.max_aicpu_threads) + "], got " +
                                                   std::to_string(threads));
    out.aicpu_thread_num = static_cast<int>(threads);

    if (out.any_enabled() && in.output_prefix.empty())
        throw config_error("output_prefix",
                           "is required when any collector (enable_chip_swimlane / enable_dump_args / "
                           "enable_pmu / enable_dep_gen / enable_scope_stats) is enabled, got an empty path");
    if (in.output_prefix.size() > output_prefix_max)
        throw config_error("output_prefix", "must be at most 1023 bytes, got " +
                                                std::to_string(in.output_prefix.size()) + " bytes");
    out.output_prefix = in.output_prefix;
    while (out.output_prefix.size() > 1 && out.output_prefix.back() == '/') out.output_prefix.pop_back();
    return out;
}

}  // namespace dfx
