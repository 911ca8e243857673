// perfetto_flow_binder: the Perfetto backend's stored slices (pf_slice_table)
// and the flow endpoints bound to them as they arrive. A JSON flow endpoint
// binds to a slice by its "id" (bind_id), else to the innermost slice of its
// thread that holds its time; Perfetto carries it as a flow id ON that
// slice's begin or end event. The trace sections write every slice before
// the first flow (trace_writer.hpp), so the binder indexes the slices once,
// when they are all in (or at the first flow): it sorts them in place by
// track and time (no copy: the searches run on the slices themselves) and
// numbers them by event id. Each flow's two ends are bound then (on any
// thread, with the caller's own search fingers) and kept in
// pf_slice_flows, grouped by slice at the end.
//
//   pf_slice_table slices;
//   slices.push_back(begin_ns, end_ns, track, event_id);   // every slice first
//   pf_flow_binder binder;
//   binder.index(slices, track_count);            // once every slice is in
//   const std::uint32_t s = binder.bind(slices, track, ts_ns, bind_id);
//   if (s == pf_flow_binder::none) ...            // no slice: an instant
//   binder.release();                             // once no more flows come
//
//   pf_slice_flows flows;
//   flows.add(id, true, s);  flows.add(id, false, t);   // each flow's start, then its end
//   flows.group(slices.size());                   // once, when all are in
//   const auto [first, last] = flows.starts_of(s); // ids of the flows starting on s, in order
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

namespace dfx::convert::swimlane::trace {

// A slice as the backend keeps it between its two passes (times in ns): a
// skeleton of 24 bytes, about ten of them per task, so the narrow fields are
// narrow (perfetto_trace::slice() checks that they fit). Its length takes 32
// bits: a slice longer than 4.29 s (a graph's envelope, a long run's
// orchestrator phases) keeps it in its table's long ends instead.
struct pf_slice_rec {
    static constexpr std::uint32_t no_id = ~0u;
    static constexpr std::uint32_t long_length = ~0u;  // the end is in the table's long ends
    std::int64_t begin = 0;
    std::uint32_t length = 0;  // end - begin, or long_length
    std::uint32_t track = 0;
    std::uint32_t event_id = no_id;  // the JSON "id" flows bind to
    std::uint32_t seq = 0;  // the order written: breaks ties as the JSON view's order does
};
static_assert(sizeof(pf_slice_rec) == 24);

// The skeletons of every slice, in the order written until the binder sorts
// them, with the ends of the long ones.
class pf_slice_table {
public:
    // Appends a slice (end >= begin); its seq is its place in the order written.
    void push_back(std::int64_t begin, std::int64_t end, std::uint32_t track, std::uint32_t event_id) {
        pf_slice_rec r;
        r.begin = begin;
        r.track = track;
        r.event_id = event_id;
        r.seq = static_cast<std::uint32_t>(recs_.size());
        const std::uint64_t length = static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(begin);
        const bool long_one = length >= pf_slice_rec::long_length;
        r.length = long_one ? pf_slice_rec::long_length : static_cast<std::uint32_t>(length);
        recs_.push_back(r);
        if (!long_one) return;
        try {
            long_ends_.push_back({r.seq, end});  // in seq order, as written
        } catch (...) {
            recs_.pop_back();  // (a failed push leaves the table as it was)
            throw;
        }
    }
    [[nodiscard]] std::int64_t end_of(const pf_slice_rec& r) const noexcept {
        if (r.length != pf_slice_rec::long_length) return r.begin + r.length;
        const auto at = std::lower_bound(long_ends_.begin(), long_ends_.end(), r.seq,
                                         [](const long_end& e, std::uint32_t seq) { return e.seq < seq; });
        return at->end;
    }

    void reserve(std::size_t slices) { recs_.reserve(slices); }
    [[nodiscard]] std::size_t size() const noexcept { return recs_.size(); }
    [[nodiscard]] bool empty() const noexcept { return recs_.empty(); }
    const pf_slice_rec& operator[](std::size_t i) const noexcept { return recs_[i]; }
    // The skeletons themselves (the binder sorts them; nesting moves some to overflow tracks).
    [[nodiscard]] std::vector<pf_slice_rec>& records() noexcept { return recs_; }
    [[nodiscard]] const std::vector<pf_slice_rec>& records() const noexcept { return recs_; }
    void release() {
        std::vector<pf_slice_rec>().swap(recs_);
        std::vector<long_end>().swap(long_ends_);
    }

private:
    struct long_end {
        std::uint32_t seq;
        std::int64_t end;
    };
    std::vector<pf_slice_rec> recs_;
    std::vector<long_end> long_ends_;  // by seq
};

class pf_flow_binder {
public:
    static constexpr std::uint32_t none = ~0u;

    [[nodiscard]] bool indexed() const noexcept { return indexed_; }

