// perf_sidecar: the per-task core type that `deps_viewer` takes from a
// `chip_swimlane_records.json` lying beside `deps.json` (dep-gen.md §3.1).
//
// The reference runs the full swimlane reader (`read_perf_data`) and keeps, per
// task, only identity and core type; times are not used. This reads just what
// decides which tasks that reader produces (chip-swimlane.md §2.9 steps 1, 2
// and 5): the level, the clock frequency, the host-orchestration markers and
// the AICore / AICPU rows joined on (core_id, reg_task_id). Everything else is
// streamed past without being kept.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dfx/convert/common/id_index.hpp"
#include "dfx/convert/common/input_error.hpp"
#include "dfx/convert/common/json_object_stream.hpp"
#include "dfx/convert/common/plain_json.hpp"
#include "dfx/convert/common/py_json.hpp"
#include "dfx/convert/swimlane/records_reader.hpp"

namespace dfx::convert::deps {

// The core type the swimlane reader gives one task: the core type of its
// slices, or "mix" when its slices ran on cores of different types.
struct sidecar_task {
    std::string core_type;
    bool mixed = false;
};

// Task id -> its core type, one entry per task.
using sidecar_tasks = std::vector<std::pair<std::uint64_t, sidecar_task>>;

namespace detail {

using simdjson::ondemand::json_type;

class sidecar_handler final : public json_member_handler {
public:
    explicit sidecar_handler(std::string path) : path_(std::move(path)) {}

    member_use use(std::string_view key) override {
        if (key == "chip_swimlane_level" || key == "metadata" || key == "host_orchestrator_phases")
            return member_use::value;
        if (key == "aicore_tasks" || key == "aicpu_tasks") return member_use::elements;
        return member_use::skip;  // aicpu_orchestrator_phases: only its length matters (array_end)
    }

    void value(std::string_view key, simdjson::padded_string_view json) override {
        if (key == "aicore_tasks" || key == "aicpu_tasks") throw input_error(path_ + ": \"" + std::string(key) + "\" must be an array");
        try {
            // Wrapped in [ ] so a scalar member is an ordinary On-Demand value.
            simdjson::padded_string wrapped("[" + std::string(std::string_view(json)) + "]");
            auto doc = parser_.iterate(wrapped);
            simdjson::ondemand::array arr = doc.get_array();
            simdjson::ondemand::value v = *arr.begin();
            if (key == "chip_swimlane_level") level_ = py_int(v);
            else if (key == "metadata") read_metadata(v);
            else if (key == "host_orchestrator_phases") host_phases_ = py_truthy(v);
        } catch (const simdjson::simdjson_error& e) {
            throw input_error(path_ + ": " + std::string(key) + ": " + e.what());
        }
    }

    // One row of aicore_tasks or aicpu_tasks.
    void element(std::string_view key, std::size_t index, simdjson::padded_string_view json) override {
        const bool aicore = key == "aicore_tasks";
        const std::size_t need = aicore ? 3 : 2;
        std::int64_t cols[3] = {0, 0, 0};
        std::optional<std::uint64_t> token;
        std::size_t n = 0;
        auto read_row = [&](auto&& doc) {
            if (doc.type() != json_type::array) return;
            for (auto el : doc.get_array()) {
                auto v = el.value();
                if (n < need) {
                    if (aicore && n == 1) token = py_int_u64(v);
                    else cols[n] = py_int(v).value_or(INT64_MIN);
                }
                ++n;
            }
        };
        std::int64_t ints[3];
        std::size_t count = 0;
        if (read_int_row(json, ints, need, count)) {  // the common row: it starts with integers
            n = count;
            for (std::size_t k = 0; k < need && k < n; ++k) {
                if (aicore && k == 1) token = static_cast<std::uint64_t>(ints[k]);
                else cols[k] = ints[k];
            }
        } else if (is_plain_json(json)) {
            read_row(plain_value(json));
        } else {
            try {
                read_row(parser_.iterate(json));
            } catch (const simdjson::simdjson_error& e) {
                throw input_error(path_ + ": " + std::string(key) + "[" + std::to_string(index) + "]: " + e.what());
            }
        }
        if (n < need)
            throw input_error(path_ + ": " + std::string(key) + "[" + std::to_string(index) + "]: " +
                              (aicore ? "expected [core_id, task_id, reg_task_id, start, end, receive_to_start]"
                                      : "expected [core_id, reg_task_id, dispatch, finish]"));
        if (aicore) {
            if (!token) return;  // an id the viewer cannot use
            aicore_.push_back({cols[0], cols[2], *token});
        } else {
            aicpu_.emplace_back(cols[0], cols[1]);
        }
    }

