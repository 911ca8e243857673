// records_reader: stream chip_swimlane_records.json into swimlane::records_file.
// The one reader of that file: swimlane, sched-overhead, critical-path and
// the deps viewer's sidecar all read it here.
//
// The file is walked by common/json_object_stream.hpp (bounded memory
// whatever its size, every byte checked against the JSON grammar and UTF-8);
// the bulk arrays arrive in batches of rows, parsed by simdjson On-Demand on a
// second thread (pipelined_handler.hpp) while the stream scans ahead; a batch
// of task rows written in plain in-range integers, as real files are, is
// read by a fast path instead (common/integer_rows_scanner.hpp), and so is
// a batch of phases whose values are all plain and in range
// (common/flat_objects_scanner.hpp). Both
// schema generations are accepted: 6-column `aicore_tasks` ("v3") and the
// older 5-column rows without receive_to_start_cycles ("v2").
//
// Every value the tools use is type-checked; a wrong type, a missing
// element, a number that does not fit or a truncated file throws
// input_error naming the file, the element ("aicore_tasks[12][3]"), what is
// wrong and the byte. Unknown keys are skipped (after validation), as the
// reference reader ignores them. A cycle count, time or task id that is
// negative is an error too (the reference takes a negative start at face
// value: -5 became an 828 us slice), unless lenient(): then it reads as the
// reference does. A repeated top-level key is refused by the stream.
//
//   records_file rf = records_reader(path).lenient(opts.lenient).read();
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/flat_objects_scanner.hpp"
#include "dfx/convert/common/integer_rows_scanner.hpp"
#include "dfx/convert/common/json_object_stream.hpp"
#include "dfx/convert/common/json_value.hpp"
#include "dfx/convert/common/pipelined_handler.hpp"
#include "dfx/convert/swimlane/records.hpp"
#include "dfx/convert/swimlane/records_metadata_reader.hpp"
#include "dfx/convert/swimlane/records_values.hpp"

namespace dfx::convert::swimlane {

class records_reader final : public json_member_handler {
public:
    // block_bytes: the read size; batch_bytes: how much of an array simdjson
    // parses at a time (tests make both tiny to cross every boundary).
    explicit records_reader(std::string path, std::size_t block_bytes = std::size_t{1} << 20,
                            std::size_t batch_bytes = json_object_stream::default_batch_bytes)
        : vals_(std::move(path), false), block_bytes_(block_bytes), batch_bytes_(batch_bytes) {}

    // Keep the reference's reading of negative times and ids (see the top).
    records_reader& lenient(bool on) {
        vals_ = records_values(vals_.path(), on);
        return *this;
    }

    // Read only the level, the metadata and the task rows: what the deps
    // viewer's sidecar uses. Phases and uploads are held to the grammar (the
    // engine validates every byte it scans) and their lanes counted, but their
    // fields are neither read nor kept: a reader checks the types and ranges
    // of what it uses. (Keeping them doubled `dfx deps`'s peak memory, and
    // checking them doubled its time, for values it never looks at.)
    records_reader& tasks_only(bool on = true) {
        tasks_only_ = on;
        return *this;
    }

    // Read and check the scheduler and AICPU orchestrator phases (their
    // timestamps set the time base, so every task time comes out as with
    // them) but keep only their lanes' count, not the records: `dfx report`
    // uses the task rows alone, and at level 4 the phases were two thirds of
    // its memory (570 of 855 MB at 10^6 tasks). Host orchestrator phases are
    // always kept: in host mode they set the origin of every time.
    records_reader& keep_phases(bool on) {
        keep_phases_ = on;
        return *this;
    }

    // Read and check every phase, but keep of the scheduler phases only what
    // the loop breakdown of `dfx sched-overhead` uses (records.hpp loop_lane:
    // about 4 bytes a work phase, delta-coded, where a full record once took
    // 104; load_perf_data sums them once the time base is known) and no
    // orchestrator phase: at 10^7 tasks the phases it kept were once 5 of its
    // 12.5 GB.
    records_reader& loop_phases_only(bool on = true) {
        loop_only_ = on;
        return *this;
    }

    // Read and check the AICPU rows (their times set the time base) but keep
    // none: `dfx critical-path` uses the AICore rows alone, and at 10^7 tasks
    // the AICPU rows it never looked at were 740 MB.
    records_reader& keep_aicpu_rows(bool on) {
        keep_aicpu_rows_ = on;
        return *this;
    }

