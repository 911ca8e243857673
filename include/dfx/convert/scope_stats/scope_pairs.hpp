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
#include <utility>
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

// Pairs records as they come, in file order (add()), keeping only the begins
// still open: dfx scope-stats pairs while it reads and never holds the
// records. finish() returns the pairing.
class scope_pairer {
public:
    void add(const scope_boundary& r) {
        const std::size_t position = next_position_++;
        auto& by_site = open_[r.ring];
        if (r.site >= by_site.size()) by_site.resize(std::size_t{r.site} + 1);
        auto& stack = by_site[r.site];
        if (r.begin) {
            stack.push_back(r);  // a copy: the record itself may be gone by its end
            return;
        }
        if (stack.empty()) {
            ++out_.unmatched_ends;
            return;
        }
        const scope_boundary b = stack.back();
        stack.pop_back();
        scope_pair p;
        p.end_position = position;
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
        if (r.site >= out_.end_sites.size()) out_.end_sites.resize(std::size_t{r.site} + 1);
        ++out_.end_sites[r.site];
        out_.by_ring[r.ring].push_back(p);
    }

    scope_pairing finish() && {
        for (const auto& by_site : open_)
            for (const auto& stack : by_site) out_.unpaired_begins += stack.size();
        for (const auto& ring : out_.by_ring)
            for (const auto& p : ring) out_.tensormap.push_back(&p);
        std::sort(out_.tensormap.begin(), out_.tensormap.end(),
                  [](const scope_pair* a, const scope_pair* b) { return a->end_position < b->end_position; });
        return std::move(out_);  // the vectors move: tensormap's pointers stay valid
    }

private:
    std::array<std::vector<std::vector<scope_boundary>>, scope_rings> open_;  // per ring, per site id: last-in first-out
    scope_pairing out_;
    std::size_t next_position_ = 0;
};

inline scope_pairing pair_scopes(const scope_stats_file& file) {
    scope_pairer pairer;
    for (const scope_boundary& r : file.records) pairer.add(r);
    return std::move(pairer).finish();
}

}  // namespace dfx::convert
