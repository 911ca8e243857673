// chip_swimlane_records.json, the reference "v3" raw cycle-domain schema
// (../shared/spec/chip-swimlane.md §2): what the swimlane collector captured,
// written with the reference's key order, layout and exact integers, so the
// reference tools read it and a file the reference wrote round-trips byte for
// byte (tests/swimlane/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "dfx/output/artefact_file.hpp"
#include "dfx/output/text_writer.hpp"
#include "dfx/record/core_type.hpp"
#include "dfx/record/swimlane_records.hpp"
#include "dfx/schema/artefact_names.hpp"
#include "dfx/schema/core_types.hpp"
#include "dfx/schema/phase_kinds.hpp"
#include "dfx/schema/records_fields.hpp"

namespace dfx {

// Everything one run captured, grouped the way the file is: AICore and AICPU
// rows per core, scheduler phases per scheduler pool, orchestrator phases
// per lane.
struct swimlane_capture {
    int level = 0;
    std::uint64_t clock_freq_hz = 0;
    std::vector<core_type> core_types;             // index = core id
    std::vector<int> core_to_thread;               // written at level >= 3; -1 = no thread
    std::vector<std::vector<aicore_task_record>> aicore;  // [core]
    std::vector<std::vector<aicpu_task_record>> aicpu;    // [core]
    std::vector<std::vector<sched_phase_record>> scheduler_phases;  // [pool], all pools written
    std::vector<std::vector<orch_phase_record>> orchestrator_phases;  // [lane]

    bool has_data() const noexcept {
        const auto any = [](const auto& groups) {
            for (const auto& g : groups)
                if (!g.empty()) return true;
            return false;
        };
        return any(aicore) || any(aicpu) || any(scheduler_phases) || any(orchestrator_phases);
    }
};

// What the writer reads: the same rows as bytes, one group per core,
// thread, pool or lane. A host keeps each channel's records this way (one
// vector type for the four record types, so its translation unit compiles
// no vector per record type); a swimlane_capture is shown to the writer as
// spans over its vectors.
struct swimlane_rows {
    using group = std::span<const std::byte>;
    int level = 0;
    std::uint64_t clock_freq_hz = 0;
    std::span<const core_type> core_types;
    std::span<const int> core_to_thread;
    std::span<const group> aicore;                // [core]
    std::span<const group> aicpu;                 // [core], or [scheduler thread] when aicpu_by_thread
    bool aicpu_by_thread = false;                 // rows then written by their core field, cores ascending
    std::span<const group> scheduler_phases;      // [pool], all pools written
    std::span<const group> orchestrator_phases;   // [lane]

