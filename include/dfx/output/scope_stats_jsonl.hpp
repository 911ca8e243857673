// scope_stats/scope_stats.jsonl, schema version 6
// (../shared/spec/scope-stats-and-framework.md §1.6): a metadata line, then
// one line per scope boundary in the order the orchestrator produced them.
// Separators ", " and ": ", integers only.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "dfx/output/artefact_file.hpp"
#include "dfx/output/text_writer.hpp"
#include "dfx/record/scope_stats_records.hpp"
#include "dfx/schema/artefact_names.hpp"

namespace dfx {

inline constexpr int scope_stats_schema_version = 6;

// The rings' capacities, registered once per run (0 = never registered).
struct ring_capacities {
    std::array<std::int32_t, scope_ring_count> task_window{};
    std::array<std::uint64_t, scope_ring_count> heap{};
    std::array<std::int32_t, scope_ring_count> dep_pool{};
    std::int32_t tensormap = 0;
};

struct scope_stats_capture_summary {
    bool fatal = false;
    std::uint64_t dropped = 0;
    std::uint64_t total = 0;  // boundary records produced: collected + dropped
    ring_capacities capacities;
};

namespace detail {
template <class T>
void write_four(text_writer& out, const std::array<T, scope_ring_count>& values) {
    out.raw("[");
    for (int i = 0; i < scope_ring_count; ++i) out.raw(i ? ", " : "").number(values[static_cast<std::size_t>(i)]);
    out.raw("]");
}
}  // namespace detail

inline void write_scope_stats_jsonl(text_writer& out, const scope_stats_capture_summary& summary,
                                    std::span<const scope_stats_record> records) {
    const auto& caps = summary.capacities;
    out.raw("{\"version\": ").number(scope_stats_schema_version);
    out.raw(", \"fatal\": ").raw(summary.fatal ? "true" : "false");
    out.raw(", \"dropped\": ").number(summary.dropped).raw(", \"total\": ").number(summary.total);
    out.raw(", \"task_window_max\": ");
    detail::write_four(out, caps.task_window);
    out.raw(", \"heap_max\": ");
    detail::write_four(out, caps.heap);
    out.raw(", \"dep_pool_max\": ");
    detail::write_four(out, caps.dep_pool);
    out.raw(", \"tensormap_max\": ").number(caps.tensormap).raw("}\n");

    for (const auto& r : records) {
        if (r.phase == scope_phase::fatal) continue;
        // The site is a basename with its line. The reference writes it
        // unescaped, so UTF-8 stays as it is here (the same bytes wherever
        // its line is valid JSON), but a quote, a backslash or a control
        // character in a file name is escaped and cannot break the line.
        std::string site(r.site, strnlen(r.site, scope_site_chars));
        site += ':';
        site += std::to_string(r.site_line);
        out.raw("{\"site\": ").string<io::json_string_style::utf8>(site);
        out.raw(", \"phase\": ").raw(r.phase == scope_phase::begin ? "\"begin\"" : "\"end\"");
        out.raw(", \"depth\": ").number(r.depth).raw(", \"ring\": ").number(r.ring);
        out.raw(", \"task_window_start\": ").number(r.task_start).raw(", \"task_window_end\": ").number(r.task_end);
        out.raw(", \"heap_start\": ").number(r.heap_start).raw(", \"heap_end\": ").number(r.heap_end);
        out.raw(", \"dep_pool_start\": ").number(r.dep_pool_start).raw(", \"dep_pool_end\": ").number(r.dep_pool_end);
        out.raw(", \"tensormap\": ").number(r.tensormap_used).raw("}\n");
    }
}

inline std::filesystem::path write_scope_stats_file(const std::filesystem::path& prefix,
                                                    const scope_stats_capture_summary& summary,
                                                    std::span<const scope_stats_record> records) {
    const auto path = prefix / schema::scope_stats_dir / schema::scope_stats_file;
    write_artefact(path, [&](std::FILE* f) {
        text_writer out(f);
        write_scope_stats_jsonl(out, summary, records);
        return out.flush();
    });
    return path;
}

}  // namespace dfx
