// perf_sidecar: the per-task core type that `deps_viewer` takes from a
// `chip_swimlane_records.json` lying beside `deps.json` (dep-gen.md §3.1).
//
// The reference runs the full swimlane reader (`read_perf_data`) and keeps, per
// task, only identity and core type; times are not used. So does this: the
// records are read by their one reader (swimlane/records_reader.hpp, with its
// checks, or with --lenient its reference reading), and of them only what
// decides which tasks read_perf_data produces (chip-swimlane.md §2.9 steps
// 1, 2 and 5) is used: the level, the clock frequency, the host-orchestration
// markers and the AICore / AICPU rows joined on (core_id, reg_task_id).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dfx/convert/common/id_index.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/swimlane/records_reader.hpp"

namespace dfx::convert::deps {

// The core type the swimlane reader gives one task: the core type of its
// slices, or "mix" when its slices ran on cores of different types; and, when
// asked for (run_times), when it ran: from its first slice's start to its
// last slice's end, in µs from the first start of any task in the file (the
// HTML page's task panel shows it; 0 otherwise).
struct sidecar_task {
    std::string core_type;
    bool mixed = false;
    double start_us = 0;
    double duration_us = 0;
};

// Task id -> its core type, one entry per task.
using sidecar_tasks = std::vector<std::pair<std::uint64_t, sidecar_task>>;

namespace detail {

// What decides which tasks read_perf_data returns (chip-swimlane.md §2.9
// steps 1, 2 and 5), taken from the file as records_reader read it.
class sidecar_join {
public:
    // Takes the rows over, freeing each kind once it is converted (the peak is
    // one kind held twice, not the whole file). `run_times`: keep each row's
    // start and end too (16 bytes a row, only the HTML view shows them).
    sidecar_join(swimlane::records_file&& rf, bool run_times) {
        if (rf.level && *rf.level >= INT64_MIN && *rf.level <= INT64_MAX) level_ = static_cast<std::int64_t>(*rf.level);
        if (rf.meta.clock_freq_hz >= INT64_MIN && rf.meta.clock_freq_hz <= INT64_MAX)
            clock_freq_ = static_cast<std::int64_t>(rf.meta.clock_freq_hz);
        host_source_ = rf.meta.orchestrator_source == "host";
        host_capture_ = rf.meta.host_capture.has_value();
        host_phases_ = !rf.host_orch.empty();
        aicpu_orch_phases_ = !rf.orch.empty();
        core_types_ = rf.meta.core_types;
        aicore_.reserve(rf.aicore.size());
        if (run_times) row_span_.reserve(rf.aicore.size());
        for (const swimlane::aicore_row& r : rf.aicore) {
            aicore_.push_back({static_cast<std::int64_t>(r.core), static_cast<std::int64_t>(r.reg), r.token});
            if (run_times) row_span_.emplace_back(r.start, r.end);
        }
        std::vector<swimlane::aicore_row>().swap(rf.aicore);
        aicpu_.reserve(rf.aicpu.size());
        for (const swimlane::aicpu_row& r : rf.aicpu)
            aicpu_.emplace_back(static_cast<std::int64_t>(r.core), static_cast<std::int64_t>(r.reg));
        std::vector<swimlane::aicpu_row>().swap(rf.aicpu);
    }