    // Check the task rows' times (start, end, receive_to_start, dispatch,
    // finish) but read them as 0, and so set no time base: the deps viewer's
    // text view uses none of them. (Their digits were half of those its
    // reading of the rows converted.)
    records_reader& times_unused(bool on = true) {
        times_unused_ = on;
        return *this;
    }

    // Off: every task row through simdjson On-Demand, none through the fast
    // path (the two must read the same: the tests compare them).
    records_reader& fast_rows(bool on) {
        fast_rows_on_ = on;
        return *this;
    }
    // How many batches (of task rows or phases) the fast paths read, after
    // read(): so a test can tell that they were taken.
    [[nodiscard]] std::size_t fast_batches() const noexcept { return fast_batches_; }

    // Hand each AICore row to `sink` as it is read, in file order, instead of
    // keeping it (records_file::aicore stays empty; the row is checked and
    // sets the time base all the same). `dfx critical-path` turns a row into
    // a 24-byte slice at once: at 10^7 tasks the 48-byte rows held until the
    // end of the read were 1.1 GB of its 2.4 GB peak. The sink runs on the
    // parsing thread; an input_error it throws fails the read.
    records_reader& on_aicore_row(std::function<void(const aicore_row&)> sink) {
        aicore_sink_ = std::move(sink);
        return *this;
    }

    // The same for each AICPU row (records_file::aicpu stays empty): the
    // deps viewer's sidecar keeps of a row its 16-byte join key, where the
    // 32-byte rows held until the end of the read were 640 MB at 10^7 tasks.
    records_reader& on_aicpu_row(std::function<void(const aicpu_row&)> sink) {
        aicpu_sink_ = std::move(sink);
        return *this;
    }

    // Scan and parse on the calling thread alone (another reader has the second core).
    records_reader& threads(reader_threads t) {
        threads_ = t;
        return *this;
    }

    records_file read() {
        out_.path = vals_.path();
        run_with(json_object_stream(vals_.path(), false, block_bytes_, batch_bytes_), *this, threads_);
        return std::move(out_);
    }

    // ---- json_member_handler (use() on the scanning thread, the rest on the parsing one)
    member_use use(std::string_view key) override {
        switch (member_of(key)) {
            case member::level:
            case member::metadata: return member_use::value;
            case member::aicore:
            case member::aicpu:
            case member::uploads: return member_use::batches;
            case member::sched:
            case member::orch:
            case member::host_orch:
                // tasks_only: the lanes counted, their records validated and not read
                // (they were copied into batches only to be dropped: half of `dfx deps`' copying)
                return tasks_only_ ? member_use::lanes_only : member_use::nested_batches;
            case member::other: break;
        }
        return member_use::skip;
    }

    void value(std::string_view key, simdjson::padded_string_view json) override {
        const member m = member_of(key);
        const std::string_view text(json);
        if (m == member::level) {
            // A scalar root document is read directly (simdjson refuses get_value() on it).
            auto& doc = parse(json, false, "chip_swimlane_level");
            out_.level = vals_.integer(doc, [] { return "chip_swimlane_level"; });
            return;
        }
        if (text.front() == 'n') return;  // null reads as empty (the reference's `or []` / `or {}`)
        if (m == member::metadata) {
            records_metadata_reader(vals_, out_.meta).read(parse(json, false, "metadata"));
            return;
        }
        vals_.fail_at_byte(value_offset, fmt::format("{}: expected an array, found {}", key, kind_of(text)));
    }

    // nested_batches: an inner array that is not one (null reads as empty).
    void element(std::string_view key, std::size_t index, simdjson::padded_string_view json) override {
        const std::string_view text(json);
        if (text.front() == 'n') return;
        vals_.fail_at_byte(value_offset, fmt::format("{}[{}]: expected an array, found {}", key, index, kind_of(text)));
    }

