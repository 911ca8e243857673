// significance: when `dfx compare` calls a delta significant (docs/converters.md,
// "dfx compare"). One run gives one sample of the makespan, but many samples
// of each kernel's duration, so the rule depends on what the measure is:
//
//   spread     per-kernel exec / latency percentiles, head / tail overhead:
//              |delta| > max(IQR of A, IQR of B, 2 % of A, 0.1 us), or (p50
//              rows) the two runs' interquartile boxes [p25, p75] do not
//              overlap and |delta| > the floor. Tasks of one kernel in one run already
//              differ by their interquartile range; a percentile that moved
//              less than that is within what the same kernel does from task
//              to task, unless the middle halves of the two runs are apart
//              (a shift, with one run's spread widened by a few preempted
//              tasks). The 2 % / 0.1 us floor keeps a kernel whose tasks all
//              took the same time (IQR 0, or one task) from flagging a
//              rounding-sized change.
//   relative   makespan, critical path: |delta| > 5 % of A (--min-change).
//              One run is one sample: there is no spread to measure, so this
//              is a floor on what a tuning step is worth acting on. It is not
//              a noise estimate: repeats of one dfx-sim run on a loaded host
//              differ by far more (docs/converters.md); raise it there.
//   points     utilisation and PMU pipe shares (percentages): |delta| > 3
//              percentage points, for the same reason as the makespan
//              (one sample per run).
//   ring       a ring's high water: the verdict changed (fits / at risk /
//              full), or |delta| > 10 % of the capacity.
//   exact      counts (tasks, edges, depth, a kernel's task count, graph
//              changes): any change; they do not vary with timing.
//
//   const noise n = spread_noise(a_stats, b_stats, a_value);
//   row.significant = is_significant(delta, n);
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "dfx/convert/report/duration_stats.hpp"

namespace dfx::convert::compare {

inline constexpr double spread_relative_floor = 0.02;  // of A
inline constexpr double spread_absolute_floor_us = 0.1;
inline constexpr double relative_floor = 0.05;         // makespan, critical path (--min-change)
inline constexpr double points_floor = 3.0;            // percentage points
inline constexpr double ring_capacity_share = 0.10;    // of the ring's capacity

// |delta| above `threshold` (the measure's unit) is significant; `basis`
// names the rule for the table ("iqr", "floor", "boxes", "5%", "3pt", "ring", "exact").
struct noise {
    double threshold = 0.0;
    std::string basis;
    double floor = 0.0;  // spread rule: the smallest delta that counts when the boxes are apart
    bool apart = false;  // spread rule: the runs' [p25, p75] do not overlap
};

// `median`: the row is a p50, which the boxes speak for (a p90 is not).
inline noise spread_noise(const report::duration_stats& a, const report::duration_stats& b, double a_value,
                          bool median = false) {
    const double iqr = std::max(a.iqr(), b.iqr());
    const double floor = std::max(spread_relative_floor * std::fabs(a_value), spread_absolute_floor_us);
    const bool apart = median && (a.p75 < b.p25 || b.p75 < a.p25);
    if (apart) return {std::max(iqr, floor), "boxes", floor, true};
    return iqr >= floor ? noise{iqr, "iqr", floor, false} : noise{floor, "floor", floor, false};
}

// `floor` is a fraction of A: `dfx compare --min-change PCT` sets it (default 5 %).
inline noise relative_noise(double a_value, double floor = relative_floor) {
    return {floor * std::fabs(a_value), fmt::format("{:g}%", floor * 100)};
}
inline noise points_noise() { return {points_floor, "3pt"}; }
inline noise ring_noise(double capacity) { return {ring_capacity_share * capacity, "ring"}; }
inline noise exact_noise() { return {0.0, "exact"}; }

inline bool is_significant(double delta, const noise& n) {
    return std::fabs(delta) > n.threshold || (n.apart && std::fabs(delta) > n.floor);
}

}  // namespace dfx::convert::compare
