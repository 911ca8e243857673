// pipe_limits: which pipe is the limit? (the fourth question of the tuning
// loop, docs/report.md), from pmu.csv summarised per kernel
// (pmu/pmu_summary.hpp): each pipe counter (a *_busy_cycles column, event
// type 2 PIPE_UTILIZATION) as a share of the kernel's total cycles, and the
// limiting pipe, the busiest one. Other event types carry no pipe counters:
// their kernels get no limiting pipe (`pipes` empty).
//
//   const auto kernels = pipe_limits(summarize_pmu_csv(path), names);  // by total cycles desc
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dfx/convert/pmu/pmu_summary.hpp"
#include "dfx/convert/swimlane/labels.hpp"
#include "dfx/convert/swimlane/name_map.hpp"

namespace dfx::convert::report {

struct pipe_share {
    std::string pipe;  // "vec", "cube", ... (the counter name without _busy_cycles)
    double pct = 0.0;  // of the kernel's total cycles
};

struct kernel_pipes {
    std::int64_t func_id = 0;
    std::string name;
    std::string core_type;  // "aic" / "aiv"
    std::uint64_t rows = 0;
    std::uint64_t total_cycles = 0;
    std::vector<pipe_share> pipes;  // busiest first
};

inline bool is_pipe_counter(const std::string& name) {
    return name.size() > 12 && name.compare(name.size() - 12, 12, "_busy_cycles") == 0;
}

inline std::vector<kernel_pipes> pipe_limits(const pmu::pmu_summary& s, const swimlane::name_map& names) {
    std::vector<kernel_pipes> out;
    for (const auto& [key, g] : s.by_kernel) {
        kernel_pipes k;
        k.func_id = key.first;
        k.name = swimlane::func_name(k.func_id, names);
        k.core_type = pmu::detail::core_type_name(key.second);
        k.rows = g.rows;
        k.total_cycles = g.total_cycles;
        for (std::size_t i = 0; i < s.counter_names.size() && i < g.counters.size(); ++i) {
            if (!is_pipe_counter(s.counter_names[i]) || g.total_cycles == 0) continue;
            k.pipes.push_back({s.counter_names[i].substr(0, s.counter_names[i].size() - 12),
                               100.0 * static_cast<double>(g.counters[i]) / static_cast<double>(g.total_cycles)});
        }
        std::stable_sort(k.pipes.begin(), k.pipes.end(), [](const pipe_share& a, const pipe_share& b) { return a.pct > b.pct; });
        out.push_back(std::move(k));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const kernel_pipes& a, const kernel_pipes& b) { return a.total_cycles > b.total_cycles; });
    return out;
}

}  // namespace dfx::convert::report
