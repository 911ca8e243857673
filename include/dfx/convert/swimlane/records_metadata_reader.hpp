// records_metadata_reader: the records file's `metadata` object into
// records_metadata (chip-swimlane.md §2): the clock frequency, core types and
// threads, the orchestration source, the host capture's status and the clock
// anchors. What the converter checks is type-checked (records_values.hpp);
// the optional parts the reference skips when unusable (a clock sample with
// a bad field) are kept but marked instead of failing.
//
//   records_metadata_reader(vals, file.meta).read(doc);   // doc: the member's value
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "dfx/convert/common/json_value.hpp"
#include "dfx/convert/swimlane/records.hpp"
#include "dfx/convert/swimlane/records_values.hpp"
#include "dfx/io/json_string.hpp"

namespace dfx::convert::swimlane {

class records_metadata_reader {
public:
    // The runtime stores scheduler thread indices as int8; a huge value would
    // make the converter emit one lane per index up to it.
    static constexpr std::int64_t max_thread_index = 1023;

    records_metadata_reader(records_values& vals, records_metadata& m) : vals_(vals), m_(m) {}

    // `doc` is the member's value; null reads as {} (the caller skips it).
    void read(simdjson::ondemand::document& doc) {
        simdjson::ondemand::object obj;
        if (doc.get_object().get(obj) != simdjson::SUCCESS) vals_.fail_at("metadata", "expected an object");
        records_metadata& m = m_;
        for (auto field : obj) {
            std::string_view key;
            if (field.unescaped_key().get(key) != simdjson::SUCCESS) vals_.fail_at("metadata", "invalid key");
            value v;
            if (field.value().get(v) != simdjson::SUCCESS) vals_.fail_at("metadata", "invalid JSON");
            auto at = [&] { return fmt::format("metadata.{}", key); };
            if (is_null(v)) continue;  // null behaves like an absent key
            if (key == "clock_freq_hz") {
                m.clock_freq_hz = vals_.integer(v, at);
                if (m.clock_freq_hz > INT64_MAX) vals_.fail_at(at(), "expected a frequency in Hz below 2^63");
            } else if (key == "core_types") {
                m.core_types.clear();
                simdjson::ondemand::array arr;
                if (v.get_array().get(arr) != simdjson::SUCCESS) vals_.fail_at(at(), "expected an array of strings");
                for (auto el : arr) {
                    value e;
                    if (el.get(e) != simdjson::SUCCESS) vals_.fail_at(at(), "invalid JSON");
                    const std::size_t idx = m.core_types.size();
                    m.core_types.push_back(vals_.string(e, [&] { return fmt::format("metadata.core_types[{}]", idx); }));
                }
            } else if (key == "core_to_thread") {
                m.core_to_thread.clear();
                simdjson::ondemand::array arr;
                if (v.get_array().get(arr) != simdjson::SUCCESS) vals_.fail_at(at(), "expected an array of integers");
                for (auto el : arr) {
                    value e;
                    if (el.get(e) != simdjson::SUCCESS) vals_.fail_at(at(), "invalid JSON");
                    const std::size_t idx = m.core_to_thread.size();
                    auto w = [&] { return fmt::format("metadata.core_to_thread[{}]", idx); };
                    const int128 t = vals_.integer(e, w);
                    if (t > max_thread_index) {
                        vals_.fail_at(w(), fmt::format("scheduler thread index {} is out of range (max {})",
                                                       static_cast<std::int64_t>(t > INT64_MAX ? INT64_MAX : t),
                                                       max_thread_index));
                    }
                    m.core_to_thread.push_back(t < 0 ? -1 : static_cast<std::int64_t>(t));
                }
            } else if (key == "orchestrator_source") {
                m.orchestrator_source = vals_.string(v, at);
            } else if (key == "timeline_relation") {
                m.timeline_relation = vals_.string(v, at);
            } else if (key == "host_orchestration_origin_ns") {
                m.host_orchestration_origin_ns = vals_.integer(v, at);
            } else if (key == "host_timestamp_quantization_ns") {
                m.host_timestamp_quantization_ns = vals_.integer(v, at);
            } else if (key == "host_capture") {
                read_host_capture(v);
            } else if (key == "clock_anchors") {
                read_clock_anchors(v);
            }
        }
    }

private:
    using value = simdjson::ondemand::value;