    void batch(std::string_view key, const element_batch& at, simdjson::padded_string_view json) override {
        const member m = member_of(key);
        if (tasks_only_ && m != member::aicore && m != member::aicpu) return;  // grammar checked, fields unused
        if (m == member::aicore && fast_rows_on_ &&
            (times_unused_ ? take_fast_rows<3>(fast_aicore_, json) : take_fast_rows<6>(fast_aicore_, json)))
            return;
        if (m == member::aicpu && fast_rows_on_ &&
            (times_unused_ ? take_fast_rows<2>(fast_aicpu_, json) : take_fast_rows<4>(fast_aicpu_, json)))
            return;
        if (m == member::sched && fast_rows_on_ && take_fast_phases(at.outer, json)) return;
        if ((m == member::orch || m == member::host_orch) && fast_rows_on_ && take_fast_orch(m, at.outer, json)) return;
        auto where_array = [&] {
            return m == member::sched || m == member::orch || m == member::host_orch ? fmt::format("{}[{}]", key, at.outer)
                                                                                      : std::string(key);
        };
        auto& doc = parse(json, true, where_array());
        simdjson::ondemand::array arr;
        if (doc.get_array().get(arr) != simdjson::SUCCESS) vals_.fail_at(where_array(), "invalid JSON");
        std::size_t index = at.first;
        for (auto el : arr) {
            od_value v;
            if (el.get(v) != simdjson::SUCCESS) vals_.fail_at(fmt::format("{}[{}]", where_array(), index), "invalid JSON");
            switch (m) {
                case member::aicore: read_aicore_row(v, index); break;
                case member::aicpu: read_aicpu_row(v, index); break;
                case member::uploads: out_.uploads.push_back(read_upload(v, index)); break;
                case member::sched: {
                    sched_pops pops;
                    const sched_record r = read_sched_record(v, at.outer, index, pops);
                    keep_phase(at.outer, r, pops);
                    break;
                }
                case member::orch:
                    keep_phase(m, at.outer, read_orch_record(v, key, at.outer, index, "start_cycles", "end_cycles", true));
                    break;
                case member::host_orch:
                    keep_phase(m, at.outer, read_orch_record(v, key, at.outer, index, "start_host_ns", "end_host_ns", false));
                    break;
                default: break;
            }
            ++index;
        }
    }

    // A lane per inner array, empty or null ones included.
    void array_end(std::string_view key, std::size_t count) override {
        switch (member_of(key)) {
            case member::sched:
                if (loop_only_) out_.loop.resize(count);
                else out_.sched.resize(count);
                break;
            case member::orch: out_.orch.resize(count); break;
            case member::host_orch: out_.host_orch.resize(count); break;
            default: break;
        }
    }

private:
    using od_value = simdjson::ondemand::value;  // (value() is the handler's)
    enum class member : unsigned char { level, metadata, aicore, aicpu, sched, orch, host_orch, uploads, other };

    static member member_of(std::string_view key) {
        if (key == "chip_swimlane_level") return member::level;
        if (key == "metadata") return member::metadata;
        if (key == "aicore_tasks") return member::aicore;
        if (key == "aicpu_tasks") return member::aicpu;
        if (key == "aicpu_scheduler_phases") return member::sched;
        if (key == "aicpu_orchestrator_phases") return member::orch;
        if (key == "host_orchestrator_phases") return member::host_orch;
        if (key == "host_device_uploads") return member::uploads;
        return member::other;
    }

    static std::string_view kind_of(std::string_view json) {
        switch (json.front()) {
            case '{': return "an object";
            case '[': return "an array";
            case '"': return "a string";
            case 't':
            case 'f': return "a boolean";
            case 'n': return "null";
            default: return "a number";
        }
    }

    template <class Lane>
    static Lane& lane(std::vector<Lane>& lanes, std::size_t outer) {
        if (lanes.size() <= outer) lanes.resize(outer + 1);
        return lanes[outer];
    }

    // Parses one delivered document; its errors are located in the file.
    simdjson::ondemand::document& parse(simdjson::padded_string_view json, bool bracketed, std::string_view where) {
        if (const auto err = parser_.iterate(json).get(doc_); err != simdjson::SUCCESS) {
            // doc_ still holds the previous document (its buffers are gone): no location in it.
            const std::size_t content = std::string_view(json).size() - (bracketed ? 2 : 0);
            vals_.parsing(nullptr, {}, value_offset + content, false);
            vals_.fail_at(where, fmt::format("invalid JSON: {}", simdjson::error_message(err)));
        }
        vals_.parsing(&doc_, std::string_view(json), value_offset, bracketed);
        return doc_;
    }