    // Sorts `slices` (on `tracks` tracks) by (track, begin, end descending,
    // order written): outer slices before the ones they hold; of equal ones,
    // the later written is inner. Then indexes them by event id and track.
    // Called once, when every slice is in.
    void index(pf_slice_table& table, std::size_t tracks) {
        indexed_ = true;
        sort_by_track(table, tracks);
        const std::vector<pf_slice_rec>& slices = table.records();
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
    [[nodiscard]] std::uint32_t bind(const pf_slice_table& table, std::uint32_t track, std::int64_t ts,
                                     std::int64_t bind_id) {
        return bind(table, track, ts, bind_id, fingers_);
    }
    // The same, from any thread once indexed: `fingers` (one per track,
    // the caller's) is where each track's last search landed.
    [[nodiscard]] std::uint32_t bind(const pf_slice_table& table, std::uint32_t track, std::int64_t ts,
                                     std::int64_t bind_id, std::vector<std::uint32_t>& fingers) const {
        const std::vector<pf_slice_rec>& slices = table.records();
        if (bind_id >= 0 && bind_id <= max_id_) {
            const id_entry e = by_id_[static_cast<std::size_t>(bind_id)];
            if (e.slice != none && e.track == track) return e.slice;
        }
        if (track + 1 >= track_start_.size()) return none;
        // The last slice of the track beginning at or before ts, going back
        // past the ones that end before it (few: lanes rarely nest).
        const auto lo = slices.begin() + track_start_[track];
        if (fingers.size() < track_start_.size()) fingers.resize(track_start_.size(), 0);
        auto hi = slices.begin() + after(slices, track, ts, fingers[track]);
        for (int steps = 0; hi != lo && steps < 64; ++steps) {
            --hi;
            if (table.end_of(*hi) >= ts) return static_cast<std::uint32_t>(hi - slices.begin());
        }
        return none;
    }

    // The first slice of `track` beginning after ts (its run's end if none).
    // A track's endpoints mostly come in time order: the search gallops out
    // from where the track's last one landed, reading a few slices near it
    // instead of a binary search's cold ones across the run.
    std::uint32_t after(const std::vector<pf_slice_rec>& slices, std::uint32_t track, std::int64_t ts,
                        std::uint32_t& finger) const {
        const std::uint32_t lo = track_start_[track], hi = track_start_[track + 1];
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
    // threads when there are many: the slices are split in halves by a
    // (track, begin) that the sorted order keeps apart, the begin the median
    // of the track the middle falls in (one pass of std::partition; no
    // copy; a scheduler thread's track holds a quarter of the slices, so a
    // split between tracks left one thread idle for a third of the sort),
    // and each half is sorted on its own thread (at 10^5 tasks the sort
    // was ~60 ms of the one busy thread).
    static void sort_by_track(pf_slice_table& table, std::size_t tracks) {
        std::vector<pf_slice_rec>& slices = table.records();
        const auto before = [&table](const pf_slice_rec& x, const pf_slice_rec& y) {
            if (x.track != y.track) return x.track < y.track;
            if (x.begin != y.begin) return x.begin < y.begin;
            if (x.length != y.length || x.length == pf_slice_rec::long_length) {  // (equal begins)
                const std::int64_t x_end = table.end_of(x), y_end = table.end_of(y);
                if (x_end != y_end) return x_end > y_end;
            }
            return x.seq < y.seq;
        };
        constexpr std::size_t two_threads_from = std::size_t{1} << 16;
        if (slices.size() < two_threads_from || tracks < 2) {
            std::sort(slices.begin(), slices.end(), before);
            return;
        }
        std::vector<std::size_t> per_track(tracks, 0);
        for (const pf_slice_rec& r : slices) ++per_track[r.track];
        std::uint32_t split = 0;  // the track the middle falls in
        std::size_t below = 0;    // the slices of the tracks before it
        while (split + 1 < tracks && below + per_track[split] <= slices.size() / 2) below += per_track[split++];
        std::vector<std::int64_t> begins;  // split's
        begins.reserve(per_track[split]);
        for (const pf_slice_rec& r : slices) {
            if (r.track == split) begins.push_back(r.begin);
        }
        const std::size_t take = std::min(slices.size() / 2 - below, begins.size());  // of split's, to the first half
        std::int64_t pivot = std::numeric_limits<std::int64_t>::max();
        if (take < begins.size()) {
            std::nth_element(begins.begin(), begins.begin() + static_cast<std::ptrdiff_t>(take), begins.end());
            pivot = begins[take];
        }
        std::vector<std::int64_t>().swap(begins);
        const auto mid = std::partition(slices.begin(), slices.end(), [split, pivot](const pf_slice_rec& r) {
            return r.track < split || (r.track == split && r.begin < pivot);
        });
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

// Each slice's flow endpoints: the ids of the flows that start on it and of
// the flows that end on it. The flow sections write each flow's start and
// then its end, mostly in increasing id order, so the two ends are kept
// together as one link (the slices they bound to, 4 bytes each, in two
// columns), the ids implied by the order (only where an id is not the last
// one + 1 is it kept). That is half of what an endpoint took on its own
// (its slice and its tagged id), and the bench capture has 17 flows a task.
// Once all are in, they are grouped by slice by two counting sorts (starts,
// then ends), each column freed once it is grouped: 4 bytes an endpoint and
// 8 a slice. Ends that come another way (a lone start or end) are kept as
// links with one end absent, so each slice's starts and ends keep the order
// they came in.
class pf_slice_flows {
public:
    static constexpr std::uint32_t absent = ~0u;  // a link's end that no slice holds
    void reserve(std::size_t flows) {
        from_.reserve(flows);
        to_.reserve(flows);
    }
    // One end of flow `id` (a start or an end), bound to `slice` (absent: to none).
    void add(std::uint32_t id, bool starts, std::uint32_t slice) {
        if (starts) {
            settle();
            pending_ = {id, slice};
            has_pending_ = true;
        } else if (has_pending_ && pending_.id == id) {
            append(id, pending_.slice, slice);
            has_pending_ = false;
        } else {
            settle();
            append(id, absent, slice);
        }
    }
    // The links so far, as the slices they start on and the slices they end
    // on (empty after group()); a start whose end has not come yet is not
    // among them.
    [[nodiscard]] const std::vector<std::uint32_t>& froms() const noexcept { return from_; }
    [[nodiscard]] const std::vector<std::uint32_t>& tos() const noexcept { return to_; }
    [[nodiscard]] std::size_t links() const noexcept { return from_.size(); }

    // Groups the endpoints by slice, of `slices` slices (every endpoint's
    // slice is below it), and frees the links.
    void group(std::size_t slices) {
        settle();
        starts_.group(from_, id_jumps_, slices);
        std::vector<std::uint32_t>().swap(from_);
        ends_.group(to_, id_jumps_, slices);
        std::vector<std::uint32_t>().swap(to_);
        std::vector<id_jump>().swap(id_jumps_);
        next_id_ = 0;
    }
    // The ids of the flows that start / end on slice s, in the order they
    // came (after group()): [first, last).
    [[nodiscard]] std::pair<const std::uint32_t*, const std::uint32_t*> starts_of(std::uint32_t s) const noexcept {
        return starts_.of(s);
    }
    [[nodiscard]] std::pair<const std::uint32_t*, const std::uint32_t*> ends_of(std::uint32_t s) const noexcept {
        return ends_.of(s);
    }

private:
    struct id_jump {
        std::uint32_t link;  // from this link on, ids count up from `id` (the caller keeps links below 2^32)
        std::uint32_t id;
    };
    struct pending {
        std::uint32_t id = 0, slice = absent;
    };
    // Each slice's ids of one end of the links, in link order.
    class by_slice {
    public:
        // `ends`: the slice each link has at this end, in link order.
        void group(const std::vector<std::uint32_t>& ends, const std::vector<id_jump>& jumps, std::size_t slices) {
            start_.assign(slices + 1, 0);
            std::size_t endpoints = 0;
            for (const std::uint32_t slice : ends) {
                if (slice == absent) continue;
                ++start_[slice + 1];
                ++endpoints;
            }
            for (std::size_t s = 1; s <= slices; ++s) start_[s] += start_[s - 1];
            // start_[s] is where s's ids begin; it walks to their end as they
            // are placed (where s + 1's begin): shifted back after.
            ids_.resize(endpoints);
            std::uint32_t id = 0;
            auto jump = jumps.begin();
            for (std::size_t k = 0; k < ends.size(); ++k, ++id) {
                if (jump != jumps.end() && jump->link == k) id = (jump++)->id;
                if (ends[k] != absent) ids_[start_[ends[k]]++] = id;
            }
            for (std::size_t s = slices; s > 0; --s) start_[s] = start_[s - 1];
            start_[0] = 0;
        }
        [[nodiscard]] std::pair<const std::uint32_t*, const std::uint32_t*> of(std::uint32_t s) const noexcept {
            return {ids_.data() + start_[s], ids_.data() + start_[s + 1]};
        }

    private:
        std::vector<std::uint32_t> start_;  // slices + 1: where each slice's ids begin
        std::vector<std::uint32_t> ids_;    // by slice, each slice's in link order
    };

    // Room first, so that a failed push leaves the links as they were.
    void append(std::uint32_t id, std::uint32_t from, std::uint32_t to) {
        const bool jump = id != next_id_;
        for (std::vector<std::uint32_t>* column : {&from_, &to_}) {
            if (column->size() == column->capacity()) column->reserve(2 * column->size() + 16);
        }
        if (jump && id_jumps_.size() == id_jumps_.capacity()) id_jumps_.reserve(2 * id_jumps_.size() + 16);
        if (jump) id_jumps_.push_back({static_cast<std::uint32_t>(from_.size()), id});
        next_id_ = id + 1;
        from_.push_back(from);
        to_.push_back(to);
    }
    // A start still waiting for its end is kept as a link of its own.
    void settle() {
        if (!has_pending_) return;
        append(pending_.id, pending_.slice, absent);
        has_pending_ = false;
    }

    std::vector<std::uint32_t> from_, to_;  // by link: the slice it starts / ends on
    std::vector<id_jump> id_jumps_;        // in link order
    std::uint32_t next_id_ = 0;      // the id the next link has without a jump
    pending pending_;
    bool has_pending_ = false;
    by_slice starts_, ends_;
};

}  // namespace dfx::convert::swimlane::trace
