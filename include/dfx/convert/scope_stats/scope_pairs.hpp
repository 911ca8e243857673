// Pairs each scope's begin with its end and derives the per-scope metrics
// (../shared/spec/scope-stats-and-framework.md §1.7, §2):
//   high water    end.X_end - begin.X_start  (backlog at entry + everything allocated inside; an upper bound)
//   live at exit  end.X_end - end.X_start    (real occupancy, in [0, capacity])
//   alloc         end.X_end - begin.X_end    (the scope's own throughput)
//   tensormap     end.tensormap              (global live entries)
// Pairing as the reference tool: per ring, per site, last-in first-out; pairs
// in end-record order, which is the x axis ("scope index": there are no times).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "dfx/convert/scope_stats/scope_stats_reader.hpp"

namespace dfx::convert {

struct scope_pair {
    std::size_t end_position = 0;  // index of the end record in the file
    int ring = 0;
    std::uint32_t site = 0;        // into scope_stats_file::sites
    std::array<double, ring_resources> high_water{};
    std::array<double, ring_resources> live{};
    std::array<double, ring_resources> alloc{};
    std::array<bool, ring_resources> present{};
    double tensormap = 0;
    bool has_tensormap = false;
};

struct scope_pairing {
    std::array<std::vector<scope_pair>, scope_rings> by_ring;  // each in end-record order
    std::vector<const scope_pair*> tensormap;                 // every ring, in end-record order
    std::size_t unmatched_ends = 0;
    std::size_t unpaired_begins = 0;
    std::vector<std::size_t> end_sites;  // paired scopes per site id

    std::size_t pair_count() const {
        std::size_t n = 0;
        for (const auto& ring : by_ring) n += ring.size();
        return n;
    }
};

// The records are not needed afterwards: a caller short of memory may free
// them (cmd_scope_stats.cpp does).
inline scope_pairing pair_scopes(const scope_stats_file& file) {
    const std::vector<scope_boundary>& records = file.records;
    scope_pairing out;
    out.end_sites.assign(file.sites.size(), 0);
    // The open begins per ring and site, last-in first-out.
    std::array<std::vector<std::vector<const scope_boundary*>>, scope_rings> open;
    for (auto& ring : open) ring.resize(file.sites.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        const scope_boundary& r = records[i];
        auto& stack = open[r.ring][r.site];
        if (r.begin) {
            stack.push_back(&r);
            continue;
        }
        if (stack.empty()) {
            ++out.unmatched_ends;
            continue;
        }
        const scope_boundary& b = *stack.back();
        stack.pop_back();
        scope_pair p;
        p.end_position = i;
        p.ring = r.ring;
        p.site = r.site;
        for (std::size_t k = 0; k < ring_resources; ++k) {
            p.present[k] = r.present[k];
            p.high_water[k] = r.end[k] - b.start[k];
            p.live[k] = r.end[k] - r.start[k];
            p.alloc[k] = r.end[k] - b.end[k];
        }
        p.tensormap = r.tensormap;
        p.has_tensormap = r.has_tensormap;
        ++out.end_sites[r.site];
        out.by_ring[static_cast<std::size_t>(r.ring)].push_back(std::move(p));
    }
    for (const auto& ring : open)
        for (const auto& stack : ring) out.unpaired_begins += stack.size();
    for (const auto& ring : out.by_ring)
        for (const auto& p : ring) out.tensormap.push_back(&p);
    std::sort(out.tensormap.begin(), out.tensormap.end(),
              [](const scope_pair* a, const scope_pair* b) { return a->end_position < b->end_position; });
    return out;
}

}  // namespace dfx::convert
