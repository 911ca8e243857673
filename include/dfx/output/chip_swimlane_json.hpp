// chip_swimlane_records.json, the reference "v3" raw cycle-domain schema
// (../shared/spec/chip-swimlane.md §2): what the swimlane collector captured,
// written with the reference's key order, layout and exact integers, so the
// reference tools read it and a file the reference wrote round-trips byte for
// byte (tests/swimlane/).
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
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

template <class Items, class WriteItem>
void write_rows(text_writer& out, std::string_view indent, const Items& items, WriteItem write_item) {
    row_list rows(out, indent);
    for (const auto& item : items) {
        rows.next();
        write_item(item);
    }
    rows.close();
}

}  // namespace detail

inline void write_chip_swimlane_json(text_writer& out, const swimlane_capture& c) {
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
        for (const auto& r : c.aicore[core]) {
            aicore_rows.next();
            out.raw("[").number(core).raw(", ").number(r.task_token).raw(", ").number(r.reg_task_id);
            out.raw(", ").number(r.start).raw(", ").number(r.end).raw(", ").number(r.receive_to_start).raw("]");
        }
    aicore_rows.close();

    detail::member(out, ",\n  ", schema::records_aicpu_tasks_member);
    detail::row_list aicpu_rows(out, "  ");
    for (const auto& per_core : c.aicpu)
        for (const auto& r : per_core) {
            aicpu_rows.next();
            out.raw("[").number(r.core).raw(", ").number(r.reg_task_id).raw(", ").number(r.dispatch);
            out.raw(", ").number(r.finish).raw("]");
        }
    aicpu_rows.close();

    if (c.level >= 3) {
        detail::member(out, ",\n  ", schema::records_scheduler_phases_member);
        detail::write_rows(out, "  ", c.scheduler_phases, [&](const std::vector<sched_phase_record>& pool) {
            detail::write_rows(out, "    ", pool, [&](const sched_phase_record& p) {
                detail::member(out, "{", schema::phase_kind_member).string(schema::phase_kind_name(p.kind));
                out.raw(", \"start_cycles\": ").number(p.start).raw(", \"end_cycles\": ").number(p.end);
                out.raw(", \"loop_iter\": ").number(p.loop_iter).raw(", \"tasks_processed\": ").number(p.tasks_processed);
                if (p.kind == sched_phase_kind::dispatch)
                    out.raw(", \"pop_hit\": ").number(p.pop_hit).raw(", \"pop_miss\": ").number(p.pop_miss);
                if (schema::phase_carries_task(p.kind)) out.raw(", \"task_id\": ").number(p.task_id);
                out.raw(", \"shared_at_start\": ");
                detail::write_depths(out, p.depth_at_start);
                out.raw(", \"shared_at_end\": ");
                detail::write_depths(out, p.depth_at_end);
                out.raw("}");
            });
        });
        bool any_orchestrator = false;
        for (const auto& lane : c.orchestrator_phases) any_orchestrator = any_orchestrator || !lane.empty();
        if (any_orchestrator) {
            detail::member(out, ",\n  ", schema::records_orchestrator_phases_member);
            detail::write_rows(out, "  ", c.orchestrator_phases, [&](const std::vector<orch_phase_record>& lane) {
                detail::write_rows(out, "    ", lane, [&](const orch_phase_record& p) {
                    out.raw("{\"submit_idx\": ").number(p.submit_idx).raw(", \"task_id\": ").number(p.task_id);
                    out.raw(", \"start_cycles\": ").number(p.start).raw(", \"end_cycles\": ").number(p.end).raw("}");
                });
            });
        }
    }
    out.raw("\n}\n");
}

// Writes <prefix>/chip_swimlane_records.json atomically and returns its path;
// writes nothing and returns an empty path when nothing was captured, as the
// reference does. Throws output_error naming the file.
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