    void note_time_base(int128 cycles) {
        if (cycles <= 0) return;
        const auto c = static_cast<std::uint64_t>(cycles);
        if (out_.base_cycles == 0 || c < out_.base_cycles) out_.base_cycles = c;
        note_device(c);
    }
    void note_device(std::uint64_t c) {
        if (c == 0) return;
        if (out_.min_device_cycles == 0 || c < out_.min_device_cycles) out_.min_device_cycles = c;
        out_.max_device_cycles = std::max(out_.max_device_cycles, c);
    }

    // ---- rows -------------------------------------------------------------
    void read_aicore_row(od_value& v, std::size_t row) {
        auto where = [&] { return fmt::format("aicore_tasks[{}]", row); };
        simdjson::ondemand::array arr;
        if (v.get_array().get(arr) != simdjson::SUCCESS) vals_.fail_at(where(), "expected an array of integers");
        int128 col[6] = {0, 0, 0, 0, 0, 0};
        std::size_t n = 0;
        for (auto el : arr) {
            od_value c;
            if (el.get(c) != simdjson::SUCCESS) vals_.fail_at(where(), "invalid JSON");
            if (n < 6) col[n] = vals_.integer(c, [&] { return fmt::format("aicore_tasks[{}][{}]", row, n); });
            ++n;
        }
        take_aicore_row(col, n, row);
    }

    // A task row's columns, checked and kept (the fast path keeps its rows,
    // all in range, through keep() directly).
    void take_aicore_row(const int128 (&col)[6], std::size_t n, std::size_t row) {
        auto where = [&] { return fmt::format("aicore_tasks[{}]", row); };
        if (n != 5 && n != 6) {
            vals_.fail_at(where(), fmt::format("expected 5 or 6 columns [core_id, task_token_raw, reg_task_id, "
                                               "start_cycles, end_cycles(, receive_to_start_cycles)], found {}",
                                               n));
        }
        if (col[0] < 0 || col[0] > UINT32_MAX) vals_.fail_at(where(), "core_id out of range");
        if (col[1] < 0 && !vals_.lenient()) vals_.fail_at(where(), "task_token_raw must not be negative");
        check_reg_task_id(col[2], where);
        for (const std::size_t c : {std::size_t{3}, std::size_t{4}}) {
            if (col[c] < 0) vals_.negative_time(col[c], [&] { return fmt::format("aicore_tasks[{}][{}]", row, c); });
            if (col[c] > INT64_MAX) vals_.fail_at(fmt::format("aicore_tasks[{}][{}]", row, c), "cycle count above 2^63-1");
        }
        if (col[5] < 0) vals_.fail_at(where(), "receive_to_start_cycles must not be negative");
        aicore_row r;
        r.core = static_cast<std::uint32_t>(col[0]);
        r.token = static_cast<std::uint64_t>(col[1]);
        r.reg = static_cast<std::uint64_t>(col[2]);
        r.start = col[3] <= 0 ? 0 : static_cast<std::uint64_t>(col[3]);
        r.end = col[4] <= 0 ? 0 : static_cast<std::uint64_t>(col[4]);
        r.r2s = static_cast<std::uint64_t>(col[5]);
        if (times_unused_) r.start = r.end = r.r2s = 0;  // as the fast path reads them
        keep(r);
    }

    // A checked row: it sets the time base and is kept (or handed to the sink).
    void keep(aicore_row r) {
        note_time_base(int128{r.start} - int128{r.r2s});  // receive time
        note_time_base(r.end);
        note_device(r.start);
        if (aicore_sink_) return aicore_sink_(r);
        r.seq = next_seq(out_.aicore.size(), "aicore_tasks");
        out_.aicore.push_back(r);
    }

    // A kept row's position: 32 bits (the join's tie-break; 2^32 rows
    // would be 200 GB of them).
    std::uint32_t next_seq(std::size_t kept, std::string_view member) const {
        if (kept >= UINT32_MAX) vals_.fail_at(member, "more than 2^32-1 rows");
        return static_cast<std::uint32_t>(kept);
    }

    // reg_task_id is the per-core u32 dispatch token (spec chip-swimlane.md):
    // the join key between a core's rows and its scheduler's, so a value
    // outside u32 would silently join nothing.
    template <class Where>
    void check_reg_task_id(int128 v, const Where& where) {
        if (v < 0) vals_.fail_at(where(), "reg_task_id must not be negative");
        if (v > UINT32_MAX && !vals_.lenient()) vals_.fail_at(where(), "reg_task_id above 2^32-1 (it is a u32 dispatch token)");
    }