    bool has_data() const noexcept {
        for (const auto* groups : {&aicore, &aicpu, &scheduler_phases, &orchestrator_phases})
            for (const group& g : *groups)
                if (!g.empty()) return true;
        return false;
    }
};

namespace detail {

// `before` then `"name": `: a member named through schema/records_fields.hpp.
inline text_writer& member(text_writer& out, std::string_view before, std::string_view name) {
    return out.raw(before).raw("\"").raw(name).raw("\": ");
}

inline void write_depths(text_writer& out, const queue_depths& d) {
    out.raw("[").number(d.aic).raw(",").number(d.aiv).raw(",").number(d.mix).raw("]");
}

// `[` newline, one item per line (indented), `]`: the reference layout of
// every array of rows; an empty array is `[]`. Rows are written as they
// are found (next() before each), so no array needs a vector of them.
class row_list {
public:
    row_list(text_writer& out, std::string_view indent) : out_(out), indent_(indent) {}
    void next() {
        out_.raw(first_ ? "[\n" : ",\n").raw(indent_).raw("  ");
        first_ = false;
    }
    void close() {
        if (first_)
            out_.raw("[]");
        else
            out_.raw("\n").raw(indent_).raw("]");
    }

private:
    text_writer& out_;
    std::string_view indent_;
    bool first_ = true;
};

// Record i of a group (bytes need not be aligned for the record type).
template <class Record>
Record record_at(swimlane_rows::group g, std::size_t i) noexcept {
    Record r;
    std::memcpy(&r, g.data() + i * sizeof(Record), sizeof(Record));
    return r;
}
template <class Record>
std::size_t record_count(swimlane_rows::group g) noexcept {
    return g.size() / sizeof(Record);
}

// An array of arrays (scheduler pools, orchestrator lanes): one inner
// array of rows per group. Not a template on the record type.
inline void write_groups(text_writer& out, std::span<const swimlane_rows::group> groups, std::size_t record_size,
                         void (*write_row)(text_writer&, swimlane_rows::group)) {
    row_list outer(out, "  ");
    for (const swimlane_rows::group& g : groups) {
        outer.next();
        row_list rows(out, "    ");
        for (std::size_t at = 0; at + record_size <= g.size(); at += record_size) {
            rows.next();
            write_row(out, g.subspan(at, record_size));
        }
        rows.close();
    }
    outer.close();
}

inline void write_sched_phase(text_writer& out, swimlane_rows::group bytes) {
    const auto p = record_at<sched_phase_record>(bytes, 0);
    member(out, "{", schema::phase_kind_member).string(schema::phase_kind_name(p.kind));
    out.raw(", \"start_cycles\": ").number(p.start).raw(", \"end_cycles\": ").number(p.end);
    out.raw(", \"loop_iter\": ").number(p.loop_iter).raw(", \"tasks_processed\": ").number(p.tasks_processed);
    if (p.kind == sched_phase_kind::dispatch)
        out.raw(", \"pop_hit\": ").number(p.pop_hit).raw(", \"pop_miss\": ").number(p.pop_miss);
    if (schema::phase_carries_task(p.kind)) out.raw(", \"task_id\": ").number(p.task_id);
    out.raw(", \"shared_at_start\": ");
    write_depths(out, p.depth_at_start);
    out.raw(", \"shared_at_end\": ");
    write_depths(out, p.depth_at_end);
    out.raw("}");
}

inline void write_orch_phase(text_writer& out, swimlane_rows::group bytes) {
    const auto p = record_at<orch_phase_record>(bytes, 0);
    out.raw("{\"submit_idx\": ").number(p.submit_idx).raw(", \"task_id\": ").number(p.task_id);
    out.raw(", \"start_cycles\": ").number(p.start).raw(", \"end_cycles\": ").number(p.end).raw("}");
}

inline void write_aicpu_row(text_writer& out, row_list& rows, const aicpu_task_record& r) {
    rows.next();
    out.raw("[").number(r.core).raw(", ").number(r.reg_task_id).raw(", ").number(r.dispatch);
    out.raw(", ").number(r.finish).raw("]");
}

}  // namespace detail

inline void write_chip_swimlane_json(text_writer& out, const swimlane_rows& c) {
    detail::member(out, "{\n  ", schema::records_level_member).number(c.level).raw(",\n");
    detail::member(out, "  ", schema::records_metadata_member).raw("{\n");
    detail::member(out, "    ", schema::records_clock_freq_member).number(c.clock_freq_hz).raw(",\n");
    detail::member(out, "    ", schema::records_num_cores_member).number(c.core_types.size()).raw(",\n");
    detail::member(out, "    ", schema::records_core_types_member).raw("[");
    for (std::size_t i = 0; i < c.core_types.size(); ++i)
        out.raw(i ? ", " : "").string(schema::core_type_name(c.core_types[i]));
    out.raw("]");
    if (c.level >= 3 && !c.core_to_thread.empty()) {
        detail::member(out, ",\n    ", schema::records_core_to_thread_member).raw("[");
        for (std::size_t i = 0; i < c.core_to_thread.size(); ++i) out.raw(i ? ", " : "").number(c.core_to_thread[i]);
        out.raw("]");
    }
    out.raw("\n  },\n");

    // Rows grouped by core ascending, in production order within a core.
    detail::member(out, "  ", schema::records_aicore_tasks_member);
    detail::row_list aicore_rows(out, "  ");
    for (std::size_t core = 0; core < c.aicore.size(); ++core)
        for (std::size_t i = 0; i < detail::record_count<aicore_task_record>(c.aicore[core]); ++i) {
            const auto r = detail::record_at<aicore_task_record>(c.aicore[core], i);
            aicore_rows.next();
            out.raw("[").number(core).raw(", ").number(r.task_token).raw(", ").number(r.reg_task_id);
            out.raw(", ").number(r.start).raw(", ").number(r.end).raw(", ").number(r.receive_to_start).raw("]");
        }
    aicore_rows.close();

    detail::member(out, ",\n  ", schema::records_aicpu_tasks_member);
    detail::row_list aicpu_rows(out, "  ");
    if (c.aicpu_by_thread) {
        // Each scheduler thread's rows, regrouped by the core they name (a
        // core outside the layout is not written).
        for (std::size_t core = 0; core < c.core_types.size(); ++core)
            for (const swimlane_rows::group& g : c.aicpu)
                for (std::size_t i = 0; i < detail::record_count<aicpu_task_record>(g); ++i) {
                    const auto r = detail::record_at<aicpu_task_record>(g, i);
                    if (r.core == core) detail::write_aicpu_row(out, aicpu_rows, r);
                }
    } else {
        for (const swimlane_rows::group& g : c.aicpu)
            for (std::size_t i = 0; i < detail::record_count<aicpu_task_record>(g); ++i)
                detail::write_aicpu_row(out, aicpu_rows, detail::record_at<aicpu_task_record>(g, i));
    }
    aicpu_rows.close();

    if (c.level >= 3) {
        detail::member(out, ",\n  ", schema::records_scheduler_phases_member);
        detail::write_groups(out, c.scheduler_phases, sizeof(sched_phase_record), detail::write_sched_phase);
        bool any_orchestrator = false;
        for (const auto& lane : c.orchestrator_phases) any_orchestrator = any_orchestrator || !lane.empty();
        if (any_orchestrator) {
            detail::member(out, ",\n  ", schema::records_orchestrator_phases_member);
            detail::write_groups(out, c.orchestrator_phases, sizeof(orch_phase_record), detail::write_orch_phase);
        }
    }
    out.raw("\n}\n");
}

namespace detail {
template <class Record>
std::vector<swimlane_rows::group> groups_of(const std::vector<std::vector<Record>>& v) {
    std::vector<swimlane_rows::group> out;
    out.reserve(v.size());
    for (const auto& g : v) out.push_back(std::as_bytes(std::span<const Record>(g)));
    return out;
}
}  // namespace detail

// The capture shown as rows (spans over its vectors) and written.
inline void write_chip_swimlane_json(text_writer& out, const swimlane_capture& c) {
    const auto aicore = detail::groups_of(c.aicore), aicpu = detail::groups_of(c.aicpu),
               sched = detail::groups_of(c.scheduler_phases), orch = detail::groups_of(c.orchestrator_phases);
    write_chip_swimlane_json(out, swimlane_rows{.level = c.level,
                                                .clock_freq_hz = c.clock_freq_hz,
                                                .core_types = c.core_types,
                                                .core_to_thread = c.core_to_thread,
                                                .aicore = aicore,
                                                .aicpu = aicpu,
                                                .aicpu_by_thread = false,
                                                .scheduler_phases = sched,
                                                .orchestrator_phases = orch});
}

// Writes <prefix>/chip_swimlane_records.json atomically and returns its path;
// writes nothing and returns an empty path when nothing was captured, as the
// reference does. Throws output_error naming the file.
inline std::filesystem::path write_chip_swimlane_records(const std::filesystem::path& prefix,
                                                          const swimlane_rows& rows) {
    if (!rows.has_data()) return {};
    const auto path = prefix / schema::records_file;
    write_artefact(path, [&](std::FILE* f) {
        text_writer out(f);
        write_chip_swimlane_json(out, rows);
        return out.flush();
    });
    return path;
}

inline std::filesystem::path write_chip_swimlane_records(const std::filesystem::path& prefix,
                                                          const swimlane_capture& capture) {
    if (!capture.has_data()) return {};
    const auto path = prefix / schema::records_file;
    write_artefact(path, [&](std::FILE* f) {
        text_writer out(f);
        write_chip_swimlane_json(out, capture);
        return out.flush();
    });
    return path;
}

}  // namespace dfx
