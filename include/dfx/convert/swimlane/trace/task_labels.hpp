// task_labels: task names and hints as the swimlane trace writes them, straight
// into the output buffer. A label is "<stem>(<disp>)" (labels.hpp); the stem
// depends only on (func id, SPMD), so each is escaped once, before the
// sections run, and only read while they format events on two threads.
//
//   label_stems stems;
//   stems.add(func_id, spmd, names);            // for every (func id, SPMD) used
//   put_label(o, stems, func_id, task_id, spmd);   // "QK_spmd(r1t7)"
//   put_task_hint(o, t);                        // "event-hint": "Task:t7, FuncId:0, CoreId:3"
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "dfx/io/json_string.hpp"
#include "dfx/convert/common/json_buffer.hpp"
#include "dfx/convert/swimlane/labels.hpp"
#include "dfx/convert/swimlane/name_map.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"

namespace dfx::convert::swimlane::trace {

// "t<local>" or "r<ring>t<local>" (format_task_display) without a string.
inline void put_display(json_buffer& o, std::uint64_t id) {
    const std::uint64_t ring = (id >> 32) & 0xFF;
    if (ring != 0) {
        o.push_back('r');
        o.append_int(ring);
    }
    o.push_back('t');
    o.append_int(id & 0xFFFFFFFFu);
}

// The label text before "(<disp>)", JSON-escaped, per (func id, SPMD).
class label_stems {
    struct stem {
        std::int64_t func_id;
        bool spmd;
        std::string text;
        std::string raw;  // unescaped, for the protobuf trace
    };
    using slot_t = std::vector<stem>::const_iterator;

public:
    void add(std::int64_t func_id, bool spmd, const name_map& names) {
        const slot_t it = slot(func_id, spmd);
        if (it != stems_.end() && it->func_id == func_id && it->spmd == spmd) return;
        // task_label with an empty display ends in "()": the stem is the rest.
        std::string full = task_label(func_id, names, "", spmd);
        full.resize(full.size() - 2);
        std::string quoted;
        io::append_json_string(quoted, full, io::json_string_style::utf8);
        stems_.insert(it, stem{func_id, spmd, quoted.substr(1, quoted.size() - 2), full});
    }
    // The stem of a pair add() has seen.
    [[nodiscard]] const std::string& text(std::int64_t func_id, bool spmd) const { return slot(func_id, spmd)->text; }
    [[nodiscard]] const std::string& raw(std::int64_t func_id, bool spmd) const { return slot(func_id, spmd)->raw; }

private:
    slot_t slot(std::int64_t func_id, bool spmd) const {
        return std::lower_bound(stems_.begin(), stems_.end(), std::make_pair(func_id, spmd),
                                [](const stem& a, const std::pair<std::int64_t, bool>& k) {
                                    return a.func_id != k.first ? a.func_id < k.first : a.spmd < k.second;
                                });
    }
    std::vector<stem> stems_;  // sorted by (func_id, spmd)
};

inline void put_label(json_buffer& o, const label_stems& stems, std::int64_t func_id, std::uint64_t id, bool spmd) {
    o.push_back('"');
    o.append(stems.text(func_id, spmd));
    o.push_back('(');
    put_display(o, id);
    o.append(")\"");
}

// The label as text (the protobuf trace's slice name).
inline std::string label_text(const label_stems& stems, std::int64_t func_id, std::uint64_t id, bool spmd) {
    std::string s = stems.raw(func_id, spmd);
    s.push_back('(');
    const std::uint64_t ring = (id >> 32) & 0xFF;
    if (ring != 0) {
        s.push_back('r');
        s += std::to_string(ring);
    }
    s.push_back('t');
    s += std::to_string(id & 0xFFFFFFFFu);
    s.push_back(')');
    return s;
}

inline void put_task_hint(json_buffer& o, const task& t) {
    o.append(R"("event-hint": "Task:)");
    put_display(o, t.task_id);
    o.append(", FuncId:");
    o.append_int(t.func_id);
    o.append(", CoreId:");
    o.append_int(t.core_id);
    o.push_back('"');
}

}  // namespace dfx::convert::swimlane::trace
