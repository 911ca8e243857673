// duration_stats: count, total, mean, quartiles, p90 and extremes of a set of
// durations, the summary every per-kernel and per-run timing of `dfx report`
// and `dfx compare` is given as (its own header so that the readers of a
// summary, such as compare/significance.hpp, do not compile the code that
// measures one).
//
//   const duration_stats s = stats_of({3.0, 1.0, 2.0});   // median 2, p25 1, p75 3, iqr() 2
//   if (s.count) use(s.median, s.p90, s.iqr());
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace dfx::convert::report {

struct duration_stats {
    std::size_t count = 0;
    double total = 0.0, mean = 0.0, median = 0.0, p90 = 0.0, min = 0.0, max = 0.0;
    double p25 = 0.0, p75 = 0.0;  // quartiles: p75 - p25 is the spread `dfx compare` calls noise

    [[nodiscard]] double iqr() const { return p75 - p25; }
};

inline duration_stats stats_of(std::vector<double> v) {
    duration_stats s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    s.count = v.size();
    for (const double x : v) s.total += x;
    s.mean = s.total / static_cast<double>(v.size());
    const std::size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    s.p90 = v[std::min(n * 9 / 10, n - 1)];
    s.p25 = v[n / 4];
    s.p75 = v[std::min(n * 3 / 4, n - 1)];
    s.min = v.front();
    s.max = v.back();
    return s;
}

}  // namespace dfx::convert::report
