// clock_alignment: map device cycles onto the host clock from the clock anchors
// of a host-orchestrated capture (spec chip-swimlane.md §4.5).
//
// Fails closed: any doubt (missing anchors, unsupported units, anchors in the
// wrong order, a device timestamp outside the anchored interval) gives status
// "unaligned" with a reason, and the converter then lays the device timeline
// after the host span instead of pretending to know the offset.
//
// The mapping is integer arithmetic with three divisions that each truncate
// toward zero, done in 128 bits so the low bits survive at 10^18 cycles:
//   host_ns = s.mid + d*1e9/f + (e.mid - (s.mid + D*1e9/f)) * d / D
// with d = c - s.cycles and D = e.cycles - s.cycles.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "dfx/convert/common/json_value.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/swimlane/records.hpp"

namespace dfx::convert::swimlane {

struct clock_anchor {
    std::string position;
    std::int64_t sample_idx = 0;
    int128 host_mid_ns = 0;
    int128 device_cycles = 0;
    int128 rtt_ns = 0;
    int128 uncertainty_ns = 0;
};

struct clock_alignment {
    bool calibrated = false;
    std::string reason;  // set when unaligned
    int128 frequency_hz = 0;
    int128 quantization_ns = 0;
    std::optional<clock_anchor> start;
    std::optional<clock_anchor> end;

    [[nodiscard]] bool contains(int128 cycles) const noexcept {
        return calibrated && start && end && start->device_cycles <= cycles && cycles <= end->device_cycles;
    }