    // ---- the fast path (common/integer_rows_scanner.hpp) --------------------
    // A batch of rows all in plain integers and all in range is taken as it
    // is; anything else (another type, a fraction, a huge or negative value,
    // a wrong column count) goes the general way above, which reads the same
    // text again and finds the same rows or names the error. So the fast
    // path changes no result and no message, only the time (simdjson's
    // On-Demand walk was most of `dfx deps`' time reading the records).
    static bool in_range(const integer_row<6>& r) {
        const auto& c = r.col;
        return (r.n == 5 || r.n == 6) && c[0] >= 0 && c[0] <= UINT32_MAX && c[1] >= 0 && c[2] >= 0 &&
               c[2] <= UINT32_MAX && c[3] >= 0 && c[4] >= 0 && c[5] >= 0;
    }
    static bool in_range(const integer_row<4>& r) {
        const auto& c = r.col;
        return r.n == 4 && c[0] >= 0 && c[0] <= UINT32_MAX && c[1] >= 0 && c[1] <= UINT32_MAX && c[2] >= 0 &&
               c[3] >= 0;
    }
    // A row in range is kept as take_aicore_row / take_aicpu_row would keep
    // it, without their checks (which it passes: in_range is their subset).
    void take(const integer_row<6>& r) {
        const auto& c = r.col;
        keep(aicore_row{.token = static_cast<std::uint64_t>(c[1]),
                        .reg = static_cast<std::uint64_t>(c[2]),
                        .start = static_cast<std::uint64_t>(c[3]),
                        .end = static_cast<std::uint64_t>(c[4]),
                        .r2s = static_cast<std::uint64_t>(c[5]),  // 0 in a 5-column row
                        .core = static_cast<std::uint32_t>(c[0])});
    }
    void take(const integer_row<4>& r) {
        const auto& c = r.col;
        keep(aicpu_row{.reg = static_cast<std::uint64_t>(c[1]),
                       .dispatch = static_cast<std::uint64_t>(c[2]),
                       .finish = static_cast<std::uint64_t>(c[3]),
                       .core = static_cast<std::uint32_t>(c[0])});
    }
    template <std::size_t Keep, std::size_t Max>
    bool take_fast_rows(std::vector<integer_row<Max>>& rows, simdjson::padded_string_view json) {
        rows.clear();
        if (!scan_integer_rows<Max, Keep>(std::string_view(json), rows)) return false;
        for (const auto& r : rows)
            if (!in_range(r)) return false;
        for (const auto& r : rows) take(r);
        ++fast_batches_;
        return true;
    }

    // Where a phase read by either path goes: a scheduler phase to the loop
    // lanes (sched-overhead) or the kept lanes, or nowhere (tasks only); an
    // orchestrator phase to its lanes unless only the loop or no phases are
    // wanted; a host orchestrator phase always. One place, so that the fast
    // paths and the general one cannot keep different phases.
    void keep_phase(std::size_t outer, const sched_record& r, const sched_pops& pops) {
        if (loop_only_) lane(out_.loop, outer).add(r, pops);
        else if (keep_phases_) lane(out_.sched, outer).add(r, pops);
    }
    void keep_phase(member m, std::size_t outer, const orch_record& r) {
        if (m == member::host_orch) lane(out_.host_orch, outer).push_back(r);
        else if (keep_phases_ && !loop_only_) lane(out_.orch, outer).push_back(r);
    }

