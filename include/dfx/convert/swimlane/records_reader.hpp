// records_reader: stream chip_swimlane_records.json into swimlane::records_file.
//
// The file is walked with json_stream (bounded memory whatever its size); each
// tuple or phase object is parsed by simdjson On-Demand on its own. Both
// schema generations are accepted: 6-column `aicore_tasks` ("v3") and the
// older 5-column rows without receive_to_start_cycles ("v2").
//
// Every value the tools use is type-checked; a wrong type, a missing
// element, a number that does not fit or a truncated file throws
// input_error naming the file, the element ("aicore_tasks[12][3]") and what
// is wrong. Unknown keys are skipped (after validation), as the reference
// reader ignores them. A cycle count, time or task id that is negative is an
// error too (the reference takes a negative start at face value: -5 became
// an 828 us slice), unless lenient(): then it reads as the reference does.
// A repeated top-level key is refused by json_stream.
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "dfx/convert/common/json_stream.hpp"
#include "dfx/convert/common/json_value.hpp"
#include "dfx/convert/swimlane/records.hpp"
#include "dfx/io/json_string.hpp"

namespace dfx::convert::swimlane {

class records_reader {
public:
    // chunk_bytes: the read size; batch_bytes: how much of an array simdjson
    // parses at a time (tests make both tiny to cross every boundary and to
    // run the scan-ahead thread on small files).
    explicit records_reader(std::string path, std::size_t chunk_bytes = std::size_t{1} << 20,
                            std::size_t batch_bytes = default_batch_bytes)
        : js_(std::move(path), chunk_bytes), batch_bytes_(batch_bytes) {}

    // Keep the reference's reading of negative times and ids (see the top).
    records_reader& lenient(bool on) {
        lenient_ = on;
        return *this;
    }

    records_file read() {
        out_.path = js_.path();
        if (js_.peek() != '{') js_.fail("expected a JSON object at the top level");
        js_.enter_object();
        std::string key;
        while (js_.next_key(key)) {
            if (key == "chip_swimlane_level") {
                read_level();
            } else if (key == "metadata") {
                read_metadata();
            } else if (key == "aicore_tasks") {
                read_aicore_tasks();
            } else if (key == "aicpu_tasks") {
                read_aicpu_tasks();
            } else if (key == "aicpu_scheduler_phases") {
                read_sched_phases();
            } else if (key == "aicpu_orchestrator_phases") {
                read_orch_lanes(out_.orch, "aicpu_orchestrator_phases", "start_cycles", "end_cycles", true);
            } else if (key == "host_orchestrator_phases") {
                read_orch_lanes(out_.host_orch, "host_orchestrator_phases", "start_host_ns", "end_host_ns", false);
            } else if (key == "host_device_uploads") {
                read_uploads();
            } else {
                js_.skip();
            }
        }
        js_.expect_end();
        return std::move(out_);
    }

private:
    using value = simdjson::ondemand::value;

    // Inside for_each_item the stream may be scanning ahead on its own
    // thread: errors name where simdjson is in the batch being parsed (just
    // past the value at fault), mapped back to the file.
    [[noreturn]] void fail_at(std::string_view where, std::string_view what) {
        const std::string message = fmt::format("{}: {}", where, what);
        if (batch_end_) js_.fail_at_byte(byte_in_batch(), message);
        js_.fail(message);
    }
    // A batch is '[' + a run of the file's bytes ending at *batch_end_ + ']'.
    std::uint64_t byte_in_batch() {
        const char* loc = nullptr;
        const std::size_t content = batch_.size() >= 2 ? batch_.size() - 2 : 0;
        if (doc_.current_location().get(loc) != simdjson::SUCCESS || loc <= batch_.data() ||
            loc > batch_.data() + content)
            return *batch_end_;
        return *batch_end_ - content + static_cast<std::uint64_t>(loc - batch_.data() - 1);
    }

    // Parses the next value of the stream as its own simdjson document.
    simdjson::ondemand::document& parse_next(std::string_view where) {
        auto text = js_.capture();
        // simdjson's reason says what the stream does not check (invalid UTF-8).
        if (const auto err = parser_.iterate(text).get(doc_); err != simdjson::SUCCESS)
            fail_at(where, fmt::format("invalid JSON: {}", simdjson::error_message(err)));
        return doc_;
    }