    // Precondition: contains(cycles) (checked for all timestamps up front).
    [[nodiscard]] int128 map_cycles_to_host_ns(int128 cycles) const noexcept {
        const int128 delta = cycles - start->device_cycles;
        const int128 span = end->device_cycles - start->device_cycles;
        const int128 nominal_delta = mul_div(delta, 1'000'000'000, frequency_hz);
        const int128 nominal_end = start->host_mid_ns + mul_div(span, 1'000'000'000, frequency_hz);
        const int128 correction = mul_div(end->host_mid_ns - nominal_end, delta, span);
        return start->host_mid_ns + nominal_delta + correction;
    }

    // The "clock_alignment" object of the trace's timeline metadata.
    template <class Out>
    void write_metadata(Out& out) const {
        out.append(R"({"status": )");
        out.append_string(calibrated ? "calibrated" : "unaligned");
        out.append(R"(, "method": "nominal_frequency_offset_interp_v1", "anchor_uncertainty_ns": )");
        const bool both = start && end;
        const int128 anchor_unc = both ? (start->uncertainty_ns > end->uncertainty_ns ? start->uncertainty_ns
                                                                                      : end->uncertainty_ns)
                                       : 0;
        out.append(both ? to_decimal(anchor_unc) : "null");
        out.append(R"(, "host_timestamp_quantization_ns": )");
        out.append(to_decimal(quantization_ns));
        out.append(R"(, "max_uncertainty_ns": )");
        out.append(both ? to_decimal(anchor_unc + quantization_ns) : "null");
        if (!calibrated) {
            out.append(R"(, "reason": )");
            out.append_string(reason);
        }
        if (both) {
            out.append(R"(, "selected_sample_idx": {)");
            out.append_string(start->position);
            out.append(": ");
            out.append_int(start->sample_idx);
            out.append(", ");
            out.append_string(end->position);
            out.append(": ");
            out.append_int(end->sample_idx);
            out.push_back('}');
        }
        out.push_back('}');
    }

    // value * multiplier / divisor truncated toward zero, for divisor > 0 and
    // |multiplier|, divisor below 2^64. The product is never formed: it can
    // pass 2^127 (a 2^95 ns correction times a 2^64-cycle delta, from a file's
    // extreme anchors) while the quotient fits. With |value| = q*divisor + r:
    // |value|*|multiplier|/divisor = q*|multiplier| + r*|multiplier|/divisor.
    static int128 mul_div(int128 value, int128 multiplier, int128 divisor) noexcept {
        const bool negative = (value < 0) != (multiplier < 0);
        const uint128 a = value < 0 ? -static_cast<uint128>(value) : static_cast<uint128>(value);
        const uint128 b = multiplier < 0 ? -static_cast<uint128>(multiplier) : static_cast<uint128>(multiplier);
        const auto d = static_cast<uint128>(divisor);
        const uint128 m = a / d * b + a % d * b / d;
        return negative ? -static_cast<int128>(m) : static_cast<int128>(m);
    }
};

inline constexpr std::string_view pre_position = "pre_host_orchestration";
inline constexpr std::string_view post_position = "post_device_execution";

// Builds the alignment; min/max_device are the extreme non-zero device
// timestamps of the capture (0 when there is none).
inline clock_alignment build_clock_alignment(const clock_anchors& anchors, int128 frequency_hz,
                                             int128 quantization_ns, std::uint64_t min_device,
                                             std::uint64_t max_device) {
    clock_alignment a;
    a.frequency_hz = frequency_hz;
    auto unaligned = [&](std::string reason) {
        clock_alignment u;
        u.frequency_hz = frequency_hz;
        u.quantization_ns = quantization_ns < 0 ? 0 : quantization_ns;
        u.reason = std::move(reason);
        return u;
    };
    if (quantization_ns < 0) return unaligned("invalid_host_timestamp_quantization");
    a.quantization_ns = quantization_ns;
    if (frequency_hz <= 0) return unaligned("invalid_device_frequency");
    if (!anchors.present) return unaligned("missing_clock_anchors");
    if (!anchors.samples_is_list) return unaligned("missing_clock_anchor_samples");
    if (anchors.device_timestamp_unit != "syscnt_cycles") return unaligned("unsupported_device_timestamp_unit");
    int128 device_quantization_ns = 0;
    if (anchors.raw_unit_is_string && anchors.raw_device_timestamp_unit == "device_uptime_us") {
        // The event timestamp has microsecond resolution; normalising it to
        // cycles does not recover the lost sub-microsecond part.
        device_quantization_ns = 1000;
    } else if (!(anchors.raw_unit_is_string && anchors.raw_device_timestamp_unit == "syscnt_cycles")) {
        return unaligned("unsupported_raw_device_timestamp_unit");
    }

    // Per position, the valid sample with the smallest (rtt, sample_idx).
    std::optional<clock_anchor> best[2];
    for (const clock_sample& s : anchors.samples) {
        const int slot = s.position == pre_position ? 0 : s.position == post_position ? 1 : -1;
        if (slot < 0 || !s.usable) continue;
        if (s.host_before_ns <= 0 || s.device_cycles <= 0 || s.host_after_ns < s.host_before_ns || s.sample_idx < 0) {
            continue;
        }
        clock_anchor c;
        c.position = s.position;
        c.sample_idx = s.sample_idx;
        c.rtt_ns = s.host_after_ns - s.host_before_ns;
        c.host_mid_ns = s.host_before_ns + c.rtt_ns / 2;
        c.device_cycles = s.device_cycles;
        c.uncertainty_ns = (c.rtt_ns + 1) / 2 + device_quantization_ns;
        auto& b = best[slot];
        if (!b || c.rtt_ns < b->rtt_ns || (c.rtt_ns == b->rtt_ns && c.sample_idx < b->sample_idx)) b = c;
    }
    if (!best[0]) return unaligned("no_valid_pre_host_orchestration_anchor");
    if (!best[1]) return unaligned("no_valid_post_device_execution_anchor");
    if (best[1]->host_mid_ns <= best[0]->host_mid_ns) return unaligned("host_anchor_order_invalid");
    if (best[1]->device_cycles <= best[0]->device_cycles) return unaligned("device_anchor_order_invalid");
    a.calibrated = true;
    a.start = best[0];
    a.end = best[1];
    if (min_device != 0 && (!a.contains(min_device) || !a.contains(max_device))) {
        return unaligned("device_timestamps_outside_anchor_coverage");
    }
    return a;
}

}  // namespace dfx::convert::swimlane