    // The phases the same way (common/flat_objects_scanner.hpp): a batch
    // whose every member holds a value read_sched_record / read_orch_record
    // would take without a question (times, counters and ids non-negative,
    // depths in range, kinds as strings) is read from the text in place; anything else
    // (a negative value, another type, a fraction, an escape) sends the
    // whole batch the general way, which reads the same phases or names the
    // error. The phases are kept only once the whole batch has passed.
    bool take_fast_phases(std::size_t outer, simdjson::padded_string_view json) {
        using kind = flat_value::kind;
        fast_sched_.clear();
        sched_record r;
        sched_pops pops;
        bool has_start_depth = false;
        bool has_end_depth = false;
        const auto count = [](const flat_value& v, std::int64_t& out) {
            if (v.type != kind::integer || v.number < 0) return false;
            out = v.number;
            return true;
        };
        const auto depths = [](const flat_value& v, std::int32_t (&out)[3], bool& has) {
            if (v.type == kind::null) {  // not an array: no depths, as read_depths says
                has = false;
                return true;
            }
            if (v.type != kind::integers) return false;
            for (std::size_t i = 0; i < v.count && i < 3; ++i) {
                if (v.items[i] < 0 || v.items[i] > INT32_MAX) return false;
                out[i] = static_cast<std::int32_t>(v.items[i]);
            }
            has = v.count == 3;
            return true;
        };
        const bool ok = scan_flat_objects(
            std::string_view(json),
            [&](std::string_view key, const flat_value& v) {
                std::int64_t x = 0;
                if (key == "kind") {
                    if (v.type != kind::string) return false;
                    r.kind = phase_kind_from(v.text);
                } else if (key == "start_cycles") {
                    if (!count(v, x)) return false;
                    r.start_cycles = static_cast<std::uint64_t>(x);
                } else if (key == "end_cycles") {
                    if (!count(v, x)) return false;
                    r.end_cycles = static_cast<std::uint64_t>(x);
                } else if (key == "loop_iter") {
                    if (!count(v, r.loop_iter)) return false;
                } else if (key == "tasks_processed") {
                    if (!count(v, r.tasks_processed)) return false;
                    r.has_tasks_processed = true;
                } else if (key == "pop_hit") {
                    if (!count(v, pops.hit)) return false;
                } else if (key == "pop_miss") {
                    if (!count(v, pops.miss)) return false;
                } else if (key == "task_id") {
                    if (v.type != kind::null) {
                        if (!count(v, x)) return false;
                        r.task_id = static_cast<std::uint64_t>(x);
                        r.has_task_id = true;
                    }
                } else if (key == "shared_at_start") {
                    return depths(v, r.depth_start, has_start_depth);
                } else if (key == "shared_at_end") {
                    return depths(v, r.depth_end, has_end_depth);
                }
                return true;
            },
            [&] {
                r.depths_valid = has_start_depth && has_end_depth;
                fast_sched_.push_back({r, pops});
                r = {};
                pops = {};
                has_start_depth = has_end_depth = false;
                return true;
            });
        if (!ok) return false;
        for (const auto& [phase, phase_pops] : fast_sched_) {
            note_time_base(phase.start_cycles);
            note_time_base(phase.end_cycles);
            keep_phase(outer, phase, phase_pops);
        }
        ++fast_batches_;
        return true;
    }
    bool take_fast_orch(member m, std::size_t outer, simdjson::padded_string_view json) {
        using kind = flat_value::kind;
        const bool device = m == member::orch;
        const std::string_view start_key = device ? "start_cycles" : "start_host_ns";
        const std::string_view end_key = device ? "end_cycles" : "end_host_ns";
        fast_orch_.clear();
        orch_record r;
        const bool ok = scan_flat_objects(
            std::string_view(json),
            [&](std::string_view key, const flat_value& v) {
                const bool counted = key == start_key || key == end_key || key == "submit_idx";
                if (!counted && key != "task_id") return true;
                if (v.type != kind::integer || (counted && v.number < 0)) return false;
                if (key == start_key) r.start = static_cast<std::uint64_t>(v.number);
                else if (key == end_key) r.end = static_cast<std::uint64_t>(v.number);
                else if (key == "submit_idx") r.submit_idx = v.number;
                else r.task_id = raw_task_id{static_cast<std::uint64_t>(v.number), v.number < 0};
                return true;
            },
            [&] {
                fast_orch_.push_back(r);
                r = {};
                return true;
            });
        if (!ok) return false;
        for (const orch_record& phase : fast_orch_) {
            if (device) {
                note_time_base(phase.start);
                note_time_base(phase.end);
            }
            keep_phase(m, outer, phase);
        }
        ++fast_batches_;
        return true;
    }

    void read_aicpu_row(od_value& v, std::size_t row) {
        auto where = [&] { return fmt::format("aicpu_tasks[{}]", row); };
        simdjson::ondemand::array arr;
        if (v.get_array().get(arr) != simdjson::SUCCESS) vals_.fail_at(where(), "expected an array of integers");
        int128 col[4] = {0, 0, 0, 0};
        std::size_t n = 0;
        for (auto el : arr) {
            od_value c;
            if (el.get(c) != simdjson::SUCCESS) vals_.fail_at(where(), "invalid JSON");
            if (n < 4) col[n] = vals_.integer(c, [&] { return fmt::format("aicpu_tasks[{}][{}]", row, n); });
            ++n;
        }
        take_aicpu_row(col, n, row);
    }