    // ---- typed reads with the element named in errors ----------------------
    template <class V, class Where>
    int128 integer(V& v, const Where& where) {
        int128 x = 0;
        if (!read_integer(v, x, why_)) fail_at(where(), why_);
        return x;
    }
    template <class V, class Where>
    std::uint64_t timestamp(V& v, const Where& where) {
        // 0 means "absent" to every consumer; so does a negative time, leniently.
        const int128 x = integer(v, where);
        if (x < 0) negative_time(x, where);
        if (x > INT64_MAX) fail_at(where(), "expected a non-negative integer cycle count, found one above 2^63-1");
        return x <= 0 ? 0 : static_cast<std::uint64_t>(x);
    }
    template <class Where>
    void negative_time(int128 x, const Where& where) {
        if (!lenient_)
            fail_at(where(), fmt::format("expected a non-negative integer cycle count, found {}", to_decimal(x)));
    }
    template <class V, class Where>
    std::int64_t int64(V& v, const Where& where) {
        const int128 x = integer(v, where);
        if (x > INT64_MAX || x < INT64_MIN) fail_at(where(), "integer out of range");
        return static_cast<std::int64_t>(x);
    }
    // A counter (loop_iter, tasks_processed, pop_hit, submit_idx, ...): negative only leniently.
    template <class V, class Where>
    std::int64_t counter(V& v, const Where& where) {
        const std::int64_t x = int64(v, where);
        if (x < 0 && !lenient_) fail_at(where(), fmt::format("expected a non-negative integer count, found {}", x));
        return x;
    }
    template <class V, class Where>
    std::uint64_t task_id(V& v, const Where& where) {
        // Leniently, negative ids are masked to u64, like the reference's normalisation.
        const int128 x = integer(v, where);
        if (x < 0 && !lenient_)
            fail_at(where(), fmt::format("expected a non-negative integer task id, found {}", to_decimal(x)));
        return static_cast<std::uint64_t>(x);
    }
    template <class V, class Where>
    std::string str_value(V& v, const Where& where) {
        std::string s;
        if (!read_string(v, s, why_)) fail_at(where(), why_);
        return s;
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

    // An array-valued key: null reads as empty (the reference's `or []`).
    bool enter_array_or_null(std::string_view key) {
        if (js_.peek() == 'n') {
            js_.skip();
            return false;
        }
        if (js_.peek() != '[') js_.fail(fmt::format("{}: expected an array, found {}", key, js_.peek_kind()));
        js_.enter_array();
        return true;
    }

    // Calls f(value, index) for every element of the array the stream is in,
    // parsing the elements in batches (one simdjson document per batch).
    template <class Where, class F>
    void for_each_item(const Where& where_array, F&& f) {
        std::size_t index = 0;
        struct clear_on_exit {
            std::optional<std::uint64_t>& end;
            ~clear_on_exit() { end.reset(); }
        } clear{batch_end_};
        js_.for_each_batch(batch_bytes_, [&](simdjson::padded_string_view batch, std::uint64_t end_offset) {
            batch_end_ = end_offset;
            batch_ = std::string_view(batch);
            if (const auto err = parser_.iterate(batch).get(doc_); err != simdjson::SUCCESS) {
                // doc_ is the previous batch's (its buffers are gone): no location in it.
                js_.fail_at_byte(end_offset, fmt::format("{}: invalid JSON: {}", where_array(), simdjson::error_message(err)));
            }
            simdjson::ondemand::array arr;
            if (doc_.get_array().get(arr) != simdjson::SUCCESS) fail_at(where_array(), "invalid JSON");
            for (auto el : arr) {
                value v;
                if (el.get(v) != simdjson::SUCCESS) {
                    fail_at(fmt::format("{}[{}]", where_array(), index), "invalid JSON");
                }
                f(v, index);
                ++index;
            }
        });
    }

    // ---- top-level keys -----------------------------------------------------
    void read_level() {
        // A scalar root document is read directly (simdjson refuses get_value() on it).
        auto& doc = parse_next("chip_swimlane_level");
        out_.level = integer(doc, [] { return "chip_swimlane_level"; });
    }

    void read_aicore_tasks() {
        if (!enter_array_or_null("aicore_tasks")) return;
        for_each_item([] { return std::string("aicore_tasks"); }, [&](value& v, std::size_t row) {
            auto where = [&] { return fmt::format("aicore_tasks[{}]", row); };
            simdjson::ondemand::array arr;
            if (v.get_array().get(arr) != simdjson::SUCCESS) fail_at(where(), "expected an array of integers");
            int128 col[6] = {0, 0, 0, 0, 0, 0};
            std::size_t n = 0;
            for (auto el : arr) {
                value c;
                if (el.get(c) != simdjson::SUCCESS) fail_at(where(), "invalid JSON");
                if (n < 6) col[n] = integer(c, [&] { return fmt::format("aicore_tasks[{}][{}]", row, n); });
                ++n;
            }
            if (n != 5 && n != 6) {
                fail_at(where(), fmt::format("expected 5 or 6 columns [core_id, task_token_raw, reg_task_id, "
                                             "start_cycles, end_cycles(, receive_to_start_cycles)], found {}",
                                             n));
            }
            if (col[0] < 0 || col[0] > UINT32_MAX) fail_at(where(), "core_id out of range");
            if (col[1] < 0 && !lenient_) fail_at(where(), "task_token_raw must not be negative");
            check_reg_task_id(col[2], where);
            for (const std::size_t c : {std::size_t{3}, std::size_t{4}}) {
                if (col[c] < 0) negative_time(col[c], [&] { return fmt::format("aicore_tasks[{}][{}]", row, c); });
                if (col[c] > INT64_MAX) fail_at(fmt::format("aicore_tasks[{}][{}]", row, c), "cycle count above 2^63-1");
            }
            if (col[5] < 0) fail_at(where(), "receive_to_start_cycles must not be negative");
            aicore_row r;
            r.core = static_cast<std::uint32_t>(col[0]);
            r.token = static_cast<std::uint64_t>(col[1]);
            r.reg = static_cast<std::uint64_t>(col[2]);
            r.start = col[3] <= 0 ? 0 : static_cast<std::uint64_t>(col[3]);
            r.end = col[4] <= 0 ? 0 : static_cast<std::uint64_t>(col[4]);
            r.r2s = static_cast<std::uint64_t>(col[5]);
            note_time_base(int128{r.start} - int128{r.r2s});  // receive time
            note_time_base(r.end);
            note_device(r.start);
            out_.aicore.push_back(r);
        });
    }

    // reg_task_id is the per-core u32 dispatch token (spec chip-swimlane.md):
    // the join key between a core's rows and its scheduler's, so a value
    // outside u32 would silently join nothing.
    template <class Where>
    void check_reg_task_id(int128 v, const Where& where) {
        if (v < 0) fail_at(where(), "reg_task_id must not be negative");
        if (v > UINT32_MAX && !lenient_) fail_at(where(), "reg_task_id above 2^32-1 (it is a u32 dispatch token)");
    }

    void read_aicpu_tasks() {
        if (!enter_array_or_null("aicpu_tasks")) return;
        for_each_item([] { return std::string("aicpu_tasks"); }, [&](value& v, std::size_t row) {
            auto where = [&] { return fmt::format("aicpu_tasks[{}]", row); };
            simdjson::ondemand::array arr;
            if (v.get_array().get(arr) != simdjson::SUCCESS) fail_at(where(), "expected an array of integers");
            int128 col[4] = {0, 0, 0, 0};
            std::size_t n = 0;
            for (auto el : arr) {
                value c;
                if (el.get(c) != simdjson::SUCCESS) fail_at(where(), "invalid JSON");
                if (n < 4) col[n] = integer(c, [&] { return fmt::format("aicpu_tasks[{}][{}]", row, n); });
                ++n;
            }
            if (n != 4) {
                fail_at(where(), fmt::format("expected 4 columns [core_id, reg_task_id, dispatch_cycles, "
                                             "finish_cycles], found {}",
                                             n));
            }
            if (col[0] < 0 || col[0] > UINT32_MAX) fail_at(where(), "core_id out of range");
            check_reg_task_id(col[1], where);
            for (const std::size_t c : {std::size_t{2}, std::size_t{3}}) {
                if (col[c] < 0) negative_time(col[c], [&] { return fmt::format("aicpu_tasks[{}][{}]", row, c); });
                if (col[c] > INT64_MAX) fail_at(fmt::format("aicpu_tasks[{}][{}]", row, c), "cycle count above 2^63-1");
            }
            aicpu_row r;
            r.core = static_cast<std::uint32_t>(col[0]);
            r.reg = static_cast<std::uint64_t>(col[1]);
            r.dispatch = col[2] <= 0 ? 0 : static_cast<std::uint64_t>(col[2]);
            r.finish = col[3] <= 0 ? 0 : static_cast<std::uint64_t>(col[3]);
            note_time_base(r.dispatch);
            note_time_base(r.finish);
            out_.aicpu.push_back(r);
        });
    }

    void read_sched_phases() {
        out_.sched.clear();
        if (!enter_array_or_null("aicpu_scheduler_phases")) return;
        std::size_t thread = 0;
        while (js_.next_item()) {
            auto& lane = out_.sched.emplace_back();
            if (!enter_array_or_null(fmt::format("aicpu_scheduler_phases[{}]", thread))) {
                ++thread;
                continue;
            }
            for_each_item([&] { return fmt::format("aicpu_scheduler_phases[{}]", thread); },
                          [&](value& v, std::size_t i) {
                              auto where = [&] { return fmt::format("aicpu_scheduler_phases[{}][{}]", thread, i); };
                              lane.push_back(read_sched_record(v, where));
                          });
            ++thread;
        }
    }

    template <class Where>
    sched_record read_sched_record(value& v_record, const Where& where) {
        simdjson::ondemand::object obj;
        if (v_record.get_object().get(obj) != simdjson::SUCCESS) fail_at(where(), "expected an object");
        sched_record r;
        bool has_start_depth = false;
        bool has_end_depth = false;
        for (auto field : obj) {
            std::string_view key;
            if (field.unescaped_key().get(key) != simdjson::SUCCESS) fail_at(where(), "invalid key");
            value v;
            if (field.value().get(v) != simdjson::SUCCESS) fail_at(where(), "invalid JSON");
            auto at = [&] { return fmt::format("{}.{}", where(), key); };
            if (key == "kind") {
                r.kind = phase_kind_from(str_value(v, at));
            } else if (key == "start_cycles") {
                r.start_cycles = timestamp(v, at);
            } else if (key == "end_cycles") {
                r.end_cycles = timestamp(v, at);
            } else if (key == "loop_iter") {
                r.loop_iter = counter(v, at);
            } else if (key == "tasks_processed") {
                r.tasks_processed = counter(v, at);
                r.has_tasks_processed = true;
            } else if (key == "pop_hit") {
                r.pop_hit = counter(v, at);
            } else if (key == "pop_miss") {
                r.pop_miss = counter(v, at);
            } else if (key == "task_id") {
                if (!is_null(v)) {
                    r.task_id = task_id(v, at);
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
    bool read_depths(value& v, std::int32_t (&out)[3], const Where& where) {
        simdjson::ondemand::array arr;
        if (v.get_array().get(arr) != simdjson::SUCCESS) return false;
        std::size_t n = 0;
        for (auto el : arr) {
            value e;
            if (el.get(e) != simdjson::SUCCESS) fail_at(where(), "invalid JSON");
            const std::size_t idx = n;
            const int128 x = integer(e, [&] { return fmt::format("{}[{}]", where(), idx); });
            if (n < 3) {
                if (x < INT32_MIN || x > INT32_MAX || (x < 0 && !lenient_)) fail_at(where(), "queue depth out of range");
                out[n] = static_cast<std::int32_t>(x);
            }
            ++n;
        }
        return n == 3;
    }

    void read_orch_lanes(std::vector<std::vector<orch_record>>& lanes, std::string_view key,
                         std::string_view start_key, std::string_view end_key, bool device_clock) {
        lanes.clear();
        if (!enter_array_or_null(key)) return;
        std::size_t lane_idx = 0;
        while (js_.next_item()) {
            auto& lane = lanes.emplace_back();
            if (!enter_array_or_null(fmt::format("{}[{}]", key, lane_idx))) {
                ++lane_idx;
                continue;
            }
            for_each_item([&] { return fmt::format("{}[{}]", key, lane_idx); }, [&](value& v_record, std::size_t i) {
                auto where = [&] { return fmt::format("{}[{}][{}]", key, lane_idx, i); };
                simdjson::ondemand::object obj;
                if (v_record.get_object().get(obj) != simdjson::SUCCESS) fail_at(where(), "expected an object");
                orch_record r;
                for (auto field : obj) {
                    std::string_view k;
                    if (field.unescaped_key().get(k) != simdjson::SUCCESS) fail_at(where(), "invalid key");
                    value v;
                    if (field.value().get(v) != simdjson::SUCCESS) fail_at(where(), "invalid JSON");
                    auto at = [&] { return fmt::format("{}.{}", where(), k); };
                    if (k == start_key) {
                        r.start = timestamp(v, at);
                    } else if (k == end_key) {
                        r.end = timestamp(v, at);
                    } else if (k == "submit_idx") {
                        r.submit_idx = counter(v, at);
                    } else if (k == "task_id") {
                        const int128 id = integer(v, at);
                        r.task_id = raw_task_id{static_cast<std::uint64_t>(id), id < 0};
                    }
                }
                if (device_clock) {
                    note_time_base(r.start);
                    note_time_base(r.end);
                }
                lane.push_back(r);
            });
            ++lane_idx;
        }
    }

    void read_uploads() {
        out_.uploads.clear();
        if (!enter_array_or_null("host_device_uploads")) return;
        for_each_item([] { return std::string("host_device_uploads"); }, [&](value& v_upload, std::size_t i) {
            auto where = [&] { return fmt::format("host_device_uploads[{}]", i); };
            simdjson::ondemand::object obj;
            if (v_upload.get_object().get(obj) != simdjson::SUCCESS) fail_at(where(), "expected an object");
            host_upload u;
            for (auto field : obj) {
                std::string_view k;
                if (field.unescaped_key().get(k) != simdjson::SUCCESS) fail_at(where(), "invalid key");
                value v;
                if (field.value().get(v) != simdjson::SUCCESS) fail_at(where(), "invalid JSON");
                auto at = [&] { return fmt::format("{}.{}", where(), k); };
                if (k == "phase") {
                    u.phase = str_value(v, at);
                } else if (k == "start_host_ns") {
                    u.start_ns = timestamp(v, at);
                } else if (k == "end_host_ns") {
                    u.end_ns = timestamp(v, at);
                } else if (k == "detail") {
                    u.detail_json = raw_text(v, at);
                }
            }
            out_.uploads.push_back(std::move(u));
        });
    }

    template <class Where>
    std::string raw_text(value& v, const Where& where) {
        // Objects and arrays know their extent; scalars are one token.
        std::string_view raw;
        simdjson::ondemand::json_type t{};
        if (v.type().get(t) != simdjson::SUCCESS) fail_at(where(), "invalid JSON");
        simdjson::error_code err = simdjson::SUCCESS;
        if (t == simdjson::ondemand::json_type::object) {
            simdjson::ondemand::object o;
            err = v.get_object().get(o);
            if (!err) err = o.raw_json().get(raw);
        } else if (t == simdjson::ondemand::json_type::array) {
            simdjson::ondemand::array a;
            err = v.get_array().get(a);
            if (!err) err = a.raw_json().get(raw);
        } else {
            raw = v.raw_json_token();
        }
        if (err != simdjson::SUCCESS) fail_at(where(), "invalid JSON");
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t')) {
            raw.remove_suffix(1);
        }
        return std::string(raw);
    }

    // ---- metadata -----------------------------------------------------------
    void read_metadata() {
        if (js_.peek() == 'n') {  // "metadata": null reads as {}
            js_.skip();
            return;
        }
        auto& doc = parse_next("metadata");
        simdjson::ondemand::object obj;
        if (doc.get_object().get(obj) != simdjson::SUCCESS) fail_at("metadata", "expected an object");
        records_metadata& m = out_.meta;
        for (auto field : obj) {
            std::string_view key;
            if (field.unescaped_key().get(key) != simdjson::SUCCESS) fail_at("metadata", "invalid key");
            value v;
            if (field.value().get(v) != simdjson::SUCCESS) fail_at("metadata", "invalid JSON");
            auto at = [&] { return fmt::format("metadata.{}", key); };
            if (is_null(v)) continue;  // null behaves like an absent key
            if (key == "clock_freq_hz") {
                m.clock_freq_hz = integer(v, at);
                if (m.clock_freq_hz > INT64_MAX) fail_at(at(), "expected a frequency in Hz below 2^63");
            } else if (key == "core_types") {
                m.core_types.clear();
                simdjson::ondemand::array arr;
                if (v.get_array().get(arr) != simdjson::SUCCESS) fail_at(at(), "expected an array of strings");
                for (auto el : arr) {
                    value e;
                    if (el.get(e) != simdjson::SUCCESS) fail_at(at(), "invalid JSON");
                    const std::size_t idx = m.core_types.size();
                    m.core_types.push_back(str_value(e, [&] { return fmt::format("metadata.core_types[{}]", idx); }));
                }
            } else if (key == "core_to_thread") {
                m.core_to_thread.clear();
                simdjson::ondemand::array arr;
                if (v.get_array().get(arr) != simdjson::SUCCESS) fail_at(at(), "expected an array of integers");
                for (auto el : arr) {
                    value e;
                    if (el.get(e) != simdjson::SUCCESS) fail_at(at(), "invalid JSON");
                    const std::size_t idx = m.core_to_thread.size();
                    auto w = [&] { return fmt::format("metadata.core_to_thread[{}]", idx); };
                    const int128 t = integer(e, w);
                    // The runtime stores thread indices as int8; a huge value would
                    // make the converter emit one lane per index up to it.
                    if (t > max_thread_index) {
                        fail_at(w(), fmt::format("scheduler thread index {} is out of range (max {})",
                                                 static_cast<std::int64_t>(t > INT64_MAX ? INT64_MAX : t),
                                                 max_thread_index));
                    }
                    m.core_to_thread.push_back(t < 0 ? -1 : static_cast<std::int64_t>(t));
                }
            } else if (key == "orchestrator_source") {
                m.orchestrator_source = str_value(v, at);
            } else if (key == "timeline_relation") {
                m.timeline_relation = str_value(v, at);
            } else if (key == "host_orchestration_origin_ns") {
                m.host_orchestration_origin_ns = integer(v, at);
            } else if (key == "host_timestamp_quantization_ns") {
                m.host_timestamp_quantization_ns = integer(v, at);
            } else if (key == "host_capture") {
                read_host_capture(v);
            } else if (key == "clock_anchors") {
                read_clock_anchors(v);
            }
        }
    }

    void read_host_capture(value& v) {
        simdjson::ondemand::object obj;
        if (v.get_object().get(obj) != simdjson::SUCCESS) return;  // only an object counts
        records_metadata& m = out_.meta;
        auto& members = m.host_capture.emplace();
        for (auto field : obj) {
            std::string_view key;
            if (field.unescaped_key().get(key) != simdjson::SUCCESS) fail_at("metadata.host_capture", "invalid key");
            value f;
            if (field.value().get(f) != simdjson::SUCCESS) fail_at("metadata.host_capture", "invalid JSON");
            auto at = [&] { return fmt::format("metadata.host_capture.{}", key); };
            std::string k(key);
            if (key == "status") {
                m.host_capture_status = is_null(f) ? "" : str_value(f, at);
                members.emplace_back(k, m.host_capture_status.empty() ? "null" : quote(m.host_capture_status));
                continue;
            }
            if (key == "dropped_records" || key == "recorded_records" || key == "expected_records") {
                std::optional<int128> n;
                if (!is_null(f)) n = integer(f, at);
                if (key == "dropped_records") m.host_capture_dropped = n;
                if (key == "recorded_records") m.host_capture_recorded = n;
                if (key == "expected_records") m.host_capture_expected = n;
                members.emplace_back(k, n ? to_decimal(*n) : std::string("null"));
                continue;
            }
            members.emplace_back(k, raw_text(f, at));
        }
    }

    // Written back into the trace's metadata, which is compared as JSON.
    static std::string quote(std::string_view s) { return io::json_string(s, io::json_string_style::utf8); }

    void read_clock_anchors(value& v) {
        simdjson::ondemand::object obj;
        if (v.get_object().get(obj) != simdjson::SUCCESS) return;  // -> "missing_clock_anchors"
        clock_anchors& a = out_.meta.anchors;
        a.present = true;
        for (auto field : obj) {
            std::string_view key;
            if (field.unescaped_key().get(key) != simdjson::SUCCESS) fail_at("metadata.clock_anchors", "invalid key");
            value f;
            if (field.value().get(f) != simdjson::SUCCESS) fail_at("metadata.clock_anchors", "invalid JSON");
            if (key == "device_timestamp_unit") {
                std::string s;
                if (read_string(f, s, why_)) a.device_timestamp_unit = s;
            } else if (key == "raw_device_timestamp_unit") {
                std::string s;
                a.raw_unit_is_string = read_string(f, s, why_);
                a.raw_device_timestamp_unit = s;
            } else if (key == "samples") {
                simdjson::ondemand::array arr;
                if (f.get_array().get(arr) != simdjson::SUCCESS) continue;
                a.samples_is_list = true;
                for (auto el : arr) {
                    value s;
                    if (el.get(s) != simdjson::SUCCESS) fail_at("metadata.clock_anchors.samples", "invalid JSON");
                    a.samples.push_back(read_clock_sample(s));
                }
            }
        }
    }

    // A sample that cannot be used is kept but marked, as the reference skips
    // it without failing the conversion.
    clock_sample read_clock_sample(value& v) {
        clock_sample s;
        simdjson::ondemand::object obj;
        if (v.get_object().get(obj) != simdjson::SUCCESS) return s;
        bool error_ok = true;
        int found = 0;
        for (auto field : obj) {
            std::string_view key;
            if (field.unescaped_key().get(key) != simdjson::SUCCESS) return s;
            value f;
            if (field.value().get(f) != simdjson::SUCCESS) return s;
            int128 x = 0;
            if (key == "position") {
                std::string p;
                if (read_string(f, p, why_)) s.position = p;
            } else if (key == "sample_idx") {
                if (read_integer(f, x, why_) && x >= INT64_MIN && x <= INT64_MAX) {
                    s.sample_idx = static_cast<std::int64_t>(x);
                    ++found;
                }
            } else if (key == "host_before_ns") {
                if (read_integer(f, x, why_)) s.host_before_ns = x, ++found;
            } else if (key == "device_cycles") {
                if (read_integer(f, x, why_)) s.device_cycles = x, ++found;
            } else if (key == "host_after_ns") {
                if (read_integer(f, x, why_)) s.host_after_ns = x, ++found;
            } else if (key == "error") {
                // Usable only when error is null, 0 or "".
                simdjson::ondemand::json_type t{};
                if (f.type().get(t) != simdjson::SUCCESS) return s;
                if (t == simdjson::ondemand::json_type::null) continue;
                std::string e;
                if (t == simdjson::ondemand::json_type::string && read_string(f, e, why_) && e.empty()) continue;
                if (t == simdjson::ondemand::json_type::number && read_integer(f, x, why_) && x == 0) continue;
                error_ok = false;
            }
        }
        s.usable = error_ok && found == 4;
        return s;
    }

    static constexpr std::int64_t max_thread_index = 1023;
    // Elements are parsed this many bytes at a time: large enough that the
    // per-document cost of simdjson vanishes, small enough to stay in cache.
    static constexpr std::size_t default_batch_bytes = std::size_t{256} << 10;

    json_stream js_;
    bool lenient_ = false;
    std::size_t batch_bytes_;
    simdjson::ondemand::parser parser_;
    simdjson::ondemand::document doc_;
    records_file out_;
    std::string why_;
    std::optional<std::uint64_t> batch_end_;  // set while for_each_item parses a batch
    std::string_view batch_;                  // that batch
};

inline records_file read_records_file(const std::string& path, bool lenient = false) {
    return records_reader(path).lenient(lenient).read();
}

}  // namespace dfx::convert::swimlane
