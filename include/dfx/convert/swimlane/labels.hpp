// labels: how tasks are named in traces and tables (spec chip-swimlane.md §4.3).
//
//   task id  -> "t<local>" (ring 0) or "r<ring>t<local>"
//   func id  -> "<name>" from the name map, else "func_<n>_<letters>"
//               (letters = bijective base 26 of n+1: 0_a, 25_z, 26_aa, 27_ab)
//   label    -> "task(<disp>)" when the func id is unresolved (< 0),
//               "<name>(<disp>)" / "func_<n>_<letters>(<disp>)" otherwise;
//               SPMD tasks get "_spmd" before "(" unless the name already
//               says spmd (case-insensitive).
//   off a critical path -> "·(t<local>)" / "·(r<ring>t<local>)"
//               (critical-path's CPM traces rename the Worker View bars of
//               the tasks off the path; anonymous_task_label)
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "dfx/convert/swimlane/name_map.hpp"

namespace dfx::convert::swimlane {

inline std::string format_task_display(std::uint64_t id) {
    const std::uint64_t ring = (id >> 32) & 0xFF;
    const std::uint64_t local = id & 0xFFFFFFFFu;
    return ring == 0 ? fmt::format("t{}", local) : fmt::format("r{}t{}", ring, local);
}

// "func_<n>_<letters>" without the "func_" prefix: "<n>_<letters>". Negative
// ids have no letters ("-1_"), as in the reference.
inline std::string func_id_letters(std::int64_t func_id) {
    std::string letters;
    long long m = static_cast<long long>(func_id) + 1;
    while (m > 0) {
        const long long q = (m - 1) / 26;
        const long long rem = (m - 1) % 26;
        letters.push_back(static_cast<char>('a' + rem));
        m = q;
    }
    std::reverse(letters.begin(), letters.end());
    return fmt::format("{}_{}", func_id, letters);
}

// The function column / label stem for a func id.
inline std::string func_name(std::int64_t func_id, const name_map& names) {
    if (const std::string* n = names.find(func_id)) return *n;
    return "func_" + func_id_letters(func_id);
}

inline bool contains_spmd(std::string_view s) {
    for (std::size_t i = 0; i + 4 <= s.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(s[i])) == 's' &&
            std::tolower(static_cast<unsigned char>(s[i + 1])) == 'p' &&
            std::tolower(static_cast<unsigned char>(s[i + 2])) == 'm' &&
            std::tolower(static_cast<unsigned char>(s[i + 3])) == 'd') {
            return true;
        }
    }
    return false;
}

inline std::string task_label(std::int64_t func_id, const name_map& names, std::string_view disp, bool spmd) {
    std::string label = func_id < 0 ? fmt::format("task({})", disp) : fmt::format("{}({})", func_name(func_id, names), disp);
    if (spmd) {
        const auto paren = label.find('(');
        if (paren != std::string::npos && !contains_spmd(std::string_view(label).substr(0, paren))) {
            label.insert(paren, "_spmd");
        }
    }
    return label;
}

// The name of a Worker View bar off a critical path in a CPM trace: ·(tY),
// or ·(rXtY) on ring X >= 1 (the whole high word, as the reference prints it).
inline std::string anonymous_task_label(std::uint64_t id) {
    const std::uint64_t ring = id >> 32, local = id & 0xFFFFFFFFu;
    return ring ? fmt::format("\u00B7(r{}t{})", ring, local) : fmt::format("\u00B7(t{})", local);
}

inline std::string upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace dfx::convert::swimlane
