// kernel_table_render: the top-N kernels table (kernel_table.hpp) as every
// output shows it, written once: `dfx report` (text, HTML, JSON, CSV) and
// `dfx swimlane --stats json|csv`.
//
//   text / HTML  kernel_text_header(), kernel_text_cells(k): rounded, with units
//                in the header (total_us ... core_busy)
//   JSON         kernel_json(k): {"name", "func_id", "exec": {"count",
//                "total_us", "mean_us", "median_us", "p90_us", "min_us",
//                "max_us"}, "share_pct", "cores", "core_busy_pct"}
//   CSV          kernel_csv_header(), kernel_csv_cells(k): the same numbers,
//                full precision, one flat row (columns listed below)
//
// Times in microseconds, shares in percent (docs/report.md, "Top N kernels").
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/csv_table.hpp"
#include "dfx/convert/report/kernel_table.hpp"
#include "dfx/io/json_string.hpp"

namespace dfx::convert::report {

namespace json_detail {

inline std::string str(std::string_view s) { return io::json_string(s, io::json_string_style::utf8); }
inline std::string num(double v) {
    if (!std::isfinite(v)) return "null";
    return fmt::format("{}", v);
}
inline std::string stats(const duration_stats& d) {
    return fmt::format(R"({{"count": {}, "total_us": {}, "mean_us": {}, "median_us": {}, "p90_us": {}, "min_us": {}, "max_us": {}}})",
                       d.count, num(d.total), num(d.mean), num(d.median), num(d.p90), num(d.min), num(d.max));
}

}  // namespace json_detail

inline std::vector<std::string> kernel_text_header() {
    return {"kernel", "func_id", "count", "total_us", "share", "mean_us", "median_us", "min_us", "max_us", "cores", "core_busy"};
}

inline std::vector<std::string> kernel_text_cells(const kernel_row& k) {
    return {k.name,
            std::to_string(k.func_id),
            std::to_string(k.exec.count),
            fmt::format("{:.1f}", k.exec.total),
            fmt::format("{:.1f}%", k.share_pct),
            fmt::format("{:.2f}", k.exec.mean),
            fmt::format("{:.2f}", k.exec.median),
            fmt::format("{:.2f}", k.exec.min),
            fmt::format("{:.2f}", k.exec.max),
            std::to_string(k.cores),
            fmt::format("{:.1f}%", k.core_busy_pct)};
}

inline std::string kernel_json(const kernel_row& k) {
    using namespace json_detail;
    return fmt::format(R"({{"name": {}, "func_id": {}, "exec": {}, "share_pct": {}, "cores": {}, "core_busy_pct": {}}})",
                       str(k.name), k.func_id, stats(k.exec), num(k.share_pct), k.cores, num(k.core_busy_pct));
}

inline std::vector<std::string> kernel_csv_header() {
    return {"kernel",    "func_id", "count",  "total_us", "share_pct", "mean_us",
            "median_us", "p90_us",  "min_us", "max_us",   "cores",     "core_busy_pct"};
}

inline std::vector<std::string> kernel_csv_cells(const kernel_row& k) {
    return {k.name,
            std::to_string(k.func_id),
            std::to_string(k.exec.count),
            csv_number(k.exec.total),
            csv_number(k.share_pct),
            csv_number(k.exec.mean),
            csv_number(k.exec.median),
            csv_number(k.exec.p90),
            csv_number(k.exec.min),
            csv_number(k.exec.max),
            std::to_string(k.cores),
            csv_number(k.core_busy_pct)};
}

}  // namespace dfx::convert::report
