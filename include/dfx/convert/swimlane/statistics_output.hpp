// statistics_output: `dfx swimlane --stats json|csv`, the task statistics
// table (statistics.hpp) and the top-N kernels table (report/kernel_table.hpp)
// machine-readable. Times in microseconds, shares in percent; a value the
// text prints as "-" (no AICPU timing below level 2, no propagation rows) is
// null in JSON and empty in CSV.
//
// JSON, one object:
//   {"level": 3, "level_description": "...",
//    "functions": [{"func_id", "name", "count", "avg_exec_us", "avg_latency_us",
//                   "exec_pct", "avg_head_oh_us", "avg_tail_oh_us", "avg_prop_us",
//                   "avg_local_us"}],                 // every func id, by id (the text's rows)
//    "total": {"count", "exec_us", "latency_us"},    // the text's TOTAL row
//    "test_time_us", "aicore_span_us",                // level >= 2 / level 1, else null
//    "makespan_us",                                   // first start -> last end
//    "top_kernels": [kernel_json...]}                 // by total exec time, first N
//
// CSV: the top-N kernels (by total exec time; top 0: all), one row each:
// kernel_csv_header()'s columns, then avg_latency_us, exec_pct,
// avg_head_oh_us, avg_tail_oh_us, avg_prop_us, avg_local_us.
//
//   const auto st = compute_task_statistics(pd, names);
//   const auto kernels = report::kernel_table(pd, names, report::task_makespan_us(pd));
//   std::string json = render_statistics_json(st, kernels, report::task_makespan_us(pd), top);
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/csv_table.hpp"
#include "dfx/convert/report/kernel_table.hpp"
#include "dfx/convert/report/kernel_table_render.hpp"
#include "dfx/convert/swimlane/statistics.hpp"

namespace dfx::convert::swimlane {

namespace statistics_detail {

inline std::string opt_num(const std::optional<double>& v) { return v ? report::json_detail::num(*v) : "null"; }

// The text's per-function cells as numbers, nullopt where it prints "-".
struct function_values {
    std::optional<double> latency, exec_pct, head, tail, prop;
    double local = 0.0;
};
inline function_values values_of(const task_statistics& st, const function_stats& f) {
    function_values v;
    if (st.aicpu_timing) {
        v.latency = f.avg_latency();
        v.exec_pct = f.exec_pct();
        v.head = f.avg_head();
        v.tail = f.avg_tail();
    }
    if (f.n_prop) v.prop = f.sum_prop / static_cast<double>(f.n_prop);
    v.local = f.avg_local();
    return v;
}

}  // namespace statistics_detail

inline std::string render_statistics_json(const task_statistics& st, const std::vector<report::kernel_row>& kernels,
                                          double makespan_us, std::size_t top) {
    using namespace statistics_detail;
    using report::json_detail::num;
    using report::json_detail::str;
    std::string o = fmt::format(R"({{"level": {}, "level_description": {}, "functions": [)", st.level,
                                str(level_description(st.level)));
    for (std::size_t i = 0; i < st.functions.size(); ++i) {
        const function_stats& f = st.functions[i];
        const function_values v = values_of(st, f);
        o += fmt::format(R"({}{{"func_id": {}, "name": {}, "count": {}, "avg_exec_us": {}, "avg_latency_us": {}, )"
                         R"("exec_pct": {}, "avg_head_oh_us": {}, "avg_tail_oh_us": {}, "avg_prop_us": {}, "avg_local_us": {}}})",
                         i ? ", " : "", f.func_id, str(f.name), f.count, num(f.avg_exec()), opt_num(v.latency),
                         opt_num(v.exec_pct), opt_num(v.head), opt_num(v.tail), opt_num(v.prop), num(v.local));
    }
    o += fmt::format(R"(], "total": {{"count": {}, "exec_us": {}, "latency_us": {}}}, "test_time_us": {}, )"
                     R"("aicore_span_us": {}, "makespan_us": {}, "top_kernels": [)",
                     st.total_count, num(st.total_duration), st.aicpu_timing ? num(st.total_latency) : "null",
                     opt_num(st.test_time_us), opt_num(st.aicore_span_us), num(makespan_us));
    const auto shown = report::top_kernels(kernels, top);
    for (std::size_t i = 0; i < shown.size(); ++i) o += (i ? ", " : "") + report::kernel_json(shown[i]);
    return o + "]}\n";
}

inline std::string render_statistics_csv(const task_statistics& st, const std::vector<report::kernel_row>& kernels,
                                         std::size_t top) {
    using namespace statistics_detail;
    std::vector<std::string> header = report::kernel_csv_header();
    for (const char* h : {"avg_latency_us", "exec_pct", "avg_head_oh_us", "avg_tail_oh_us", "avg_prop_us", "avg_local_us"})
        header.emplace_back(h);
    std::string o = csv_line(header);
    const auto cell = [](const std::optional<double>& v) { return v ? csv_number(*v) : std::string(); };
    for (const report::kernel_row& k : report::top_kernels(kernels, top)) {
        std::vector<std::string> cells = report::kernel_csv_cells(k);
        const function_stats* f = nullptr;
        for (const auto& s : st.functions)
            if (s.func_id == k.func_id) f = &s;
        if (f) {
            const function_values v = values_of(st, *f);
            for (const auto& c : {cell(v.latency), cell(v.exec_pct), cell(v.head), cell(v.tail), cell(v.prop), csv_number(v.local)})
                cells.push_back(c);
        } else {
            cells.resize(cells.size() + 6);
        }
        o += csv_line(cells);
    }
    return o;
}

}  // namespace dfx::convert::swimlane