    void take_aicpu_row(const int128 (&col)[4], std::size_t n, std::size_t row) {
        auto where = [&] { return fmt::format("aicpu_tasks[{}]", row); };
        if (n != 4) {
            vals_.fail_at(where(), fmt::format("expected 4 columns [core_id, reg_task_id, dispatch_cycles, "
                                               "finish_cycles], found {}",
                                               n));
        }
        if (col[0] < 0 || col[0] > UINT32_MAX) vals_.fail_at(where(), "core_id out of range");
        check_reg_task_id(col[1], where);
        for (const std::size_t c : {std::size_t{2}, std::size_t{3}}) {
            if (col[c] < 0) vals_.negative_time(col[c], [&] { return fmt::format("aicpu_tasks[{}][{}]", row, c); });
            if (col[c] > INT64_MAX) vals_.fail_at(fmt::format("aicpu_tasks[{}][{}]", row, c), "cycle count above 2^63-1");
        }
        aicpu_row r;
        r.core = static_cast<std::uint32_t>(col[0]);
        r.reg = static_cast<std::uint64_t>(col[1]);
        r.dispatch = col[2] <= 0 ? 0 : static_cast<std::uint64_t>(col[2]);
        r.finish = col[3] <= 0 ? 0 : static_cast<std::uint64_t>(col[3]);
        if (times_unused_) r.dispatch = r.finish = 0;  // as the fast path reads them
        keep(r);
    }

    void keep(aicpu_row r) {
        note_time_base(r.dispatch);
        note_time_base(r.finish);
        if (aicpu_sink_) return aicpu_sink_(r);
        if (!keep_aicpu_rows_) return;
        r.seq = next_seq(out_.aicpu.size(), "aicpu_tasks");
        out_.aicpu.push_back(r);
    }

    sched_record read_sched_record(od_value& v_record, std::size_t thread, std::size_t i, sched_pops& pops) {
        auto where = [&] { return fmt::format("aicpu_scheduler_phases[{}][{}]", thread, i); };
        simdjson::ondemand::object obj;
        if (v_record.get_object().get(obj) != simdjson::SUCCESS) vals_.fail_at(where(), "expected an object");
        sched_record r;
        bool has_start_depth = false;
        bool has_end_depth = false;
        for (auto field : obj) {
            std::string_view key;
            if (field.unescaped_key().get(key) != simdjson::SUCCESS) vals_.fail_at(where(), "invalid key");
            od_value v;
            if (field.value().get(v) != simdjson::SUCCESS) vals_.fail_at(where(), "invalid JSON");
            auto at = [&] { return fmt::format("{}.{}", where(), key); };
            if (key == "kind") {
                r.kind = phase_kind_from(vals_.string(v, at));
            } else if (key == "start_cycles") {
                r.start_cycles = vals_.timestamp(v, at);
            } else if (key == "end_cycles") {
                r.end_cycles = vals_.timestamp(v, at);
            } else if (key == "loop_iter") {
                r.loop_iter = vals_.counter(v, at);
            } else if (key == "tasks_processed") {
                r.tasks_processed = vals_.counter(v, at);
                r.has_tasks_processed = true;
            } else if (key == "pop_hit") {
                pops.hit = vals_.counter(v, at);
            } else if (key == "pop_miss") {
                pops.miss = vals_.counter(v, at);
            } else if (key == "task_id") {
                if (!is_null(v)) {
                    r.task_id = vals_.task_id(v, at);
                    r.has_task_id = true;
                }
            } else if (key == "shared_at_start") {
                has_start_depth = read_depths(v, r.depth_start, at);
            } else if (key == "shared_at_end") {
                has_end_depth = read_depths(v, r.depth_end, at);
            }
        }
        r.depths_valid = has_start_depth && has_end_depth;
        note_time_base(r.start_cycles);
        note_time_base(r.end_cycles);
        return r;
    }

