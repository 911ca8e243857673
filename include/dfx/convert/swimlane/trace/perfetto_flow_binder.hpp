// perfetto_flow_binder: the Perfetto backend's stored slices (pf_slice_rec)
// and the flow endpoints bound to them as they arrive. A JSON flow endpoint
// binds to a slice by its "id" (bind_id), else to the innermost slice of its
// thread that holds its time; Perfetto carries it as a flow id ON that
// slice's end event. The trace sections write every slice before the
// first flow (trace_writer.hpp), so the binder indexes the slices once, at
// the first flow: it sorts them in place by track and time (no copy: the
// searches run on the slices themselves) and numbers them by event id. Each
// endpoint is bound then and kept in pf_slice_flows, grouped by slice at the end.
//
//   pf_flow_binder binder;
//   binder.index(slices, track_count);            // once every slice is in
//   const std::uint32_t s = binder.bind(slices, track, ts_ns, bind_id);
//   if (s == pf_flow_binder::none) ...            // no slice: an instant
//   binder.release();                             // once no more flows come
//
//   pf_slice_flows flows;
//   flows.add(s, tagged_id);                      // as each endpoint is bound
//   flows.group(slices.size());                   // once, when all are in
//   const auto [first, last] = flows.of(s);       // s's endpoints, in arrival order
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

namespace dfx::convert::swimlane::trace {

// A slice as the backend keeps it between its two passes (times in ns): a
// skeleton of 32 bytes, ten of them per task, so the narrow fields are
// narrow (perfetto_trace::slice() checks that they fit).
struct pf_slice_rec {
    static constexpr std::uint32_t no_id = ~0u;
    std::int64_t begin = 0, end = 0;
    std::uint32_t track = 0;
    std::uint32_t event_id = no_id;  // the JSON "id" flows bind to
    std::uint32_t seq = 0;  // the order written: breaks ties as the JSON view's order does
};
static_assert(sizeof(pf_slice_rec) == 32);

class pf_flow_binder {
public:
    static constexpr std::uint32_t none = ~0u;

    [[nodiscard]] bool indexed() const noexcept { return indexed_; }

    // Sorts `slices` (on `tracks` tracks) by (track, begin, end descending,
    // order written): outer slices before the ones they hold; of equal ones,
    // the later written is inner. Then indexes them by event id and track.
    // Called once, when every slice is in.
    void index(std::vector<pf_slice_rec>& slices, std::size_t tracks) {
        indexed_ = true;
        sort_by_track(slices, tracks);
        // Event ids are dense (index.hpp numbers them in runs from 0): a table.
        for (const pf_slice_rec& r : slices) {
            if (r.event_id != pf_slice_rec::no_id) max_id_ = std::max<std::int64_t>(max_id_, r.event_id);
        }
        // Each entry holds the slice's track too: binding by id reads one
        // table entry, not the entry and then the slice.
        by_id_.assign(static_cast<std::size_t>(max_id_ + 1), id_entry{});
        for (std::uint32_t i = 0; i < slices.size(); ++i) {
            if (slices[i].event_id != pf_slice_rec::no_id) by_id_[slices[i].event_id] = {i, slices[i].track};
        }
        // Where each track's run starts.
        track_start_.assign(tracks + 1, 0);
        for (const pf_slice_rec& r : slices) ++track_start_[r.track + 1];
        for (std::size_t t = 1; t < track_start_.size(); ++t) track_start_[t] += track_start_[t - 1];
        fingers_.assign(tracks, 0);
    }

    // The slice an endpoint on `track` at `ts` binds to: by event id, else
    // the innermost slice of the track that holds ts (of equal ones, the last
    // written); none if no slice holds it.
    [[nodiscard]] std::uint32_t bind(const std::vector<pf_slice_rec>& slices, std::uint32_t track, std::int64_t ts,
                                     std::int64_t bind_id) {
        if (bind_id >= 0 && bind_id <= max_id_) {
            const id_entry e = by_id_[static_cast<std::size_t>(bind_id)];
            if (e.slice != none && e.track == track) return e.slice;
        }
        if (track + 1 >= track_start_.size()) return none;
        // The last slice of the track beginning at or before ts, going back
        // past the ones that end before it (few: lanes rarely nest).
        const auto lo = slices.begin() + track_start_[track];
        auto hi = slices.begin() + after(slices, track, ts);
        for (int steps = 0; hi != lo && steps < 64; ++steps) {
            --hi;
            if (hi->end >= ts) return static_cast<std::uint32_t>(hi - slices.begin());
        }
        return none;
    }

