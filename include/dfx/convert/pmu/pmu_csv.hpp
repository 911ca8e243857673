// pmu_csv: stream `pmu.csv` (args-dump-and-pmu.md §B3) row by row.
//
// The header is the fixed prefix thread_id,core_id,task_id,func_id,core_type,
// pmu_total_cycles, then the named counters of the event type, then
// event_type. Rows are one core-level completion each (a MIX task gives one
// row per core, an SPMD task one per block), in no global order. Any line
// that does not fit the header is an input_error naming the file and line.
#pragma once

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/input_file.hpp"
#include "dfx/schema/artefact_names.hpp"
#include "dfx/schema/core_types.hpp"
#include "dfx/schema/pmu_columns.hpp"

namespace dfx::convert::pmu {

struct pmu_row {
    std::uint32_t thread_id = 0;
    std::uint32_t core_id = 0;
    std::uint64_t task_id = 0;
    std::uint32_t func_id = 0;
    std::uint32_t core_type = 0;  // 0 AIC, 1 AIV
    std::uint64_t total_cycles = 0;
    std::vector<std::uint64_t> counters;  // in header order
    std::uint32_t event_type = 0;
};

inline const char* event_type_name(std::uint32_t t) {
    switch (t) {
    case 1: return "ARITHMETIC_UTILIZATION";
    case 2: return "PIPE_UTILIZATION";
    case 4: return "MEMORY";
    case 5: return "MEMORY_L0";
    case 6: return "RESOURCE_CONFLICT";
    case 7: return "MEMORY_UB";
    case 8: return "L2_CACHE";
    default: return "unknown";
    }
}

// Reads `path`, calling on_header(counter_names) once and on_row(row) per data row.
template <class OnHeader, class OnRow>
void read_pmu_csv(const std::string& path, OnHeader&& on_header, OnRow&& on_row) {
    const int fd = open_input(path);  // a FIFO without a writer or /dev/zero: an error, not a hang
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(::fdopen(fd, "rb"), &std::fclose);
    if (!f) {
        ::close(fd);
        throw input_error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    }
    constexpr const auto& prefix = schema::pmu_leading_columns;
    constexpr std::size_t counters_at = schema::pmu_first_counter_column;

    std::string line;
    std::size_t line_no = 0;
    auto next_line = [&]() -> bool {
        line.clear();
        char buf[4096];
        bool any = false;
        while (std::fgets(buf, sizeof buf, f.get())) {
            any = true;
            line += buf;
            if (!line.empty() && line.back() == '\n') break;
        }
        if (std::ferror(f.get())) throw input_error(fmt::format("{}: read error: {}", path, std::strerror(errno)));
        if (!any) return false;
        ++line_no;
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
        return true;
    };
    auto split = [](std::string_view s) {
        std::vector<std::string_view> out;
        std::size_t i = 0;
        while (true) {
            const std::size_t c = s.find(',', i);
            out.push_back(s.substr(i, c == std::string_view::npos ? std::string_view::npos : c - i));
            if (c == std::string_view::npos) return out;
            i = c + 1;
        }
    };
    auto fail = [&](std::string_view what) -> void {
        // A quoted field can hold a line break or a control byte: the error stays one line.
        std::string one_line;
        for (const char c : what) {
            if (static_cast<unsigned char>(c) < 0x20) one_line += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
            else one_line.push_back(c);
        }
        throw input_error(fmt::format("{}:{}: {}", path, line_no, one_line));
    };

    if (!next_line()) throw input_error(fmt::format("{}: empty file (expected the {} header)", path, schema::pmu_csv_file));
    const std::vector<std::string_view> header = split(line);
    if (header.size() < counters_at + 1) fail("header too short (expected thread_id,...,pmu_total_cycles,<counters>,event_type)");
    for (std::size_t i = 0; i < counters_at; ++i)
        if (header[i] != prefix[i]) fail(fmt::format("header column {} is \"{}\", expected \"{}\"", i + 1, header[i], prefix[i]));
    if (header.back() != schema::pmu_event_type_column)
        fail(fmt::format("the last header column must be {}", schema::pmu_event_type_column));
    std::vector<std::string> counters(header.begin() + counters_at, header.end() - 1);
    on_header(counters);

    pmu_row row;
    row.counters.resize(counters.size());
    auto number = [&](std::string_view field, std::string_view column, int base = 10) {
        std::uint64_t v = 0;
        const auto res = std::from_chars(field.data(), field.data() + field.size(), v, base);
        if (field.empty() || res.ec != std::errc{} || res.ptr != field.data() + field.size())
            fail(fmt::format("{} \"{}\" is not a non-negative integer", column, field));
        return v;
    };
    auto small = [&](std::string_view field, std::string_view column) {
        const std::uint64_t v = number(field, column);
        if (v > UINT32_MAX) fail(fmt::format("{} {} is out of range", column, v));
        return static_cast<std::uint32_t>(v);
    };
    while (next_line()) {
        if (line.empty()) continue;  // a blank line (e.g. at the end) carries nothing
        const std::vector<std::string_view> cols = split(line);
        if (cols.size() != header.size())
            fail(fmt::format("{} fields, the header has {}", cols.size(), header.size()));
        row.thread_id = small(cols[schema::pmu_thread_id_column], prefix[schema::pmu_thread_id_column]);
        row.core_id = small(cols[schema::pmu_core_id_column], prefix[schema::pmu_core_id_column]);
        std::string_view tid = cols[schema::pmu_task_id_column];
        if (tid.size() < 3 || (tid.substr(0, 2) != "0x" && tid.substr(0, 2) != "0X")) fail(fmt::format("task_id \"{}\" is not 0x<hex>", tid));
        row.task_id = number(tid.substr(2), prefix[schema::pmu_task_id_column], 16);
        row.func_id = small(cols[schema::pmu_func_id_column], prefix[schema::pmu_func_id_column]);
        row.core_type = small(cols[schema::pmu_core_type_column], prefix[schema::pmu_core_type_column]);
        if (!schema::core_type_from_number(row.core_type)) fail(fmt::format("core_type {} is neither 0 (AIC) nor 1 (AIV)", row.core_type));
        row.total_cycles = number(cols[schema::pmu_total_cycles_column], prefix[schema::pmu_total_cycles_column]);
        for (std::size_t i = 0; i < counters.size(); ++i) row.counters[i] = number(cols[counters_at + i], counters[i]);
        row.event_type = small(cols.back(), schema::pmu_event_type_column);
        on_row(row);
    }
}

}  // namespace dfx::convert::pmu
