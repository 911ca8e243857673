// pmu_summary: `dfx pmu`, a per-kernel and per-core summary of pmu.csv. The
// reference ships no PMU viewer; this is this project's design.
//
// Output (text, one table per grouping):
//
//   pmu.csv: <rows> rows, <tasks> tasks, <cores> cores, event_type 2 (PIPE_UTILIZATION)
//   cycle counters (*_cycles, *busy*) as % of pmu_total_cycles; other counters as mean per row
//
//   PER KERNEL (by total cycles)
//   kernel  func_id  core  rows  tasks  total_cycles  mean_cycles  <counter>% ... <counter>/row ...
//   PER CORE
//   core  type  rows  tasks  total_cycles  mean_cycles  <counter>% ...
//
// A kernel is a (func_id, core_type) pair: a MIX kernel's AIC and AIV parts
// are separate rows. Rows are aggregated while streaming (memory grows with
// kernels, cores and distinct tasks, not with rows). A cycle counter is shown
// as the share of the summed total cycles, which weights long tasks
// correctly; event counters (requests, hits, misses, instructions) as the
// mean per row.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/deps/name_map.hpp"
#include "dfx/convert/pmu/pmu_csv.hpp"
#include "dfx/schema/core_types.hpp"

namespace dfx::convert::pmu {

struct pmu_group {
    std::uint64_t rows = 0;
    std::uint64_t total_cycles = 0;
    std::vector<std::uint64_t> counters;
    std::unordered_set<std::uint64_t> tasks;
};

struct pmu_summary {
    std::vector<std::string> counter_names;
    std::set<std::uint32_t> event_types;
    std::uint64_t rows = 0;
    std::unordered_set<std::uint64_t> tasks;
    std::map<std::pair<std::uint32_t, std::uint32_t>, pmu_group> by_kernel;  // (func_id, core_type)
    std::map<std::uint32_t, std::pair<std::uint32_t, pmu_group>> by_core;    // core -> (core_type, group)
    bool mixed_core_type = false;  // a core reported both types (would be a writer bug)

