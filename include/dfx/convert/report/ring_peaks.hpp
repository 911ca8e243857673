// ring_peaks: are the runtime rings the limit? (the third question of the
// tuning loop, docs/report.md), from scope_stats.jsonl paired into scopes
// (scope_stats/scope_pairs.hpp):
//
//   peak       per ring and resource, the largest high water of any scope
//              (backlog at entry + everything allocated inside: an upper
//              bound on what the scope needed at once) and where it was;
//   live peak  the largest occupancy at a scope's exit (a real level);
//   verdict    full      the live peak reached the capacity: the ring was full;
//              at risk   the high water reached it: it may have been;
//              fits      neither;
//   knob       the run-config override that resizes that resource
//              (ring_task_window, ring_heap, ring_dep_pool) and the value
//              that would have held the high water: the next power of two
//              (task window >= 4, heap >= 1024 bytes), the peak itself for
//              the dep pool (>= 4).
//
//   const ring_report r = measure_rings(read_scope_stats(path));
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dfx/convert/scope_stats/scope_pairs.hpp"
#include "dfx/convert/scope_stats/scope_stats_reader.hpp"

namespace dfx::convert::report {

enum class ring_state { fits, at_risk, full };

inline constexpr const char* ring_knob[ring_resources] = {"ring_task_window", "ring_heap", "ring_dep_pool"};
inline constexpr const char* ring_unit[ring_resources] = {"slots", "bytes", "entries"};

// The smallest value the knob accepts that holds `need` (see the top).
inline std::uint64_t knob_value_for(ring_resource r, double need) {
    const auto n = static_cast<std::uint64_t>(need < 0 ? 0 : need);
    if (r == ring_resource::dep_pool) return std::max<std::uint64_t>(n, 4);
    std::uint64_t v = r == ring_resource::heap ? 1024 : 4;
    while (v < n && v < (std::uint64_t{1} << 62)) v <<= 1;
    return v;
}

struct ring_peak {
    int ring = 0;
    ring_resource resource = ring_resource::task_window;
    double capacity = 0;       // 0: the ring was never registered
    double high_water = 0;     // max over scopes
    std::string high_water_site;
    double live_peak = 0;
    std::size_t scopes = 0;          // paired scopes on this ring carrying the resource
    std::size_t scopes_at_capacity = 0;  // of those, how many reached the capacity (high water)
    std::vector<std::string> saturated_sites;  // sites of those scopes, each once, file order
    ring_state state = ring_state::fits;
    std::uint64_t suggested = 0;     // knob value that holds the high water (when not fits)
    std::vector<double> fill;        // high water per scope, in end-record order (the chart)
};

struct ring_report {
    std::vector<ring_peak> peaks;  // rings 0..3 in order, resources in report order; empty rings left out
    bool fatal = false;            // the run latched a fatal (a ring too small for the workload)
    double tensormap_peak = 0, tensormap_capacity = 0;
    std::size_t scopes = 0;
};

inline ring_report measure_rings(const scope_stats_file& f) {
    ring_report out;
    out.fatal = f.meta.fatal;
    out.tensormap_capacity = f.meta.tensormap_max;
    const scope_pairing pairs = pair_scopes(f);
    out.scopes = pairs.pair_count();
    const std::array<const std::array<double, scope_rings>*, ring_resources> caps = {
        &f.meta.task_window_max, &f.meta.heap_max, &f.meta.dep_pool_max};
    for (int ring = 0; ring < scope_rings; ++ring) {
        const auto& scopes = pairs.by_ring[static_cast<std::size_t>(ring)];
        for (int k = 0; k < ring_resources; ++k) {
            ring_peak p;
            p.ring = ring;
            p.resource = static_cast<ring_resource>(k);
            p.capacity = (*caps[static_cast<std::size_t>(k)])[static_cast<std::size_t>(ring)];
            for (const scope_pair& s : scopes) {
                if (!s.present[static_cast<std::size_t>(k)]) continue;
                const double hw = s.high_water[static_cast<std::size_t>(k)];
                ++p.scopes;
                p.fill.push_back(hw);
                if (p.scopes == 1 || hw > p.high_water) {
                    p.high_water = hw;
                    p.high_water_site = f.sites[s.site];
                }
                p.live_peak = std::max(p.live_peak, s.live[static_cast<std::size_t>(k)]);
                if (p.capacity > 0 && hw >= p.capacity) {
                    ++p.scopes_at_capacity;
                    const std::string& site = f.sites[s.site];
                    if (std::find(p.saturated_sites.begin(), p.saturated_sites.end(), site) == p.saturated_sites.end())
                        p.saturated_sites.push_back(site);
                }
            }
            if (p.scopes == 0) continue;
            if (p.capacity > 0 && p.live_peak >= p.capacity)
                p.state = ring_state::full;
            else if (p.capacity > 0 && p.high_water >= p.capacity)
                p.state = ring_state::at_risk;
            if (p.state != ring_state::fits) {
                // A full ring's high water is capped by what it could hold: ask for more than it had.
                const double need = std::max(p.high_water, p.state == ring_state::full ? p.capacity + 1 : 0.0);
                p.suggested = knob_value_for(p.resource, need);
            }
            out.peaks.push_back(std::move(p));
        }
    }
    for (const scope_pair* s : pairs.tensormap)
        if (s->has_tensormap) out.tensormap_peak = std::max(out.tensormap_peak, s->tensormap);
    return out;
}

}  // namespace dfx::convert::report
