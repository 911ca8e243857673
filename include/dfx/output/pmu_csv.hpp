// <prefix>/pmu.csv (../shared/spec/args-dump-and-pmu.md B3): the fixed
// columns, the event type's named counters in slot order (the reference's
// a2a3 names), and the event type; one row per kernel execution on a core.
// No quoting, no trailing comma, "\n" line ends, task ids as 0x%016x so the
// file joins with args_dump.json. No rows, no file.
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "dfx/output/artefact_file.hpp"
#include "dfx/output/text_writer.hpp"
#include "dfx/policy/pmu_event.hpp"
#include "dfx/record/pmu_record.hpp"
#include "dfx/schema/artefact_names.hpp"
#include "dfx/schema/pmu_columns.hpp"

namespace dfx {

// One row: the record and where it came from.
struct pmu_row {
    std::uint32_t thread_id = 0;  // the scheduler thread that owns the core
    std::uint32_t core_id = 0;
    pmu_record record;
};

// The header line for an event type, without the line end.
inline std::string pmu_csv_header(pmu_event_id event) {
    std::string header;
    for (std::string_view column : schema::pmu_leading_columns) {
        if (!header.empty()) header += schema::pmu_separator;
        header += column;
    }
    for (std::string_view name : pmu_counters(event))
        if (!name.empty()) (header += schema::pmu_separator) += name;
    (header += schema::pmu_separator) += schema::pmu_event_type_column;
    return header;
}

inline void write_pmu_csv(text_writer& out, pmu_event_id event, const std::vector<pmu_row>& rows) {
    out.raw(pmu_csv_header(event)).raw("\n");
    const pmu_counter_names names = pmu_counters(event);
    const auto event_number = static_cast<std::uint32_t>(event);
    for (const auto& row : rows) {
        const pmu_record& r = row.record;
        char id[24];
        std::snprintf(id, sizeof id, "0x%016" PRIx64, r.task_id);
        out.number(row.thread_id).raw(",").number(row.core_id).raw(",").raw(id);
        out.raw(",").number(r.func_id).raw(",").number(static_cast<std::int32_t>(r.core));
        out.raw(",").number(r.total_cycles);
        for (int i = 0; i < pmu_counter_slots; ++i)
            if (!names[static_cast<std::size_t>(i)].empty()) out.raw(",").number(r.counters[i]);
        out.raw(",").number(event_number).raw("\n");
    }
}

// Writes <prefix>/pmu.csv atomically; nothing (and an empty path) for no rows.
inline std::filesystem::path write_pmu_csv_file(const std::filesystem::path& prefix, pmu_event_id event,
                                                const std::vector<pmu_row>& rows) {
    if (rows.empty()) return {};
    const auto path = prefix / schema::pmu_csv_file;
    write_artefact(path, [&](std::FILE* f) {
        text_writer out(f);
        write_pmu_csv(out, event, rows);
        return out.flush();
    });
    return path;
}

}  // namespace dfx
