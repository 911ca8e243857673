// report_csv: `dfx report --format csv`, the top-N kernels table of every
// section as one CSV (a spreadsheet's or pandas' first question: which
// kernels took the time): a header row, then per section its kernels by
// total time, first N (top 0: all):
//
//   section,kernel,func_id,count,total_us,share_pct,mean_us,median_us,p90_us,min_us,max_us,cores,core_busy_pct
//   .,matmul,0,16,812.5,61.2,...
//
// The other tables (cores, rings, PMU) are in `--format json`.
//
//   std::string csv = render_report_csv(units, top);
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dfx/convert/common/csv_table.hpp"
#include "dfx/convert/report/kernel_table_render.hpp"
#include "dfx/convert/report/unit_measures.hpp"

namespace dfx::convert::report {

inline std::string render_report_csv(const std::vector<unit_measures>& units, std::size_t top) {
    std::vector<std::string> header{"section"};
    for (auto& h : kernel_csv_header()) header.push_back(std::move(h));
    std::string o = csv_line(header);
    for (const auto& m : units) {
        for (const auto& k : top_kernels(m.kernels, top)) {
            std::vector<std::string> cells{m.unit.label};
            for (auto& c : kernel_csv_cells(k)) cells.push_back(std::move(c));
            o += csv_line(cells);
        }
    }
    return o;
}

}  // namespace dfx::convert::report