    void read_host_capture(value& v) {
        simdjson::ondemand::object obj;
        if (v.get_object().get(obj) != simdjson::SUCCESS) return;  // only an object counts
        records_metadata& m = m_;
        auto& members = m.host_capture.emplace();
        for (auto field : obj) {
            std::string_view key;
            if (field.unescaped_key().get(key) != simdjson::SUCCESS) vals_.fail_at("metadata.host_capture", "invalid key");
            value f;
            if (field.value().get(f) != simdjson::SUCCESS) vals_.fail_at("metadata.host_capture", "invalid JSON");
            auto at = [&] { return fmt::format("metadata.host_capture.{}", key); };
            std::string k(key);
            if (key == "status") {
                m.host_capture_status = is_null(f) ? "" : vals_.string(f, at);
                members.emplace_back(k, m.host_capture_status.empty() ? "null" : quote(m.host_capture_status));
                continue;
            }
            if (key == "dropped_records" || key == "recorded_records" || key == "expected_records") {
                std::optional<int128> n;
                if (!is_null(f)) n = vals_.integer(f, at);
                if (key == "dropped_records") m.host_capture_dropped = n;
                if (key == "recorded_records") m.host_capture_recorded = n;
                if (key == "expected_records") m.host_capture_expected = n;
                members.emplace_back(k, n ? to_decimal(*n) : std::string("null"));
                continue;
            }
            members.emplace_back(k, vals_.raw_text(f, at));
        }
    }

    // Written back into the trace's metadata, which is compared as JSON.
    static std::string quote(std::string_view s) { return io::json_string(s, io::json_string_style::utf8); }

    void read_clock_anchors(value& v) {
        simdjson::ondemand::object obj;
        if (v.get_object().get(obj) != simdjson::SUCCESS) return;  // -> "missing_clock_anchors"
        clock_anchors& a = m_.anchors;
        a.present = true;
        for (auto field : obj) {
            std::string_view key;
            if (field.unescaped_key().get(key) != simdjson::SUCCESS) vals_.fail_at("metadata.clock_anchors", "invalid key");
            value f;
            if (field.value().get(f) != simdjson::SUCCESS) vals_.fail_at("metadata.clock_anchors", "invalid JSON");
            if (key == "device_timestamp_unit") {
                std::string s;
                if (vals_.try_string(f, s)) a.device_timestamp_unit = s;
            } else if (key == "raw_device_timestamp_unit") {
                std::string s;
                a.raw_unit_is_string = vals_.try_string(f, s);
                a.raw_device_timestamp_unit = s;
            } else if (key == "samples") {
                simdjson::ondemand::array arr;
                if (f.get_array().get(arr) != simdjson::SUCCESS) continue;
                a.samples_is_list = true;
                for (auto el : arr) {
                    value s;
                    if (el.get(s) != simdjson::SUCCESS) vals_.fail_at("metadata.clock_anchors.samples", "invalid JSON");
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
                if (vals_.try_string(f, p)) s.position = p;
            } else if (key == "sample_idx") {
                if (vals_.try_integer(f, x) && x >= INT64_MIN && x <= INT64_MAX) {
                    s.sample_idx = static_cast<std::int64_t>(x);
                    ++found;
                }
            } else if (key == "host_before_ns") {
                if (vals_.try_integer(f, x)) s.host_before_ns = x, ++found;
            } else if (key == "device_cycles") {
                if (vals_.try_integer(f, x)) s.device_cycles = x, ++found;
            } else if (key == "host_after_ns") {
                if (vals_.try_integer(f, x)) s.host_after_ns = x, ++found;
            } else if (key == "error") {
                // Usable only when error is null, 0 or "".
                simdjson::ondemand::json_type t{};
                if (f.type().get(t) != simdjson::SUCCESS) return s;
                if (t == simdjson::ondemand::json_type::null) continue;
                std::string e;
                if (t == simdjson::ondemand::json_type::string && vals_.try_string(f, e) && e.empty()) continue;
                if (t == simdjson::ondemand::json_type::number && vals_.try_integer(f, x) && x == 0) continue;
                error_ok = false;
            }
        }
        s.usable = error_ok && found == 4;
        return s;
    }

    records_values& vals_;
    records_metadata& m_;
};

}  // namespace dfx::convert::swimlane
