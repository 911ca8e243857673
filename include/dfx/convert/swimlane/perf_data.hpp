// perf_data: the canonical microsecond view of a records file, reproducing the
// reference reader `read_perf_data` (spec chip-swimlane.md §2.9). Every swimlane
// tool (trace converter, statistics, scheduler-overhead analysis) reads
// through this, so they agree on the time base, the joins and the task list.
//
//  - time base: the smallest non-zero device timestamp; us(c) = (c - base) *
//    1e6 / clock_freq_hz, with c <= 0 meaning "absent" (0.0);
//  - join: one task per AICPU row matching an AICore row on (core_id,
//    reg_task_id) — never on the task token, which SPMD / MIX / dual issue
//    repeat on one core; at level 1 (no AICPU rows) one task per AICore row;
//  - tasks stably sorted by task id;
//  - host-orchestrated captures: host records are placed relative to the host
//    origin, device records either through the calibrated clock anchors or,
//    when the clocks cannot be aligned, after the host span.
//
// The arithmetic is the reference's, operation for operation, so the doubles
// (and hence the printed statistics) come out identical.
#pragma once

#include <algorithm>
#include <filesystem>
#include <optional>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "dfx/io/json_string.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/io_progress.hpp"
#include "dfx/convert/common/json_value.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/common/release_free_memory.hpp"
#include "dfx/convert/swimlane/clock_alignment.hpp"
#include "dfx/convert/swimlane/records.hpp"
#include "dfx/convert/swimlane/records_reader.hpp"

namespace dfx::convert::swimlane {

// One joined dispatch of a task to a core (a row of the reference `tasks`).
struct task {
    std::uint64_t task_id = 0;
    double start_us = 0.0;
    double end_us = 0.0;
    double dispatch_us = 0.0;  // 0.0 at level 1
    double finish_us = 0.0;    // 0.0 at level 1
    double receive_us = 0.0;
    std::int64_t func_id = -1;  // resolved later from deps.json kernel ids
    std::uint32_t core_id = 0;
    std::uint16_t core_type = 0;  // index into perf_data::core_type_names
    bool joined = false;          // has an AICPU row (propagation_us exists)

    [[nodiscard]] double duration_us() const noexcept { return end_us - start_us; }
    [[nodiscard]] double local_setup_us() const noexcept { return start_us - receive_us; }
    [[nodiscard]] double propagation_us() const noexcept { return receive_us - dispatch_us; }
};

// A device timestamp in cycles -> µs on the trace's time base (spec §2.9):
// the reference's arithmetic, operation for operation. perf_data keeps it for
// the records it keeps in cycles (loop_lane).
struct device_clock {
    double factor = 0.0;  // µs per cycle
    int128 base = 0;      // the smallest non-zero device timestamp
    bool calibrated = false;  // host mode, clocks aligned through the anchors
    bool composite = false;   // host mode, not aligned: device time after the host span
    double composite_end_us = 0.0;
    int128 origin_ns = 0;
    clock_alignment align;  // when calibrated

    [[nodiscard]] double us(int128 c) const {
        if (c <= 0) return 0.0;
        if (calibrated) return static_cast<double>(align.map_cycles_to_host_ns(c) - origin_ns) / 1000.0;
        // An offset that fits 64 bits converts as one (cvtsi2sd); both
        // conversions round the same integer to the nearest double, so the
        // value is the same, without libgcc's 128-bit one (the trace
        // converts each phase's times as it writes them: millions of calls).
        const int128 offset = c - base;
        const bool narrow = offset >= INT64_MIN && offset <= INT64_MAX;
        const double relative =
            (narrow ? static_cast<double>(static_cast<std::int64_t>(offset)) : static_cast<double>(offset)) * factor;
        return composite ? composite_end_us + relative : relative;
    }
};

struct perf_data {
    std::string path;
    int level = 0;
    std::vector<task> tasks;
    std::vector<std::string> core_type_names;