    // The tasks read_perf_data would return, reduced to their core type.
    sidecar_tasks finish() const {
        if (!level_ || *level_ < 1 || *level_ > 4)
            throw input_error("Unsupported chip_swimlane_level: " + (level_ ? std::to_string(*level_) : "missing"));
        if (!clock_freq_ || *clock_freq_ <= 0) throw input_error("metadata.clock_freq_hz missing or not positive");
        if ((host_source_ || host_phases_ || host_capture_) && aicpu_orch_phases_)
            throw input_error("host orchestration records together with aicpu_orchestrator_phases (ambiguous clock domain)");

        // One entry per task, in first-seen order; found through a flat index.
        static const std::string aiv = "aiv";  // the type of a core outside core_types
        sidecar_tasks out;
        const bool run_times = !row_span_.empty();
        std::vector<std::pair<std::uint64_t, std::uint64_t>> span;  // per entry of out: first start, last end (cycles)
        // Grown as tasks come (not sized by the rows: a task has ~2-3 rows, and
        // a table for every row was 134 MB at 10^6 tasks).
        id_index slot_of;
        auto add = [&](std::size_t row, std::int64_t core) {
            const std::string& type =
                core >= 0 && static_cast<std::size_t>(core) < core_types_.size() ? core_types_[static_cast<std::size_t>(core)] : aiv;
            const auto [slot, inserted] = slot_of.emplace(aicore_[row].token, static_cast<std::uint32_t>(out.size()));
            if (inserted) {
                out.emplace_back(aicore_[row].token, sidecar_task{type, false});
                if (run_times) span.push_back(row_span_[row]);
                return;
            }
            if (run_times)
                span[slot] = {std::min(span[slot].first, row_span_[row].first), std::max(span[slot].second, row_span_[row].second)};
            sidecar_task& known = out[slot].second;
            if (!type.empty() && known.core_type != type) {
                if (known.core_type.empty()) known.core_type = type;
                else known.mixed = true;
            }
        };
        if (!aicpu_.empty()) {
            // Join on (core_id, reg_task_id); a later AICore row for the same
            // key wins: the rows sorted by (key, row), the last of a key's run.
            // (A sorted array, 16 bytes a row, not a hash table sized for every
            // row: 134 MB at 10^6 tasks.)
            std::vector<std::pair<std::uint64_t, std::uint32_t>> row_of(aicore_.size());
            for (std::size_t r = 0; r < aicore_.size(); ++r)
                row_of[r] = {key_of(aicore_[r].core, aicore_[r].reg), static_cast<std::uint32_t>(r)};
            std::sort(row_of.begin(), row_of.end());
            for (const auto& [core, reg] : aicpu_) {
                const std::uint64_t key = key_of(core, reg);
                const auto it = std::upper_bound(row_of.begin(), row_of.end(), std::make_pair(key, UINT32_MAX));
                if (it != row_of.begin() && std::prev(it)->first == key) add(std::prev(it)->second, core);
            }
        } else if (*level_ == 1) {
            for (std::size_t r = 0; r < aicore_.size(); ++r) add(r, aicore_[r].core);
        }
        if (!run_times) return out;
        std::uint64_t origin = UINT64_MAX;
        for (const auto& [start, end] : span) origin = std::min(origin, start);
        const double us_per_cycle = 1e6 / static_cast<double>(*clock_freq_);
        for (std::size_t i = 0; i < out.size(); ++i) {
            const auto [start, end] = span[i];
            out[i].second.start_us = static_cast<double>(start - origin) * us_per_cycle;
            out[i].second.duration_us = end > start ? static_cast<double>(end - start) * us_per_cycle : 0.0;
        }
        return out;
    }

private:
    struct aicore_row {
        std::int64_t core;
        std::int64_t reg;
        std::uint64_t token;
    };

    static std::uint64_t key_of(std::int64_t core, std::int64_t reg) {
        return (static_cast<std::uint64_t>(core) << 32) ^ static_cast<std::uint64_t>(reg);
    }

    std::optional<std::int64_t> level_;
    std::optional<std::int64_t> clock_freq_;
    bool host_source_ = false;
    bool host_phases_ = false;
    bool host_capture_ = false;
    bool aicpu_orch_phases_ = false;
    std::vector<std::string> core_types_;
    std::vector<aicore_row> aicore_;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> row_span_;  // per AICore row: start, end; empty without run times
    std::vector<std::pair<std::int64_t, std::int64_t>> aicpu_;
};

}  // namespace detail

// Reads the sidecar on the calling thread (the viewer reads it beside
// deps.json: one core each) with the one reader of the records file,
// records_reader, leniently as `dfx swimlane --lenient` reads it. Throws
// input_error when it is unreadable or invalid; the viewer fails, or
// leniently warns and goes on without it, as the reference does.
inline sidecar_tasks read_perf_sidecar(const std::string& path, bool lenient = false, bool run_times = false) {
    const detail::sidecar_join r(swimlane::records_reader(path)
                                        .lenient(lenient)
                                        .tasks_only()
                                        .threads(reader_threads::one_thread)
                                        .read(),
                                 run_times);
    try {
        return r.finish();
    } catch (const input_error& e) {
        throw input_error(path + ": " + e.what());
    }
}

}  // namespace dfx::convert::deps