    // The first slice of `track` beginning after ts (its run's end if none).
    // A track's endpoints mostly come in time order: the search gallops out
    // from where the track's last one landed, reading a few slices near it
    // instead of a binary search's cold ones across the run.
    std::uint32_t after(const std::vector<pf_slice_rec>& slices, std::uint32_t track, std::int64_t ts) {
        const std::uint32_t lo = track_start_[track], hi = track_start_[track + 1];
        std::uint32_t& finger = fingers_[track];
        finger = std::clamp(finger, lo, hi);
        std::uint32_t from = lo, to = hi;  // the answer is in [from, to]
        if (finger < hi && slices[finger].begin <= ts) {
            std::uint32_t at = finger;  // begins at or before ts
            for (std::uint32_t step = 1;; step *= 2) {
                if (hi - at <= step) {
                    from = at + 1;
                    break;
                }
                if (slices[at + step].begin > ts) {
                    from = at + 1, to = at + step;
                    break;
                }
                at += step;
            }
        } else {
            std::uint32_t at = finger;  // hi, or begins after ts
            for (std::uint32_t step = 1;; step *= 2) {
                if (at - lo < step) {
                    to = at;
                    break;
                }
                if (slices[at - step].begin <= ts) {
                    from = at - step + 1, to = at;
                    break;
                }
                at -= step;
            }
        }
        const auto first = std::upper_bound(slices.begin() + from, slices.begin() + to, ts,
                                            [](std::int64_t t, const pf_slice_rec& r) { return t < r.begin; });
        return finger = static_cast<std::uint32_t>(first - slices.begin());
    }

    // Frees the tables once no more flows come (the slices stay sorted).
    void release() {
        std::vector<id_entry>().swap(by_id_);
        std::vector<std::uint32_t>().swap(fingers_);
        std::vector<std::uint32_t>().swap(track_start_);
    }

private:
    // Sorts by (track, begin, end descending, order written), on two
    // threads when there are many: the slices are split at the track that
    // halves them (one pass of std::partition; no copy), and each part is
    // sorted on its own thread (at 10^5 tasks the sort was ~60 ms of the
    // one busy thread).
    static void sort_by_track(std::vector<pf_slice_rec>& slices, std::size_t tracks) {
        const auto before = [](const pf_slice_rec& x, const pf_slice_rec& y) {
            if (x.track != y.track) return x.track < y.track;
            if (x.begin != y.begin) return x.begin < y.begin;
            if (x.end != y.end) return x.end > y.end;
            return x.seq < y.seq;
        };
        constexpr std::size_t two_threads_from = std::size_t{1} << 16;
        if (slices.size() < two_threads_from || tracks < 2) {
            std::sort(slices.begin(), slices.end(), before);
            return;
        }
        std::vector<std::size_t> per_track(tracks, 0);
        for (const pf_slice_rec& r : slices) ++per_track[r.track];
        std::uint32_t split = 1;  // the parts: tracks below split, the rest
        for (std::size_t below = per_track[0]; split + 1 < tracks && below + per_track[split] <= slices.size() / 2;) {
            below += per_track[split++];
        }
        const auto mid = std::partition(slices.begin(), slices.end(),
                                        [split](const pf_slice_rec& r) { return r.track < split; });
        std::thread first([&] { std::sort(slices.begin(), mid, before); });
        std::sort(mid, slices.end(), before);
        first.join();
    }

    bool indexed_ = false;
    std::int64_t max_id_ = -1;
    struct id_entry {
        std::uint32_t slice = none, track = 0;
    };
    std::vector<id_entry> by_id_;
    std::vector<std::uint32_t> track_start_;
    std::vector<std::uint32_t> fingers_;  // per track: where its last search landed
};

// Each slice's flow endpoints (a flow id, tagged as a start or an end), in
// the order they were bound. Kept as they arrive, 8 bytes each, without
// touching the slice (a random access into the table of slices per
// endpoint: 42 % of flow binding's samples when each slice held its list's
// head and tail), then grouped by slice once, by a counting sort: 4 bytes
// an endpoint and 4 a slice.
class pf_slice_flows {
public:
    struct arrival {
        std::uint32_t slice, tagged;
    };
    void reserve(std::size_t endpoints) { arrivals_.reserve(endpoints); }
    void add(std::uint32_t slice, std::uint32_t tagged) { arrivals_.push_back({slice, tagged}); }
    // The endpoints as they arrived (empty after group()).
    [[nodiscard]] const std::vector<arrival>& arrivals() const noexcept { return arrivals_; }

    // Groups the endpoints by slice, of `slices` slices (every endpoint's
    // slice is below it), and frees the arrivals.
    void group(std::size_t slices) {
        start_.assign(slices + 1, 0);
        for (const arrival& a : arrivals_) ++start_[a.slice + 1];
        for (std::size_t s = 1; s <= slices; ++s) start_[s] += start_[s - 1];
        // start_[s] is where s's endpoints begin; it walks to their end as
        // they are placed (where s + 1's begin): shifted back after.
        tagged_.resize(arrivals_.size());
        for (const arrival& a : arrivals_) tagged_[start_[a.slice]++] = a.tagged;
        for (std::size_t s = slices; s > 0; --s) start_[s] = start_[s - 1];
        start_[0] = 0;
        std::vector<arrival>().swap(arrivals_);
    }
    // Slice s's endpoints, in arrival order (after group()): [first, last).
    [[nodiscard]] std::pair<const std::uint32_t*, const std::uint32_t*> of(std::uint32_t s) const noexcept {
        return {tagged_.data() + start_[s], tagged_.data() + start_[s + 1]};
    }

private:
    std::vector<arrival> arrivals_;
    std::vector<std::uint32_t> start_;   // slices + 1: where each slice's endpoints begin
    std::vector<std::uint32_t> tagged_;  // by slice, each slice's in arrival order
};

}  // namespace dfx::convert::swimlane::trace