    // aicpu_scheduler_phases: present when the file has a non-empty list of
    // per-thread lists (even if every thread list is empty).
    std::vector<sched_lane> sched;
    // With phase_records::loop instead: per scheduler thread, its work
    // phases already summed on the µs axis (loop_lane::sums, the phases
    // freed) and its summed counters.
    std::vector<loop_lane> loop;
    device_clock clock;
    // Orchestrator lanes: device records, or the non-empty host lanes in host mode.
    std::vector<orch_phase_list> orch;
    std::string orchestrator_source;  // "aicpu", "host" or "" (no orchestrator records)
    std::vector<host_upload> uploads;
    std::vector<std::int64_t> core_to_thread;  // -1 = unassigned

    bool host_mode = false;
    bool cross_domain_latency_available = false;
    std::string timeline_metadata_json;  // the trace's top-level "metadata" (host mode only)

    [[nodiscard]] const std::string& core_type_name(const task& t) const { return core_type_names[t.core_type]; }
    // An orchestrator phase's time (r.start, r.end) on the trace's µs axis:
    // host ns from the host origin in host mode, else device cycles.
    [[nodiscard]] double orch_us(std::uint64_t t) const {
        if (host_mode) return static_cast<double>(int128(t) - clock.origin_ns) / 1000.0;
        return clock.us(t);
    }
    // A scheduler phase's times on the trace's µs axis.
    [[nodiscard]] double start_us(const sched_record& r) const { return clock.us(r.start_cycles); }
    [[nodiscard]] double end_us(const sched_record& r) const { return clock.us(r.end_cycles); }
};

// A scheduler thread's work phases by start on the µs axis (stably: of
// equal starts, the one read first), each one's length added to its kind
// and the gaps between them to idle: Part 5 of `dfx sched-overhead`
// (sched_overhead_parts.hpp, loop_of_thread), in the reference's order of
// additions.
class work_phase_sums {
public:
    explicit work_phase_sums(const device_clock& clock) noexcept : clock_(clock) {}
    // The next phase by start; false, adding nothing, when it starts before
    // the one added last (the phases were not in start order).
    bool add(const loop_phase& p) {
        const double start_us = clock_.us(p.start_cycles), end_us = clock_.us(p.end_cycles);
        if (any_ && start_us < prev_start_) return false;
        if (any_ && start_us > prev_end_) sums_.idle_us += start_us - prev_end_;
        const double dur = end_us - start_us;
        if (dur > 0) {
            (p.kind == phase_kind::complete     ? sums_.complete_us
             : p.kind == phase_kind::async_poll ? sums_.async_poll_us
                                                : sums_.dispatch_us) += dur;
        }
        if (!any_ || end_us > prev_end_) prev_end_ = end_us;
        prev_start_ = start_us;
        any_ = true;
        return true;
    }
    [[nodiscard]] const loop_sums& sums() const noexcept { return sums_; }

private:
    const device_clock& clock_;
    loop_sums sums_;
    bool any_ = false;  // a phase was added: prev_start_ and prev_end_ hold
    double prev_start_ = 0.0;
    double prev_end_ = 0.0;  // the latest end so far
};

// Sums a lane's phases as they come when they are in start order (a thread
// records its loop in order); otherwise decodes them, sorts them stably by
// start and sums them in that order.
inline loop_sums sum_work_phases(const loop_phase_list& phases, const device_clock& clock) {
    work_phase_sums in_order(clock);
    bool ordered = true;
    for (const loop_phase p : phases) {
        if (!in_order.add(p)) {
            ordered = false;
            break;
        }
    }
    if (ordered) return in_order.sums();
    std::vector<loop_phase> sorted(phases.begin(), phases.end());
    std::stable_sort(sorted.begin(), sorted.end(), [&clock](const loop_phase& a, const loop_phase& b) {
        return clock.us(a.start_cycles) < clock.us(b.start_cycles);
    });
    work_phase_sums by_start(clock);
    for (const loop_phase& p : sorted) by_start.add(p);
    return by_start.sums();
}

// Sums a lane read with phase_records::loop and frees its phases.
inline void sum_loop_lane(loop_lane& lane, const device_clock& clock) {
    if (lane.phases.empty() || lane.sums) return;
    lane.sums = sum_work_phases(lane.phases, clock);
    lane.work_phases = lane.phases.size();
    lane.phases.release();
}

namespace detail {

inline std::string describe(int128 v) { return to_decimal(v); }

// Appends host_capture with the converter's validation (spec §4.5).
struct host_capture_check {
    bool complete = false;
    std::string json;
};

inline host_capture_check check_host_capture(const records_metadata& m, std::size_t actual_records, bool host_mode) {
    host_capture_check out;
    std::string& j = out.json;
    if (m.host_capture) {
        const std::string status = m.host_capture_status.empty() ? "unknown" : m.host_capture_status;
        const bool count_matches = !m.host_capture_recorded || *m.host_capture_recorded == int128(actual_records);
        const bool expected_matches = m.host_capture_expected && *m.host_capture_expected == int128(actual_records);
        out.complete = status == "complete" && m.host_capture_dropped && *m.host_capture_dropped == 0 &&
                       count_matches && expected_matches;
        std::vector<std::string_view> errors;
        if (!count_matches) errors.push_back("recorded_record_count_mismatch");
        if (!m.host_capture_expected) {
            errors.push_back("expected_record_count_missing");
        } else if (!expected_matches) {
            errors.push_back("expected_record_count_mismatch");
        }
        j = "{";
        bool first = true;
        for (const auto& [key, raw] : *m.host_capture) {
            if (key == "converter_validation_errors" && !errors.empty()) continue;  // replaced below
            if (!first) j += ", ";
            first = false;
            io::append_json_string(j, key, io::json_string_style::utf8);
            j += ": ";
            j += raw;
        }
        if (!errors.empty()) {
            if (!first) j += ", ";
            j += "\"converter_validation_errors\": [";
            for (std::size_t i = 0; i < errors.size(); ++i) {
                if (i) j += ", ";
                io::append_json_string(j, errors[i], io::json_string_style::utf8);
            }
            j += "]";
        }
        j += "}";
    } else if (host_mode) {
        j = fmt::format(R"({{"status": "unknown", "recorded_records": {}, "dropped_records": null, )"
                        R"("error": "legacy_capture_status_missing"}})",
                        actual_records);
    }
    return out;
}

struct string_appender {  // the Out interface of append_* over a std::string
    std::string& s;
    void append(std::string_view v) { s.append(v); }
    void push_back(char c) { s.push_back(c); }
    void append_string(std::string_view v) { io::append_json_string(s, v, io::json_string_style::utf8); }
    template <class Int>
    void append_int(Int v) { s += fmt::format("{}", v); }
};

}  // namespace detail

// What of the records a tool keeps: everything; the task rows with the
// phases read, checked and counted but not kept (sched and orch lanes left
// empty; records_reader::keep_phases); or, for the scheduler loop breakdown,
// the scheduler work phases compacted into `loop` instead of `sched`, and no
// orchestrator phase (records_reader::loop_phases_only). Task times are the
// same in every case.
enum class phase_records { keep, drop, loop };

// A records file below this size (~27k tasks) is small: load_perf_data reads
// it on one thread, and `dfx swimlane` keeps freed memory for reuse while it
// converts it (tools/dfx/reuse_freed_memory.hpp).
inline constexpr std::uintmax_t small_records_file_bytes = std::uintmax_t{32} << 20;

inline bool is_small_records_file(const std::string& path) {
    std::error_code size_error;  // (the reader names an unreadable file)
    const std::uintmax_t bytes = std::filesystem::file_size(path, size_error);
    return !size_error && bytes < small_records_file_bytes;
}

// Reads and converts a records file. Warnings (unmatched AICPU rows) go to
// `warnings`; bad input throws input_error. `lenient`: negative times and ids
// read as the reference reads them (records_reader.hpp).
inline perf_data load_perf_data(const std::string& path, std::FILE* warnings = stderr, bool lenient = false,
                                phase_records phases = phase_records::keep) {
    // A small file is read on this thread: the pipeline's second thread
    // (scan and parse apart) pays off from about 50k tasks on; below 32 MiB
    // its hand-offs cost more than they overlap (10^4 tasks: 0.93x the CPU
    // and 0.87x the peak of the pipelined read, the same wall).
    const bool small = is_small_records_file(path);
    records_file rf = records_reader(path)
                          .lenient(lenient)
                          .threads(small ? reader_threads::one_thread : reader_threads::pipelined)
                          .keep_phases(phases == phase_records::keep)
                          .loop_phases_only(phases == phase_records::loop)
                          .read();
    auto fail = [&](std::string_view what) { throw input_error(fmt::format("{}: {}", path, what)); };

    perf_data pd;
    pd.path = path;
    if (!rf.level) fail("missing chip_swimlane_level");
    if (*rf.level < 1 || *rf.level > 4) {
        fail(fmt::format("Unsupported chip_swimlane_level: {} (expected 1, 2, 3, or 4)", detail::describe(*rf.level)));
    }
    pd.level = static_cast<int>(*rf.level);
    const records_metadata& meta = rf.meta;
    if (meta.clock_freq_hz <= 0) {
        fail(fmt::format("metadata missing/zero clock_freq_hz: {}", detail::describe(meta.clock_freq_hz)));
    }

    // ---- host orchestration (spec §2.9 step 2, §4.5) ------------------------
    pd.host_mode = meta.orchestrator_source == "host" || !rf.host_orch.empty() || meta.host_capture.has_value();
    if (pd.host_mode && !rf.orch.empty()) {
        fail("both AICPU and host orchestrator phases are present; clock-domain source is ambiguous");
    }
    // "Host timestamps" are the orchestrator phases' start/end only (spec §4.5):
    // they give the origin fallback and the causal-composite seam. Uploads may
    // end after the last submit; counting them would move every device event.
    std::size_t host_record_count = 0;
    std::uint64_t host_min = 0;
    std::uint64_t host_max = 0;
    bool have_host_ts = false;
    for (const auto& lane : rf.host_orch) {
        host_record_count += lane.size();
        for (const auto& r : lane) {
            for (const std::uint64_t ns : {r.start, r.end}) {
                host_min = have_host_ts ? std::min(host_min, ns) : ns;
                host_max = have_host_ts ? std::max(host_max, ns) : ns;
                have_host_ts = true;
            }
        }
    }
    int128 origin_ns = meta.host_orchestration_origin_ns;
    if (have_host_ts && origin_ns == 0) origin_ns = host_min;
    const double composite_end_us =
        have_host_ts ? static_cast<double>(int128(host_max) - origin_ns) / 1000.0 : 0.0;

    clock_alignment align;
    if (pd.host_mode) {
        align = build_clock_alignment(meta.anchors, meta.clock_freq_hz, meta.host_timestamp_quantization_ns,
                                      rf.min_device_cycles, rf.max_device_cycles);
        if (origin_ns == 0 && align.calibrated) origin_ns = align.start->host_mid_ns;
    }

    // ---- cycles -> us -------------------------------------------------------
    const bool calibrated = pd.host_mode && align.calibrated;
    pd.clock.factor = 1'000'000.0 / static_cast<double>(meta.clock_freq_hz);
    pd.clock.base = rf.base_cycles;
    pd.clock.calibrated = calibrated;
    pd.clock.composite = pd.host_mode && !align.calibrated;
    pd.clock.composite_end_us = composite_end_us;
    pd.clock.origin_ns = origin_ns;
    if (calibrated) pd.clock.align = align;
    const device_clock& clock = pd.clock;
    auto us = [&clock](int128 c) { return clock.us(c); };
    // The loop lanes need nothing but the clock: summed before the join, not
    // beside it, and their pages handed back (release_free_memory.hpp).
    if (!rf.loop.empty()) {
        for (loop_lane& lane : rf.loop) sum_loop_lane(lane, clock);
        release_free_memory();
    }

    // ---- core types ---------------------------------------------------------
    std::vector<std::uint16_t> type_of_core;  // per core id listed in metadata
    std::unordered_map<std::string_view, std::uint16_t> type_by_name;  // views of meta.core_types and "aiv"
    auto type_index = [&](std::string_view name) -> std::uint16_t {
        if (const auto it = type_by_name.find(name); it != type_by_name.end()) return it->second;
        if (pd.core_type_names.size() >= 0xFFFF) fail("too many distinct core types");
        const auto index = static_cast<std::uint16_t>(pd.core_type_names.size());
        pd.core_type_names.emplace_back(name);
        type_by_name.emplace(name, index);
        return index;
    };
    const std::uint16_t default_type = type_index("aiv");  // cores missing from the table
    type_of_core.reserve(meta.core_types.size());
    for (const auto& name : meta.core_types) type_of_core.push_back(type_index(name));
    auto core_type = [&](std::uint32_t core) {
        return core < type_of_core.size() ? type_of_core[core] : default_type;
    };

    // ---- join ---------------------------------------------------------------
    // (The progress display's label: the sorts take seconds at 10^7 tasks.)
    {
        const io_progress::stage_scope joining("joining the task rows");
        auto make_task = [&](const aicore_row& ac) {
            task t;
            t.task_id = ac.token;
            t.core_id = ac.core;
            t.core_type = core_type(ac.core);
            t.start_us = us(ac.start);
            t.end_us = us(ac.end);
            t.receive_us = us(int128(ac.start) - int128(ac.r2s));
            return t;
        };
        // Both tables in (core, reg, position) order, walked together front to
        // back: each AICPU row joins the last AICore row of its (core, reg)
        // (later duplicates win, as in the reference's dict), and the pages of
        // the rows behind the walk go back as the tasks are built
        // (row_array::release_prefix), so the tasks take the rows' place rather
        // than adding to them: at 10^7 tasks the join held 144 bytes a row at
        // its peak, now 80. The runtime writes each core's rows by reg, so a
        // table is usually in that order already and is not sorted again.
        auto by_core_reg = [](const auto& a, const auto& b) {
            if (a.core != b.core) return a.core < b.core;
            return a.reg != b.reg ? a.reg < b.reg : a.seq < b.seq;
        };
        auto into_order = [&](auto& rows) {
            if (!std::is_sorted(rows.begin(), rows.end(), by_core_reg)) {
                std::sort(rows.begin(), rows.end(), by_core_reg);
            }
        };
        // A task carries its row's position in func_id until the tasks are in
        // (task id, position) order below: the order a stable sort by task id
        // gives the tasks built in file order, as the reference lists them.
        if (!rf.aicpu.empty()) {
            into_order(rf.aicore);
            into_order(rf.aicpu);
            struct unmatched {
                std::uint32_t core;
                std::size_t count;
                std::uint32_t first_seen;  // the position of its first unmatched row
            };
            std::vector<unmatched> misses;  // one per core, in core order
            std::size_t total_misses = 0;
            pd.tasks.reserve(rf.aicpu.size());
            std::size_t after = 0;  // the first AICore row whose (core, reg) is above the AICPU row's
            for (std::size_t i = 0; i < rf.aicpu.size(); ++i) {
                const aicpu_row& row = rf.aicpu[i];
                auto at_or_below = [&row](const aicore_row& a) {
                    return a.core != row.core ? a.core < row.core : a.reg <= row.reg;
                };
                while (after < rf.aicore.size() && at_or_below(rf.aicore[after])) ++after;
                const aicore_row* match = after > 0 ? &rf.aicore[after - 1] : nullptr;
                if (match == nullptr || match->core != row.core || match->reg != row.reg) {
                    ++total_misses;
                    if (misses.empty() || misses.back().core != row.core) misses.push_back({row.core, 0, row.seq});
                    ++misses.back().count;
                    misses.back().first_seen = std::min(misses.back().first_seen, row.seq);
                    continue;
                }
                task t = make_task(*match);
                t.dispatch_us = us(row.dispatch);
                t.finish_us = us(row.finish);
                t.joined = true;
                t.func_id = row.seq;
                pd.tasks.push_back(t);
                if (i % 4096 == 0) {
                    rf.aicpu.release_prefix(i);
                    // (The row matched stays: the next AICPU row may match it too.)
                    rf.aicore.release_prefix(after - 1);
                }
            }
            if (total_misses > 0 && warnings) {
                // The worst first; of equal counts, the core seen first in the file.
                std::sort(misses.begin(), misses.end(), [](const unmatched& a, const unmatched& b) {
                    return a.count != b.count ? a.count > b.count : a.first_seen < b.first_seen;
                });
                std::string worst;
                for (std::size_t i = 0; i < misses.size() && i < 3; ++i) {
                    if (i) worst += ", ";
                    worst += fmt::format("core {}: {}", misses[i].core, misses[i].count);
                }
                const io_progress::console_output hold;  // on a line of its own, not after the progress display's
                fmt::print(warnings,
                           "Warning: {} aicpu_task(s) had no matching AICore record (top offenders: {}); the missing "
                           "AICore buffer(s) were dropped on rotation. Bump PLATFORM_AICORE_BUFFERS_PER_CORE if you see "
                           "this regularly.\n",
                           total_misses, worst);
            }
        } else if (pd.level == 1) {
            pd.tasks.reserve(rf.aicore.size());
            for (std::size_t i = 0; i < rf.aicore.size(); ++i) {
                task t = make_task(rf.aicore[i]);
                t.func_id = rf.aicore[i].seq;
                pd.tasks.push_back(t);
                if (i % 4096 == 0) rf.aicore.release_prefix(i);
            }
        }
        // Level >= 2 with no AICPU rows yields no tasks (AICore rows alone are not
        // a complete dispatch record there).
        rf.aicore = {};
        rf.aicpu = {};
        // In place (a stable sort's buffer would be half the tasks again).
        std::sort(pd.tasks.begin(), pd.tasks.end(), [](const task& a, const task& b) {
            return a.task_id != b.task_id ? a.task_id < b.task_id : a.func_id < b.func_id;
        });
        for (task& t : pd.tasks) t.func_id = -1;
    }

    // ---- phases -------------------------------------------------------------
    pd.sched = std::move(rf.sched);
    pd.loop = std::move(rf.loop);
    pd.core_to_thread = meta.core_to_thread;

    if (!rf.orch.empty()) {
        pd.orch = std::move(rf.orch);
        pd.orchestrator_source = "aicpu";
    }

    auto host_us = [&](std::uint64_t ns) { return static_cast<double>(int128(ns) - origin_ns) / 1000.0; };
    for (auto& u : rf.uploads) {
        if (int128(u.start_ns) < origin_ns || u.end_ns < u.start_ns) {
            fail(fmt::format("invalid host device upload: origin={}, start={}, end={}", detail::describe(origin_ns),
                             u.start_ns, u.end_ns));
        }
        u.start_us = host_us(u.start_ns);
        u.end_us = host_us(u.end_ns);
    }
    pd.uploads = std::move(rf.uploads);

    if (pd.host_mode) {
        pd.orchestrator_source = "host";
        for (auto& lane : rf.host_orch) {
            for (const orch_record& r : lane) {
                if (int128(r.start) < origin_ns || r.end < r.start) {
                    fail(fmt::format("invalid host orchestrator phase: origin={}, start={}, end={}",
                                     detail::describe(origin_ns), r.start, r.end));
                }
            }
            if (!lane.empty()) pd.orch.push_back(std::move(lane));
        }

        const auto capture = detail::check_host_capture(meta, host_record_count, pd.host_mode);
        pd.cross_domain_latency_available = calibrated && capture.complete;
        std::string& j = pd.timeline_metadata_json;
        detail::string_appender out{j};
        j = R"({"layout": )";
        io::append_json_string(j, calibrated ? "clock_aligned" : "causal_composite", io::json_string_style::utf8);
        j += R"(, "trace_status": )";
        io::append_json_string(j, capture.complete ? "complete" : "partial", io::json_string_style::utf8);
        j += R"(, "relation": )";
        const std::string_view relation = meta.timeline_relation.empty()
                                              ? std::string_view("host_orchestration_precedes_device")
                                              : std::string_view(meta.timeline_relation);
        io::append_json_string(j, relation, io::json_string_style::utf8);
        j += R"(, "clock_alignment": )";
        align.write_metadata(out);
        j += R"(, "host_capture": )";
        j += capture.json;
        j += R"(, "host_records_complete": )";
        j += capture.complete ? "true" : "false";
        j += R"(, "cross_domain_latency_available": )";
        j += pd.cross_domain_latency_available ? "true" : "false";
        if (!calibrated) {
            j += R"(, "cross_domain_gap_unknown": true, "logical_seam_us": )";
            append_py_float(out, composite_end_us);
        }
        if (pd.orch.empty()) j += R"(, "host_records_missing": true)";
        j += "}";
    }
    return pd;
}

}  // namespace dfx::convert::swimlane