    void array_end(std::string_view key, std::size_t count) override {
        if (key == "aicpu_orchestrator_phases") aicpu_orch_phases_ = count > 0;
    }

    // What the handler would have gathered, from the file as records_reader
    // read it (the one reader of the records file, with its checks).
    void take(const swimlane::records_file& rf) {
        if (rf.level && *rf.level >= INT64_MIN && *rf.level <= INT64_MAX) level_ = static_cast<std::int64_t>(*rf.level);
        if (rf.meta.clock_freq_hz >= INT64_MIN && rf.meta.clock_freq_hz <= INT64_MAX)
            clock_freq_ = static_cast<std::int64_t>(rf.meta.clock_freq_hz);
        host_source_ = rf.meta.orchestrator_source == "host";
        host_capture_ = rf.meta.host_capture.has_value();
        host_phases_ = !rf.host_orch.empty();
        aicpu_orch_phases_ = !rf.orch.empty();
        core_types_ = rf.meta.core_types;
        for (const swimlane::aicore_row& r : rf.aicore)
            aicore_.push_back({static_cast<std::int64_t>(r.core), static_cast<std::int64_t>(r.reg), r.token});
        for (const swimlane::aicpu_row& r : rf.aicpu)
            aicpu_.emplace_back(static_cast<std::int64_t>(r.core), static_cast<std::int64_t>(r.reg));
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
        id_index slot_of(aicpu_.empty() ? aicore_.size() : aicpu_.size());
        auto add = [&](std::uint64_t task, std::int64_t core) {
            const std::string& type =
                core >= 0 && static_cast<std::size_t>(core) < core_types_.size() ? core_types_[static_cast<std::size_t>(core)] : aiv;
            const auto [slot, inserted] = slot_of.emplace(task, static_cast<std::uint32_t>(out.size()));
            if (inserted) {
                out.emplace_back(task, sidecar_task{type, false});
                return;
            }
            sidecar_task& known = out[slot].second;
            if (!type.empty() && known.core_type != type) {
                if (known.core_type.empty()) known.core_type = type;
                else known.mixed = true;
            }
        };
        if (!aicpu_.empty()) {
            // Join on (core_id, reg_task_id); a later AICore row for the same
            // key wins, so the rows go into the index last first.
            id_index row_of(aicore_.size());
            for (std::size_t r = aicore_.size(); r-- > 0;)
                row_of.insert(key_of(aicore_[r].core, aicore_[r].reg), static_cast<std::uint32_t>(r));
            for (const auto& [core, reg] : aicpu_) {
                const std::uint32_t r = row_of.find(key_of(core, reg));
                if (r != id_index::npos) add(aicore_[r].token, core);
            }
        } else if (*level_ == 1) {
            for (const auto& r : aicore_) add(r.token, r.core);
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

    void read_metadata(simdjson::ondemand::value& v) {
        if (v.type() != json_type::object) return;
        for (auto member : v.get_object()) {
            const std::string_view key = member.unescaped_key();
            simdjson::ondemand::value m = member.value();
            if (key == "clock_freq_hz") clock_freq_ = py_int(m);
            else if (key == "orchestrator_source") host_source_ = string_or_none(m).value_or("") == "host";
            else if (key == "host_capture") host_capture_ = m.type() == json_type::object;
            else if (key == "core_types" && m.type() == json_type::array) {
                for (auto el : m.get_array()) {
                    simdjson::ondemand::value e = el.value();
                    core_types_.push_back(string_or_none(e).value_or(""));
                }
            }
        }
    }

    std::string path_;
    simdjson::ondemand::parser parser_;
    std::optional<std::int64_t> level_;
    std::optional<std::int64_t> clock_freq_;
    bool host_source_ = false;
    bool host_phases_ = false;
    bool host_capture_ = false;
    bool aicpu_orch_phases_ = false;
    std::vector<std::string> core_types_;
    std::vector<aicore_row> aicore_;
    std::vector<std::pair<std::int64_t, std::int64_t>> aicpu_;
};

}  // namespace detail

// Reads the sidecar on the calling thread (the viewer reads it beside
// deps.json: one core each). Throws input_error when it is unreadable or
// invalid (checked by records_reader, as swimlane checks it); the viewer
// fails, or leniently warns and goes on without it, as the reference does.
inline sidecar_tasks read_perf_sidecar(const std::string& path, bool lenient = false) {
    detail::sidecar_handler r(path);
    if (lenient) {
        json_object_stream(path).run(r);  // the reference's int() reading of what it uses
    } else {
        r.take(swimlane::records_reader(path).read());
    }
    try {
        return r.finish();
    } catch (const input_error& e) {
        throw input_error(path + ": " + e.what());
    }
}

}  // namespace dfx::convert::deps