    void add(const pmu_row& r) {
        ++rows;
        tasks.insert(r.task_id);
        event_types.insert(r.event_type);
        accumulate(by_kernel[{r.func_id, r.core_type}], r);
        auto [it, inserted] = by_core.try_emplace(r.core_id, r.core_type, pmu_group{});
        if (!inserted && it->second.first != r.core_type) mixed_core_type = true;
        accumulate(it->second.second, r);
    }

private:
    void accumulate(pmu_group& g, const pmu_row& r) {
        if (g.counters.empty()) g.counters.assign(r.counters.size(), 0);
        ++g.rows;
        g.total_cycles += r.total_cycles;
        for (std::size_t i = 0; i < r.counters.size(); ++i) g.counters[i] += r.counters[i];
        g.tasks.insert(r.task_id);
    }
};

inline pmu_summary summarize_pmu_csv(const std::string& path) {
    pmu_summary s;
    read_pmu_csv(
        path, [&](const std::vector<std::string>& names) { s.counter_names = names; },
        [&](const pmu_row& r) { s.add(r); });
    return s;
}

// Cycle-valued counters are shown as a share of total cycles.
inline bool is_cycle_counter(const std::string& name) {
    return name.find("_cycles") != std::string::npos || name.find("busy") != std::string::npos;
}

namespace detail {

// One right-aligned table: the first column left-aligned.
inline std::string render_table(const std::vector<std::vector<std::string>>& rows) {
    if (rows.empty()) return {};
    std::vector<std::size_t> width(rows.front().size(), 0);
    for (const auto& r : rows)
        for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
    std::string out;
    for (const auto& r : rows) {
        std::string line;
        for (std::size_t i = 0; i < r.size(); ++i) {
            if (i) line += "  ";
            line += i == 0 ? fmt::format("{:<{}}", r[i], width[i]) : fmt::format("{:>{}}", r[i], width[i]);
        }
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    return out;
}

inline std::vector<std::string> counter_headers(const pmu_summary& s) {
    std::vector<std::string> h;
    for (const std::string& c : s.counter_names) h.push_back(is_cycle_counter(c) ? c + "%" : c + "/row");
    return h;
}

inline std::vector<std::string> counter_cells(const pmu_summary& s, const pmu_group& g) {
    std::vector<std::string> cells;
    for (std::size_t i = 0; i < s.counter_names.size(); ++i) {
        const double v = static_cast<double>(g.counters[i]);
        if (is_cycle_counter(s.counter_names[i]))
            cells.push_back(g.total_cycles ? fmt::format("{:.1f}", 100.0 * v / static_cast<double>(g.total_cycles)) : "-");
        else
            cells.push_back(fmt::format("{:.1f}", g.rows ? v / static_cast<double>(g.rows) : 0.0));
    }
    return cells;
}

// The core_type column (0 or 1, checked by the reader) as the records file spells it.
inline std::string core_type_name(std::uint32_t t) {
    return std::string(schema::core_type_name(t == 0 ? schema::core_type::aic : schema::core_type::aiv));
}

}  // namespace detail

inline std::string render_pmu_summary(const pmu_summary& s, std::string_view source, const deps::name_map& names,
                                      bool kernels, bool cores) {
    std::string out;
    std::string types;
    for (std::uint32_t t : s.event_types) types += fmt::format("{}{} ({})", types.empty() ? "" : ", ", t, event_type_name(t));
    out += fmt::format("{}: {} rows, {} tasks, {} cores, event_type {}\n", source, s.rows, s.tasks.size(), s.by_core.size(),
                       types.empty() ? "-" : types);
    out += "cycle counters (*_cycles, *busy*) as % of pmu_total_cycles; other counters as mean per row\n";
    if (s.mixed_core_type) out += "note: some core reported rows of both core types\n";

    if (kernels) {
        std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, const pmu_group*>> ks;
        for (const auto& [k, g] : s.by_kernel) ks.emplace_back(k, &g);
        std::stable_sort(ks.begin(), ks.end(), [](const auto& a, const auto& b) { return a.second->total_cycles > b.second->total_cycles; });
        std::vector<std::vector<std::string>> rows;
        std::vector<std::string> head{"kernel", "func_id", "core", "rows", "tasks", "total_cycles", "mean_cycles"};
        for (auto& h : detail::counter_headers(s)) head.push_back(std::move(h));
        rows.push_back(head);
        for (const auto& [k, g] : ks) {
            std::vector<std::string> r{names.name_or_fallback(k.first), std::to_string(k.first), detail::core_type_name(k.second),
                                       std::to_string(g->rows), std::to_string(g->tasks.size()), std::to_string(g->total_cycles),
                                       fmt::format("{:.1f}", g->rows ? static_cast<double>(g->total_cycles) / static_cast<double>(g->rows) : 0.0)};
            for (auto& c : detail::counter_cells(s, *g)) r.push_back(std::move(c));
            rows.push_back(std::move(r));
        }
        out += "\nPER KERNEL (by total cycles)\n" + detail::render_table(rows);
    }
    if (cores) {
        std::vector<std::vector<std::string>> rows;
        std::vector<std::string> head{"core", "type", "rows", "tasks", "total_cycles", "mean_cycles"};
        for (auto& h : detail::counter_headers(s)) head.push_back(std::move(h));
        rows.push_back(head);
        for (const auto& [core, tg] : s.by_core) {
            const pmu_group& g = tg.second;
            std::vector<std::string> r{std::to_string(core), detail::core_type_name(tg.first), std::to_string(g.rows),
                                       std::to_string(g.tasks.size()), std::to_string(g.total_cycles),
                                       fmt::format("{:.1f}", g.rows ? static_cast<double>(g.total_cycles) / static_cast<double>(g.rows) : 0.0)};
            for (auto& c : detail::counter_cells(s, g)) r.push_back(std::move(c));
            rows.push_back(std::move(r));
        }
        out += "\nPER CORE\n" + detail::render_table(rows);
    }
    return out;
}

}  // namespace dfx::convert::pmu
