// pmu_output: `dfx pmu --format json|csv`, the per-kernel and per-core
// tables of pmu_summary.hpp machine-readable, with the same numbers as the
// text: a cycle counter (*_cycles, *busy*) as a percentage of the group's
// summed pmu_total_cycles, any other counter as its mean per row.
//
// JSON, one object (a table --by leaves out is null):
//   {"source": "pmu.csv", "rows": 12, "tasks": 8, "cores": 4,
//    "event_types": [{"id": 2, "name": "PIPE_UTILIZATION"}], "counters": ["..."],
//    "kernels": [{"name", "func_id", "core_type", "rows", "tasks", "total_cycles",
//                 "mean_cycles", "cycle_pct": {counter: %}, "per_row": {counter: mean}}],  // by total cycles
//    "cores":   [{"core", "core_type", "rows", "tasks", "total_cycles", "mean_cycles",
//                 "cycle_pct": {...}, "per_row": {...}}]}                                  // by core id
//
// CSV: one header row, then the kernel rows and the core rows:
//   table,kernel,func_id,core,core_type,rows,tasks,total_cycles,mean_cycles,<counter>_pct...,<counter>_per_row...
// (`table` is kernel or core; kernel and func_id are empty on core rows, core on kernel rows).
//
//   std::string json = render_pmu_json(s, "pmu.csv", names, kernels, cores);
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/csv_table.hpp"
#include "dfx/convert/deps/name_map.hpp"
#include "dfx/convert/pmu/pmu_summary.hpp"
#include "dfx/io/json_string.hpp"

namespace dfx::convert::pmu {

namespace output_detail {

inline std::string str(std::string_view s) { return io::json_string(s, io::json_string_style::utf8); }

inline double mean_cycles(const pmu_group& g) {
    return g.rows ? static_cast<double>(g.total_cycles) / static_cast<double>(g.rows) : 0.0;
}

// Counter i of a group as the text shows it: nullopt where the text prints "-".
inline std::optional<double> counter_value(const pmu_summary& s, const pmu_group& g, std::size_t i) {
    const double v = static_cast<double>(g.counters[i]);
    if (is_cycle_counter(s.counter_names[i]))
        return g.total_cycles ? std::optional<double>(100.0 * v / static_cast<double>(g.total_cycles)) : std::nullopt;
    return g.rows ? v / static_cast<double>(g.rows) : 0.0;
}

inline std::string counters_json(const pmu_summary& s, const pmu_group& g) {
    std::string pct, per_row;
    for (std::size_t i = 0; i < s.counter_names.size(); ++i) {
        const auto v = counter_value(s, g, i);
        const std::string field = fmt::format("{}: {}", str(s.counter_names[i]), v ? fmt::format("{}", *v) : "null");
        std::string& to = is_cycle_counter(s.counter_names[i]) ? pct : per_row;
        to += (to.empty() ? "" : ", ") + field;
    }
    return fmt::format(R"("cycle_pct": {{{}}}, "per_row": {{{}}})", pct, per_row);
}

// Kernels by total cycles (stably), as the text lists them.
inline std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, const pmu_group*>> kernels_by_cycles(const pmu_summary& s) {
    std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, const pmu_group*>> ks;
    for (const auto& [k, g] : s.by_kernel) ks.emplace_back(k, &g);
    std::stable_sort(ks.begin(), ks.end(), [](const auto& a, const auto& b) { return a.second->total_cycles > b.second->total_cycles; });
    return ks;
}

}  // namespace output_detail

inline std::string render_pmu_json(const pmu_summary& s, std::string_view source, const deps::name_map& names,
                                   bool kernels, bool cores) {
    using namespace output_detail;
    std::string types, counters;
    for (const std::uint32_t t : s.event_types)
        types += fmt::format(R"({}{{"id": {}, "name": {}}})", types.empty() ? "" : ", ", t, str(event_type_name(t)));
    for (const auto& c : s.counter_names) counters += (counters.empty() ? "" : ", ") + str(c);
    std::string o = fmt::format(R"({{"source": {}, "rows": {}, "tasks": {}, "cores": {}, "event_types": [{}], "counters": [{}], )",
                                str(source), s.rows, s.tasks.size(), s.by_core.size(), types, counters);
    o += R"("kernels": )";
    if (kernels) {
        std::string rows;
        for (const auto& [k, g] : kernels_by_cycles(s))
            rows += fmt::format(R"({}{{"name": {}, "func_id": {}, "core_type": {}, "rows": {}, "tasks": {}, "total_cycles": {}, )"
                                R"("mean_cycles": {}, {}}})",
                                rows.empty() ? "" : ", ", str(names.name_or_fallback(k.first)), k.first,
                                str(detail::core_type_name(k.second)), g->rows, g->tasks.size(), g->total_cycles,
                                mean_cycles(*g), counters_json(s, *g));
        o += "[" + rows + "]";
    } else {
        o += "null";
    }
    o += R"(, "cores": )";
    if (cores) {
        std::string rows;
        for (const auto& [core, tg] : s.by_core)
            rows += fmt::format(R"({}{{"core": {}, "core_type": {}, "rows": {}, "tasks": {}, "total_cycles": {}, "mean_cycles": {}, {}}})",
                                rows.empty() ? "" : ", ", core, str(detail::core_type_name(tg.first)), tg.second.rows,
                                tg.second.tasks.size(), tg.second.total_cycles, mean_cycles(tg.second),
                                counters_json(s, tg.second));
        o += "[" + rows + "]";
    } else {
        o += "null";
    }
    return o + "}\n";
}

inline std::string render_pmu_csv(const pmu_summary& s, const deps::name_map& names, bool kernels, bool cores) {
    using namespace output_detail;
    std::vector<std::string> header{"table", "kernel", "func_id", "core", "core_type", "rows", "tasks", "total_cycles", "mean_cycles"};
    for (const auto& c : s.counter_names)
        if (is_cycle_counter(c)) header.push_back(c + "_pct");
    for (const auto& c : s.counter_names)
        if (!is_cycle_counter(c)) header.push_back(c + "_per_row");
    std::string o = csv_line(header);
    const auto counter_cells = [&](const pmu_group& g, std::vector<std::string>& cells) {
        for (const bool cycles : {true, false})
            for (std::size_t i = 0; i < s.counter_names.size(); ++i) {
                if (is_cycle_counter(s.counter_names[i]) != cycles) continue;
                const auto v = counter_value(s, g, i);
                cells.push_back(v ? csv_number(*v) : std::string());
            }
    };
    if (kernels) {
        for (const auto& [k, g] : kernels_by_cycles(s)) {
            std::vector<std::string> cells{"kernel", names.name_or_fallback(k.first), std::to_string(k.first), "",
                                           detail::core_type_name(k.second), std::to_string(g->rows),
                                           std::to_string(g->tasks.size()), std::to_string(g->total_cycles),
                                           csv_number(mean_cycles(*g))};
            counter_cells(*g, cells);
            o += csv_line(cells);
        }
    }
    if (cores) {
        for (const auto& [core, tg] : s.by_core) {
            std::vector<std::string> cells{"core", "", "", std::to_string(core), detail::core_type_name(tg.first),
                                           std::to_string(tg.second.rows), std::to_string(tg.second.tasks.size()),
                                           std::to_string(tg.second.total_cycles), csv_number(mean_cycles(tg.second))};
            counter_cells(tg.second, cells);
            o += csv_line(cells);
        }
    }
    return o;
}

}  // namespace dfx::convert::pmu
