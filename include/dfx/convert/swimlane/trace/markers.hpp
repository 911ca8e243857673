// markers: the Worker View's AICPU-lane slices that stand in for task ids
// without task rows: dummy_task / predicated_skip markers (from scheduler
// records) and alloc bars (from orchestrator submits). The scheduler and
// orchestrator sections fill the list as they write those slices; the
// dependency flows then anchor arrows on them like on task rows.
//
//   marker_list markers;
//   markers.add_scheduler_marker({id, start, end, tid, event_id}, is_dummy);
//   markers.sort();                                 // after each section
//   anchors_of(index, markers, id, view::worker, out);   // rows, else markers
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "dfx/convert/swimlane/trace/index.hpp"

namespace dfx::convert::swimlane::trace {

// A marker or alloc bar is at least this long, so Perfetto draws it.
inline constexpr double marker_min_dur_us = 0.02;

struct marker_anchor {
    std::uint64_t task_id;
    double start;
    double end;
    std::int64_t tid;
    std::int64_t event_id;
};

class marker_list {
public:
    void add_scheduler_marker(const marker_anchor& m, bool dummy) {
        markers_.push_back(m);
        (dummy ? dummy_ids_ : skip_ids_).push_back(m.task_id);
    }
    void add_alloc_bar(const marker_anchor& m) { alloc_bars_.push_back(m); }
    // Alloc bars anchor arrows like markers do: merge them into the one list.
    void merge_alloc_bars() { markers_.insert(markers_.end(), alloc_bars_.begin(), alloc_bars_.end()); }
    // By task id, stably (record order within an id).
    void sort() {
        std::stable_sort(markers_.begin(), markers_.end(),
                         [](const marker_anchor& a, const marker_anchor& b) { return a.task_id < b.task_id; });
    }
    // For binary searches of dummy / skip ids.
    void sort_marker_ids() {
        std::sort(dummy_ids_.begin(), dummy_ids_.end());
        std::sort(skip_ids_.begin(), skip_ids_.end());
    }
    bool has_dummy(std::uint64_t id) const { return std::binary_search(dummy_ids_.begin(), dummy_ids_.end(), id); }
    bool has_skip(std::uint64_t id) const { return std::binary_search(skip_ids_.begin(), skip_ids_.end(), id); }

    // The (sorted) markers of an id.
    std::pair<std::vector<marker_anchor>::const_iterator, std::vector<marker_anchor>::const_iterator> of(
        std::uint64_t id) const {
        auto lo = std::lower_bound(markers_.begin(), markers_.end(), id,
                                   [](const marker_anchor& m, std::uint64_t x) { return m.task_id < x; });
        auto hi = lo;
        while (hi != markers_.end() && hi->task_id == id) ++hi;
        return {lo, hi};
    }
    bool contains(std::uint64_t id) const {
        auto it = std::lower_bound(markers_.begin(), markers_.end(), id,
                                   [](const marker_anchor& m, std::uint64_t x) { return m.task_id < x; });
        return it != markers_.end() && it->task_id == id;
    }
    std::size_t count(std::uint64_t id) const {
        const auto [lo, hi] = std::equal_range(markers_.begin(), markers_.end(), marker_anchor{id, 0, 0, 0, 0},
                                               [](const marker_anchor& a, const marker_anchor& b) {
                                                   return a.task_id < b.task_id;
                                               });
        return static_cast<std::size_t>(hi - lo);
    }

private:
    std::vector<marker_anchor> markers_, alloc_bars_;
    std::vector<std::uint64_t> dummy_ids_, skip_ids_;
};

// Arrow ends of an id: its rows' anchors, or without rows its markers /
// alloc bars (Worker View only).
inline void anchors_of(const trace_index& index, const marker_list& markers, std::uint64_t id, view v,
                       std::vector<anchor>& out) {
    if (index.group(id)) {
        index.row_anchors_of(id, v, out);
        return;
    }
    out.clear();
    const auto [lo, hi] = markers.of(id);
    for (auto m = lo; m != hi; ++m) out.push_back({none, m->start, m->end, m->tid, m->event_id, 0});
}

inline bool has_rows_or_markers(const trace_index& index, const marker_list& markers, std::uint64_t id) {
    return index.group(id) != nullptr || markers.contains(id);
}

// Worker View arrow ends of an id: its rows, or its markers / alloc bars.
inline std::size_t worker_anchor_count(const trace_index& index, const marker_list& markers, std::uint64_t id) {
    if (const id_group* g = index.group(id)) return g->anchors;
    return markers.count(id);
}

// Worker View endpoint (tid, bind id) of an anchor.
inline std::pair<std::int64_t, std::int64_t> worker_endpoint(const trace_index& index, const anchor& a) {
    if (a.row == none) return {a.tid, a.event_id};
    return {layout::core_tid(a.core), index.worker_event_of(a.row)};
}

}  // namespace dfx::convert::swimlane::trace
