// core_utilisation: did the tasks actually overlap? (the second question of
// the tuning loop, docs/report.md), from the swimlane records' task rows:
// the makespan (first start -> last end), each core's busy time (the union
// of its [start, end) rows, so dual issue is not counted twice), its
// utilisation and its longest idle gap, the time no core ran anything, and a
// utilisation timeline (busy cores per time bin, per core type) for the
// page's chart.
//
//   const core_utilisation u = measure_utilisation(pd, 120);
//   u.all_idle_us: time inside the makespan with every core idle
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dfx/convert/swimlane/perf_data.hpp"

namespace dfx::convert::report {

struct core_busy {
    std::uint32_t core = 0;
    std::string type;             // "aic", "aiv", ...
    std::size_t tasks = 0;
    double busy_us = 0.0;
    double utilisation = 0.0;     // busy / makespan, in [0, 1]
    double longest_gap_us = 0.0;  // longest idle stretch inside the makespan
    double longest_gap_at_us = 0.0;
};

struct utilisation_bins {
    double bin_us = 0.0;
    std::vector<std::string> types;           // one series per core type
    std::vector<std::size_t> cores;           // cores of each type
    std::vector<std::vector<double>> busy;    // [type][bin]: mean busy cores in the bin
};

struct core_utilisation {
    double w0 = 0.0, w1 = 0.0;  // us, the records' time base
    double makespan_us = 0.0;
    std::vector<core_busy> cores;  // by core id
    double mean_utilisation = 0.0;
    double all_idle_us = 0.0;      // every core idle, inside the makespan
    utilisation_bins timeline;
};

namespace detail {

// Sorted, merged [start, end) intervals.
inline std::vector<std::pair<double, double>> merged(std::vector<std::pair<double, double>> v) {
    std::sort(v.begin(), v.end());
    std::vector<std::pair<double, double>> out;
    for (const auto& iv : v) {
        if (!(iv.second > iv.first)) continue;
        if (!out.empty() && iv.first <= out.back().second)
            out.back().second = std::max(out.back().second, iv.second);
        else
            out.push_back(iv);
    }
    return out;
}

}  // namespace detail

inline core_utilisation measure_utilisation(const swimlane::perf_data& pd, std::size_t bins = 120) {
    core_utilisation u;
    if (pd.tasks.empty()) return u;
    u.w0 = pd.tasks.front().start_us;
    u.w1 = pd.tasks.front().end_us;
    for (const auto& t : pd.tasks) {
        u.w0 = std::min(u.w0, t.start_us);
        u.w1 = std::max(u.w1, t.end_us);
    }
    u.makespan_us = u.w1 - u.w0;
    std::map<std::uint32_t, std::pair<std::uint16_t, std::vector<std::pair<double, double>>>> by_core;
    std::vector<std::pair<double, double>> all;
    for (const auto& t : pd.tasks) {
        auto& [type, rows] = by_core[t.core_id];
        type = t.core_type;
        rows.emplace_back(t.start_us, t.end_us);
        all.emplace_back(t.start_us, t.end_us);
    }
    // Timeline series: core types in name order.
    std::map<std::string, std::size_t> type_cores;
    for (const auto& [core, entry] : by_core) ++type_cores[pd.core_type_names[entry.first]];
    for (const auto& [name, n] : type_cores) {
        u.timeline.types.push_back(name);
        u.timeline.cores.push_back(n);
    }
    const std::size_t nbins = u.makespan_us > 0 ? std::max<std::size_t>(bins, 1) : 0;
    u.timeline.bin_us = nbins ? u.makespan_us / static_cast<double>(nbins) : 0.0;
    u.timeline.busy.assign(u.timeline.types.size(), std::vector<double>(nbins, 0.0));
    double busy_sum = 0.0;
    for (auto& [core, entry] : by_core) {
        core_busy c;
        c.core = core;
        c.type = pd.core_type_names[entry.first];
        c.tasks = entry.second.size();
        const auto runs = detail::merged(std::move(entry.second));
        double prev_end = u.w0;
        for (const auto& [s, e] : runs) {
            c.busy_us += e - s;
            if (s - prev_end > c.longest_gap_us) {
                c.longest_gap_us = s - prev_end;
                c.longest_gap_at_us = prev_end;
            }
            prev_end = e;
        }
        if (u.w1 - prev_end > c.longest_gap_us) {
            c.longest_gap_us = u.w1 - prev_end;
            c.longest_gap_at_us = prev_end;
        }
        c.utilisation = u.makespan_us > 0 ? c.busy_us / u.makespan_us : 0.0;
        busy_sum += c.utilisation;
        // Spread each run over the bins it covers.
        const std::size_t slot = static_cast<std::size_t>(
            std::find(u.timeline.types.begin(), u.timeline.types.end(), c.type) - u.timeline.types.begin());
        for (const auto& [s, e] : runs) {
            if (!nbins) break;
            const auto bin_of = [&](double x) {
                const auto b = static_cast<std::size_t>((x - u.w0) / u.timeline.bin_us);
                return std::min(b, nbins - 1);
            };
            for (std::size_t b = bin_of(s); b <= bin_of(e); ++b) {
                const double lo = u.w0 + static_cast<double>(b) * u.timeline.bin_us;
                const double overlap = std::min(e, lo + u.timeline.bin_us) - std::max(s, lo);
                if (overlap > 0) u.timeline.busy[slot][b] += overlap / u.timeline.bin_us;
            }
        }
        u.cores.push_back(std::move(c));
    }
    u.mean_utilisation = u.cores.empty() ? 0.0 : busy_sum / static_cast<double>(u.cores.size());
    double covered = 0.0;
    for (const auto& [s, e] : detail::merged(std::move(all))) covered += e - s;
    u.all_idle_us = std::max(0.0, u.makespan_us - covered);
    return u;
}

}  // namespace dfx::convert::report