    // A queue-depth snapshot: valid only as an array of exactly 3 integers.
    template <class Where>
    bool read_depths(od_value& v, std::int32_t (&out)[3], const Where& where) {
        simdjson::ondemand::array arr;
        if (v.get_array().get(arr) != simdjson::SUCCESS) return false;
        std::size_t n = 0;
        for (auto el : arr) {
            od_value e;
            if (el.get(e) != simdjson::SUCCESS) vals_.fail_at(where(), "invalid JSON");
            const std::size_t idx = n;
            const int128 x = vals_.integer(e, [&] { return fmt::format("{}[{}]", where(), idx); });
            if (n < 3) {
                if (x < INT32_MIN || x > INT32_MAX || (x < 0 && !vals_.lenient())) vals_.fail_at(where(), "queue depth out of range");
                out[n] = static_cast<std::int32_t>(x);
            }
            ++n;
        }
        return n == 3;
    }

    orch_record read_orch_record(od_value& v_record, std::string_view key, std::size_t lane_idx, std::size_t i,
                                 std::string_view start_key, std::string_view end_key, bool device_clock) {
        auto where = [&] { return fmt::format("{}[{}][{}]", key, lane_idx, i); };
        simdjson::ondemand::object obj;
        if (v_record.get_object().get(obj) != simdjson::SUCCESS) vals_.fail_at(where(), "expected an object");
        orch_record r;
        for (auto field : obj) {
            std::string_view k;
            if (field.unescaped_key().get(k) != simdjson::SUCCESS) vals_.fail_at(where(), "invalid key");
            od_value v;
            if (field.value().get(v) != simdjson::SUCCESS) vals_.fail_at(where(), "invalid JSON");
            auto at = [&] { return fmt::format("{}.{}", where(), k); };
            if (k == start_key) {
                r.start = vals_.timestamp(v, at);
            } else if (k == end_key) {
                r.end = vals_.timestamp(v, at);
            } else if (k == "submit_idx") {
                r.submit_idx = vals_.counter(v, at);
            } else if (k == "task_id") {
                const int128 id = vals_.integer(v, at);
                r.task_id = raw_task_id{static_cast<std::uint64_t>(id), id < 0};
            }
        }
        if (device_clock) {
            note_time_base(r.start);
            note_time_base(r.end);
        }
        return r;
    }

    host_upload read_upload(od_value& v_upload, std::size_t i) {
        auto where = [&] { return fmt::format("host_device_uploads[{}]", i); };
        simdjson::ondemand::object obj;
        if (v_upload.get_object().get(obj) != simdjson::SUCCESS) vals_.fail_at(where(), "expected an object");
        host_upload u;
        for (auto field : obj) {
            std::string_view k;
            if (field.unescaped_key().get(k) != simdjson::SUCCESS) vals_.fail_at(where(), "invalid key");
            od_value v;
            if (field.value().get(v) != simdjson::SUCCESS) vals_.fail_at(where(), "invalid JSON");
            auto at = [&] { return fmt::format("{}.{}", where(), k); };
            if (k == "phase") {
                u.phase = vals_.string(v, at);
            } else if (k == "start_host_ns") {
                u.start_ns = vals_.timestamp(v, at);
            } else if (k == "end_host_ns") {
                u.end_ns = vals_.timestamp(v, at);
            } else if (k == "detail") {
                u.detail_json = vals_.raw_text(v, at);
            }
        }
        return u;
    }

    records_values vals_;
    bool tasks_only_ = false;
    bool keep_phases_ = true;
    bool keep_aicpu_rows_ = true;
    bool loop_only_ = false;
    bool fast_rows_on_ = true;
    bool times_unused_ = false;
    std::function<void(const aicore_row&)> aicore_sink_;  // empty: keep the rows
    std::function<void(const aicpu_row&)> aicpu_sink_;    // empty: keep the rows (if keep_aicpu_rows_)
    reader_threads threads_ = reader_threads::pipelined;
    std::size_t block_bytes_;
    std::size_t batch_bytes_;
    simdjson::ondemand::parser parser_;
    simdjson::ondemand::document doc_;
    std::vector<integer_row<6>> fast_aicore_;  // the fast path's scratch, reused per batch
    std::vector<integer_row<4>> fast_aicpu_;
    std::vector<std::pair<sched_record, sched_pops>> fast_sched_;  // the phases' fast path's scratch, per batch
    std::vector<orch_record> fast_orch_;
    std::size_t fast_batches_ = 0;
    records_file out_;
};

inline records_file read_records_file(const std::string& path, bool lenient = false) {
    return records_reader(path).lenient(lenient).read();
}

}  // namespace dfx::convert::swimlane
