// perfetto_packets: the swimlane trace as Perfetto's native protobuf format
// (a `Trace` of `TracePacket`s), the second backend of event_sink
// (event_shapes.hpp) beside the JSON one. Perfetto's field numbers and the
// shapes the sections hand in are in perfetto_fields.hpp; flow endpoints are
// bound to their slices by perfetto_flow_binder.hpp; strings are interned by
// perfetto_tables.hpp.
//
// What the JSON view has, the protobuf trace has, on one packet sequence:
//   process_name / thread_name  -> TrackDescriptors (ProcessDescriptor,
//                                  ThreadDescriptor), one per pid / (pid, tid)
//   "X" slice                   -> TYPE_SLICE_BEGIN + TYPE_SLICE_END, with the
//                                  category interned, the name interned (or
//                                  inline, for a task's own label) and the
//                                  args as interned-name debug annotations
//   "s" / "f" flow endpoints    -> flow_ids / terminating_flow_ids ON the slice
//                                  they bind to (bind_id, else the enclosing
//                                  slice of the track at ts); an endpoint with
//                                  no slice becomes a TYPE_INSTANT carrying it
//   "C" counter point           -> TYPE_COUNTER on a counter track per
//                                  (pid, "<name> <arg>"), the name the JSON
//                                  importer gives it; points of several tracks
//                                  at one time share a packet (extra counter
//                                  values)
// A slice that overlaps another of its track only partly (begin / end
// events must nest) goes to an overflow track under its thread's.
// Not carried: sort indices (the UI orders tracks itself), flow names and
// the JSON "id" of slices (flows are attached directly instead).
//
// Flows are drawn after the slices they bind to, so this backend keeps the
// slices (40 bytes each, plus their encoded args) and counter packets (16
// bytes, plus 8 per value), binds each flow endpoint to its slice as it
// arrives (8 bytes), and writes the packets at finish(), merged in time
// order (each track's slices are sorted once): timestamps are deltas of a
// sequence-scoped incremental clock (1-3 bytes instead of 6), interned data
// is emitted with the first packet that uses it.
//
//   perfetto_trace pb;
//   pb.process_name(4, "Worker View");
//   pb.slice({"event", "QK(t7)", 4, 10000, ts_us, dur_us, event_id}, args);
//   pb.flow(flow_id, 's', 4, 10000, ts_us, event_id);
//   pb.counter(2, "shared_ready_queue AIC", ts_us, 3);
//   pb.counters(2, {{"shared_ready_queue AIC", 3}, {"shared_ready_queue AIV", 0}}, ts_us);
//   pb.finish(out);   // appends the Trace bytes
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <limits>
#include <map>
#include <stdexcept>
#include <thread>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dfx/convert/common/prefault_ahead.hpp"
#include "dfx/convert/common/protobuf_writer.hpp"
#include "dfx/convert/swimlane/trace/perfetto_fields.hpp"
#include "dfx/convert/swimlane/trace/perfetto_flow_binder.hpp"
#include "dfx/convert/swimlane/trace/perfetto_tables.hpp"

namespace dfx::convert::swimlane::trace {

class perfetto_trace {
public:
    // µs (the JSON view's unit, 3 decimals) -> ns.
    static std::int64_t ns(double us) { return std::llround(us * 1000.0); }

    // Room for about `slices` slices, `flows` flow endpoints and
    // `counter_points` counter points (a hint:
    // growing a table copies it, and the copy and the old one are both
    // resident for a moment; room reserved but never touched costs nothing).
    // The room is faulted in on a second thread a little ahead of the
    // writes (prefault_ahead.hpp), until it runs out or finish() begins.
    void reserve(std::size_t slices, std::size_t flows, std::size_t counter_points) {
        const bool again = std::exchange(reserved_, true);
        if (again) ahead_.stop();  // the rooms may move: not watched any more
        slices_.reserve(slices);
        flows_.reserve(flows);
        points_.reserve(counter_points);
        args_.reserve(slices * 64);
        if (again) return;
        ahead_slices_ = ahead_.watch(slices_.data(), slices_.capacity() * sizeof(slice_rec));
        ahead_args_ = ahead_.watch(args_.data(), args_.capacity());
        const auto& arrivals = flows_.arrivals();
        ahead_links_ = ahead_.watch(arrivals.data(), arrivals.capacity() * sizeof(pf_slice_flows::arrival));
        ahead_packets_ =
            ahead_.watch(points_.packets.data(), points_.packets.capacity() * sizeof(pf_counter_points::packet));
        ahead_values_ = ahead_.watch(points_.values.data(), points_.values.capacity() * sizeof(std::int64_t));
        ahead_.start();
    }

    // ---- tracks ----
    void process_name(int pid, std::string_view name) { process_track(pid).name = std::string(name); }
    void thread_name(int pid, std::int64_t tid, std::string_view name) {
        tracks_[thread_track(pid, tid)].name = std::string(name);
    }

    // ---- events ----
    template <class Args>
    void slice(const pf_slice& s, const Args& args) {
        if (binder_.indexed()) throw std::logic_error("perfetto_trace: a slice after the first flow");
        slice_rec r;
        r.track = thread_track(s.pid, s.tid);
        r.cat = pf_narrow<std::uint16_t>(categories_.intern(s.cat), "category");
        const bool inline_name = s.name_kind == pf_slice::inline_text;
        r.name = inline_name ? 0 : names_.intern(s.name);
        r.begin = ns(s.ts_us);
        r.end = r.begin + ns(s.dur_us);
        r.event_id = s.event_id < 0 ? slice_rec::no_id : pf_narrow<std::uint32_t>(s.event_id, "event id");
        r.seq = static_cast<std::uint32_t>(slices_.size());
        r.args_at = pf_narrow<std::uint32_t>(args_.size(), "args bytes");
        std::size_t most = 16 + (inline_name ? s.name.size() : 0);  // the bytes this slice's args may take
        for (const pf_arg& a : args) most += 32 + (a.kind == pf_arg::text ? a.s.size() : 0);
        before_growing(slices_, 1);
        before_growing(args_, most);
        protobuf_writer w(args_);
        if (inline_name) w.string(pf::event::name, s.name);
        for (const pf_arg& a : args) {
            const auto m = w.begin(pf::event::debug_annotations);
            w.varint(pf::annotation::name_iid, arg_names_.intern(a.name));
            if (a.kind == pf_arg::integer) w.int64(pf::annotation::int_value, a.i);
            if (a.kind == pf_arg::real) w.double_value(pf::annotation::double_value, a.d);
            if (a.kind == pf_arg::text) w.string(pf::annotation::string_value, a.s);
            w.end(m);
        }
        r.args_size = pf_narrow<std::uint16_t>(args_.size() - r.args_at, "a slice's args");
        slices_.push_back(r);
        ahead_.wrote(ahead_slices_, slices_.size() * sizeof(slice_rec));
        ahead_.wrote(ahead_args_, args_.size());
    }
    // A flow endpoint ('s' starts flow `id`, 'f' ends it); bind_id < 0: the
    // enclosing slice of (pid, tid) at ts. Every slice must be in by the
    // first flow: it is bound now.
    void flow(std::int64_t id, char ph, int pid, std::int64_t tid, double ts_us, std::int64_t bind_id) {
        if (id < 0 || id >= std::int64_t{1} << 31) throw std::length_error("perfetto_trace: flow id out of range");
        const std::uint32_t tagged = static_cast<std::uint32_t>(id) | (ph == 's' ? starts_bit : 0u);
        const std::uint32_t track = thread_track(pid, tid);
        if (!binder_.indexed()) binder_.index(slices_, tracks_.size());
        const std::int64_t ts = ns(ts_us);
        const std::uint32_t s = binder_.bind(slices_, track, ts, bind_id);
        if (s == pf_flow_binder::none) return orphans_.push_back({ts, track, tagged});
        before_growing(flows_.arrivals(), 1);
        pf_narrow<std::uint32_t>(flows_.arrivals().size() + 1, "flow endpoints");  // (grouped with 32-bit offsets)
        flows_.add(s, tagged);
        ahead_.wrote(ahead_links_, flows_.arrivals().size() * sizeof(pf_slice_flows::arrival));
    }
    // A point of the counter track `name` of process `pid`.
    void counter(int pid, std::string_view name, double ts_us, std::int64_t value) {
        const std::uint32_t track = counter_track(pid, name);
        if (track >= single_shape_.size()) single_shape_.resize(track + 1, none);
        if (single_shape_[track] == none) single_shape_[track] = points_.shape_of({track});
        add_points(ns(ts_us), single_shape_[track], std::initializer_list<std::int64_t>{value});
    }
    // Points of several counter tracks at one time: one packet, the first
    // as its TYPE_COUNTER event, the others as its extra counter values.
    // They are kept as one record and their values (a phase's three
    // ready-queue depths: 16 + 3 * 8 bytes, not 3 * 24).
    void counters(int pid, std::initializer_list<std::pair<std::string_view, std::int64_t>> points, double ts_us) {
        // The same tracks as the last call (a run of phases)? Else look them up.
        bool same = pid == last_shape_pid_ && last_shape_ != none && points.size() == last_shape_names_.size();
        for (std::size_t i = 0; same && i < points.size(); ++i) {
            same = (points.begin() + i)->first == last_shape_names_[i];
        }
        if (!same) {
            std::vector<std::uint32_t> tracks;
            last_shape_names_.clear();
            for (const auto& point : points) {
                tracks.push_back(counter_track(pid, point.first));
                last_shape_names_.emplace_back(point.first);
            }
            last_shape_pid_ = pid;
            last_shape_ = points_.shape_of(std::move(tracks));
        }
        add_points(ns(ts_us), last_shape_, points);
    }
    [[nodiscard]] std::size_t slices() const noexcept { return slices_.size(); }

    // Appends the whole Trace to `out`, in chunks through `flush(bytes)`,
    // which may empty `bytes` (a file writer's flush): `bytes` is `out`, or
    // a byte_buffer of packets (data(), size(), clear()).
    template <class Flush>
    void finish(std::string& out, Flush&& flush) {
        ahead_.stop();  // nothing more is written to the tables
        // No flow comes after this: the slices (in track order since the
        // first flow, each track's run in time order) are nested, while a
        // second thread sorts the counter points and groups the flow
        // endpoints by slice; time_merge then merges the tracks' runs.
        std::vector<std::uint32_t> counter_order, runs;
        std::exception_ptr sorter_error;
        std::thread sorter([&] {
            try {
                counter_order = sorted_counters();
                flows_.group(slices_.size());
            } catch (...) {
                sorter_error = std::current_exception();
            }
        });
        try {
            if (!binder_.indexed()) binder_.index(slices_, tracks_.size());
            runs = binder_.release();
            nest_slices();
            std::stable_sort(orphans_.begin(), orphans_.end(),
                             [](const orphan_rec& a, const orphan_rec& b) { return a.ts < b.ts; });
        } catch (...) {
            sorter.join();
            throw;
        }
        sorter.join();
        if (sorter_error) std::rethrow_exception(sorter_error);
        protobuf_writer w(out);
        // The first packet clears the incremental state and defines the
        // clock every later packet's timestamp is a delta of.
        {
            const auto p = w.begin(pf::trace_packet);
            w.varint(pf::packet::trusted_packet_sequence_id, sequence_id);
            w.varint(pf::packet::sequence_flags, pf::packet::seq_incremental_state_cleared);
            const auto c = w.begin(pf::packet::clock_snapshot);
            for (const std::uint64_t id : {pf::clock::sequence_clock, pf::clock::builtin_boottime}) {
                const auto k = w.begin(pf::clock::clocks);
                w.varint(pf::clock::clock_id, id);
                w.varint(pf::clock::timestamp, 0);
                if (id == pf::clock::sequence_clock) w.varint(pf::clock::is_incremental, 1);
                w.end(k);
            }
            w.varint(pf::clock::primary_trace_clock, pf::clock::builtin_boottime);
            w.end(c);
            const auto d = w.begin(pf::packet::trace_packet_defaults);
            w.varint(pf::defaults::timestamp_clock_id, pf::clock::sequence_clock);
            w.end(d);
            const auto m = w.begin(pf::packet::interned_data);
            for (std::uint32_t i = 0; i < categories_.order.size(); ++i) {
                interned_entry(w, pf::interned::event_categories, i + 1, categories_.order[i]);
            }
            for (std::uint32_t i = 0; i < arg_names_.order.size(); ++i) {
                interned_entry(w, pf::interned::debug_annotation_names, i + 1, arg_names_.order[i]);
            }
            w.end(m);
            w.end(p);
        }
        for (std::size_t i = 0; i < tracks_.size(); ++i) write_descriptor(w, i);
        flush(out);
        // The packets, merged in time order a block at a time, each block
        // encoded in two parts at once, written in order: this thread
        // merges the next block and then encodes the first part of this
        // one while a second thread encodes the rest. The split moves
        // towards the thread that finished first (so merging plus this
        // thread's part takes as long as the other part).
        constexpr std::size_t block = std::size_t{1} << 17;
        constexpr std::size_t parts = 32;  // the split's unit: 1/32 of a block
        std::size_t mine_parts = parts / 2;
        time_merge merge(*this, runs, counter_order);
        std::vector<item> now, next;
        now.reserve(block);
        next.reserve(block);
        byte_buffer mine, other;
        std::int64_t last = 0;  // the clock before the block
        for (bool more = merge.next_block(now, block); more; std::swap(now, next)) {
            const std::size_t hi = now.size();
            const std::size_t mid = std::max<std::size_t>(1, hi * mine_parts / parts);
            const std::int64_t mid_last = std::max<std::int64_t>(now[mid - 1].ts, 0);
            std::atomic<bool> second_done{false};
            std::exception_ptr second_error;
            std::thread second;
            if (mid < hi) {
                second = std::thread([&, mid, hi] {
                    try {
                        encode(now, mid, hi, mid_last, other);
                    } catch (...) {
                        second_error = std::current_exception();
                    }
                    second_done.store(true, std::memory_order_release);
                });
            }
            try {
                more = merge.next_block(next, block);
                encode(now, 0, mid, last, mine);
                if (second.joinable()) {
                    const bool second_first = second_done.load(std::memory_order_acquire);
                    if (second_first && mine_parts > 1) --mine_parts;
                    if (!second_first && mine_parts + 1 < parts) ++mine_parts;
                }
                flush(mine);  // (a write error throws: the second thread is joined first)
            } catch (...) {
                if (second.joinable()) second.join();
                throw;
            }
            if (second.joinable()) {
                second.join();
                if (second_error) std::rethrow_exception(second_error);
                flush(other);
            }
            last = std::max<std::int64_t>(now.back().ts, 0);
        }
        flush(out);
    }

    static constexpr std::uint64_t sequence_id = 1;

private:
    struct track_rec {
        enum kind_t : std::uint8_t { process, thread, counter, overflow } kind;
        int pid;
        std::int64_t tid;
        std::string name;
        std::uint64_t parent = 0;
    };
    using slice_rec = pf_slice_rec;
    // A flow endpoint as kept: the flow id, its top bit set for a start.
    static constexpr std::uint32_t starts_bit = 1u << 31;
    // One that no slice holds: written as an instant.
    struct orphan_rec {
        std::int64_t ts;
        std::uint32_t track;
        std::uint32_t tagged;
    };
    // One packet to write, in time order (time_merge makes them a block
    // at a time).
    struct item {
        enum kind_t : std::uint8_t { end = 0, begin = 1, instant = 2, counter = 3 };
        std::int64_t ts;
        std::uint32_t index;
        kind_t kind;
        bool closing = false;   // a zero-length slice's end, right after its begin
        bool interns = false;   // the first begin of its interned name: carries it
    };

    // The packets in time order, merged from the slices (each track's run
    // already in begin order, pf_flow_binder::index(), merged by a heap of
    // the runs), a heap of the open slices' ends, the orphan endpoints and
    // the counter points (each sorted). Begins: at one ts the longer first
    // (the shorter nests inside), of equal ones the earlier written. At one
    // timestamp: slice ends first (the later-begun first), then begins,
    // instants, counters. A zero-length slice writes its end right after its
    // begin.
    class time_merge {
    public:
        time_merge(const perfetto_trace& t, const std::vector<std::uint32_t>& runs,
                   const std::vector<std::uint32_t>& counters)
            : t_(t), counters_(counters), interned_(t.names_.order.size(), false) {
            for (std::size_t r = 0; r + 1 < runs.size(); ++r) {
                if (runs[r] < runs[r + 1]) runs_.push_back(cursor_at(runs[r], runs[r + 1]));
            }
            std::make_heap(runs_.begin(), runs_.end(), runs_later);
        }
        // Fills `items` with up to `n` packets; false when none are left.
        bool next_block(std::vector<item>& items, std::size_t n) {
            items.clear();
            while (items.size() < n) {
                std::int64_t best = std::numeric_limits<std::int64_t>::max();
                int from = -1;  // 0 end, 1 begin, 2 instant, 3 counter: the tie order
                if (!ends_.empty()) best = ends_.front().end, from = 0;
                if (!runs_.empty() && (from < 0 || runs_.front().begin < best)) best = runs_.front().begin, from = 1;
                if (o_ < t_.orphans_.size() && (from < 0 || t_.orphans_[o_].ts < best)) best = t_.orphans_[o_].ts, from = 2;
                if (c_ < counters_.size() && (from < 0 || t_.points_.packets[counters_[c_]].ts < best)) from = 3;
                if (from < 0) break;
                if (from == 0) {
                    std::pop_heap(ends_.begin(), ends_.end(), ends_later);
                    items.push_back({ends_.back().end, ends_.back().index, item::end});
                    ends_.pop_back();
                } else if (from == 1) {
                    const run_cursor s = runs_.front();  // (all of the slice this needs)
                    const std::uint32_t i = s.at;
                    next_begin();
                    const bool first = s.name != 0 && !interned_[s.name - 1];
                    if (first) interned_[s.name - 1] = true;
                    items.push_back({s.begin, i, item::begin, false, first});
                    if (s.end == s.begin) {
                        items.push_back({s.begin, i, item::begin, true});
                    } else {
                        ends_.push_back({s.end, s.begin, s.seq, i});
                        std::push_heap(ends_.begin(), ends_.end(), ends_later);
                    }
                } else if (from == 2) {
                    items.push_back({t_.orphans_[o_].ts, static_cast<std::uint32_t>(o_), item::instant});
                    ++o_;
                } else {
                    items.push_back({t_.points_.packets[counters_[c_]].ts, counters_[c_], item::counter});
                    ++c_;
                }
            }
            return !items.empty();
        }

    private:
        struct open_end {
            std::int64_t end, begin;
            std::uint32_t seq, index;
        };
        // Heap order: the top is the earliest end; at one end the later
        // begun, then the earlier written.
        static bool later(const open_end& a, const open_end& b) {
            if (a.end != b.end) return a.end > b.end;
            if (a.begin != b.begin) return a.begin < b.begin;
            return a.seq > b.seq;
        }
        // A track's run of slices [at, stop), keyed by its next slice, with
        // what the merge needs of that slice (32 bytes).
        struct run_cursor {
            std::int64_t begin, end;
            std::uint32_t seq, name, at, stop;
        };
        // Reading a track's next slice is a cache miss more often than not
        // (the runs of hundreds of tracks are read in turn): the one after
        // it is fetched ahead, for when the track comes up again.
        run_cursor cursor_at(std::uint32_t at, std::uint32_t stop) const {
            const slice_rec& s = t_.slices_[at];
            if (at + 1 < stop) __builtin_prefetch(&t_.slices_[at + 1]);
            return {s.begin, s.end, s.seq, s.name, at, stop};
        }
        // Heap order: the top is the earliest begin; at one begin the later
        // end, then the earlier written.
        static bool begins_after(const run_cursor& a, const run_cursor& b) {
            if (a.begin != b.begin) return a.begin > b.begin;
            if (a.end != b.end) return a.end < b.end;
            return a.seq > b.seq;
        }
        // The orders as function objects, so the heap algorithms inline
        // them (a function pointer was a call per comparison).
        static constexpr auto ends_later = [](const open_end& a, const open_end& b) { return later(a, b); };
        static constexpr auto runs_later = [](const run_cursor& a, const run_cursor& b) { return begins_after(a, b); };
        // Moves the top run past its slice: sifts its next one down.
        void next_begin() {
            if (runs_.front().at + 1 == runs_.front().stop) {
                std::pop_heap(runs_.begin(), runs_.end(), runs_later);
                runs_.pop_back();
                return;
            }
            const run_cursor moved = cursor_at(runs_.front().at + 1, runs_.front().stop);
            std::size_t hole = 0;
            const std::size_t n = runs_.size();
            for (;;) {
                std::size_t child = 2 * hole + 1;
                if (child >= n) break;
                if (child + 1 < n && begins_after(runs_[child], runs_[child + 1])) ++child;
                if (!begins_after(moved, runs_[child])) break;
                runs_[hole] = runs_[child];
                hole = child;
            }
            runs_[hole] = moved;
        }
        const perfetto_trace& t_;
        const std::vector<std::uint32_t>& counters_;
        std::vector<bool> interned_;
        std::vector<open_end> ends_;
        std::vector<run_cursor> runs_;
        std::size_t o_ = 0, c_ = 0;
    };
    friend class time_merge;

    // Stops the prefaulting before `table` outgrows its room (and moves).
    template <class Table>
    void before_growing(const Table& table, std::size_t more) noexcept {
        if (table.capacity() - table.size() < more) ahead_.stop();
    }
    template <class Values>
    void add_points(std::int64_t ts, std::uint32_t shape, const Values& values) {
        before_growing(points_.packets, 1);
        before_growing(points_.values, values.size());
        points_.add(ts, shape, values);
        ahead_.wrote(ahead_packets_, points_.packets.size() * sizeof(pf_counter_points::packet));
        ahead_.wrote(ahead_values_, points_.values.size() * sizeof(std::int64_t));
    }

    // uuid = index in tracks_ + 1 (0 is Perfetto's trace-global track).
    static std::uint64_t uuid_of(std::size_t index) { return index + 1; }
    track_rec& process_track(int pid) {
        auto [it, added] = processes_.try_emplace(pid, static_cast<std::uint32_t>(tracks_.size()));
        if (added) tracks_.push_back({track_rec::process, pid, 0, {}, 0});
        return tracks_[it->second];
    }
    std::uint32_t thread_track(int pid, std::int64_t tid) {
        const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(pid)) << 40) ^
                                  static_cast<std::uint64_t>(tid);
        // A flow's two ends are on two tracks, so lookups alternate between
        // a few tracks: a small cache by key before the hash table.
        thread_slot& slot = thread_cache_[(key * 0x9E3779B97F4A7C15ull) >> (64 - thread_cache_bits)];
        if (slot.index != none && slot.key == key) return slot.index;
        auto found = threads_.find(key);
        if (found != threads_.end()) {
            slot = {key, found->second};
            return found->second;
        }
        process_track(pid);
        const auto index = static_cast<std::uint32_t>(tracks_.size());
        tracks_.push_back({track_rec::thread, pid, tid, {}, uuid_of(processes_.at(pid))});
        threads_.emplace(key, index);
        slot = {key, index};
        return index;
    }
    std::uint32_t counter_track(int pid, std::string_view name) {
        std::pair<int, std::string> key(pid, std::string(name));
        auto found = counter_tracks_.find(key);
        if (found != counter_tracks_.end()) return found->second;
        process_track(pid);
        const auto index = static_cast<std::uint32_t>(tracks_.size());
        tracks_.push_back({track_rec::counter, pid, 0, std::string(name), uuid_of(processes_.at(pid))});
        counter_tracks_.emplace(std::move(key), index);
        return index;
    }

    void write_descriptor(protobuf_writer& w, std::size_t i) {
        const track_rec& t = tracks_[i];
        const auto p = w.begin(pf::trace_packet);
        w.varint(pf::packet::trusted_packet_sequence_id, sequence_id);
        const auto d = w.begin(pf::packet::track_descriptor);
        w.varint(pf::track::uuid, uuid_of(i));
        if (t.parent) w.varint(pf::track::parent_uuid, t.parent);
        if (t.kind == track_rec::process) {
            const auto m = w.begin(pf::track::process);
            w.int64(pf::process::pid, t.pid);
            if (!t.name.empty()) w.string(pf::process::process_name, t.name);
            w.end(m);
        } else if (t.kind == track_rec::thread) {
            const auto m = w.begin(pf::track::thread);
            w.int64(pf::thread::pid, t.pid);
            w.int64(pf::thread::tid, t.tid);
            if (!t.name.empty()) w.string(pf::thread::thread_name, t.name);
            w.end(m);
        } else if (t.kind == track_rec::counter) {
            w.string(pf::track::name, t.name);
            const auto m = w.begin(pf::track::counter);
            w.end(m);
        } else if (!t.name.empty()) {
            w.string(pf::track::name, t.name);
        }
        w.end(d);
        w.end(p);
    }

    // Slices of one track must nest: a begin / end stream cannot say that
    // two slices overlap partly (the JSON view can, e.g. the Scheduler View's
    // sub-lanes when a core's slices overlap). Each slice that would break
    // the nesting moves to an overflow track under its thread's, the first
    // one where it nests.
    // The slices are in track order (pf_flow_binder::index()).
    void nest_slices() {
        struct lane {
            std::uint32_t track;
            std::vector<std::int64_t> open_ends;  // a stack: innermost last
        };
        std::vector<lane> lanes;
        std::uint32_t current = none;
        for (slice_rec& s : slices_) {
            if (s.track != current) {
                current = s.track;
                lanes.assign(1, lane{current, {}});
            }
            lane* fit = nullptr;
            for (lane& l : lanes) {
                while (!l.open_ends.empty() && l.open_ends.back() <= s.begin) l.open_ends.pop_back();
                if (l.open_ends.empty() || l.open_ends.back() >= s.end) {
                    fit = &l;
                    break;
                }
            }
            if (!fit) {
                const auto index = static_cast<std::uint32_t>(tracks_.size());
                const track_rec t = tracks_[current];
                tracks_.push_back({track_rec::overflow, t.pid, t.tid, t.name, uuid_of(current)});
                lanes.push_back(lane{index, {}});
                fit = &lanes.back();
            }
            fit->open_ends.push_back(s.end);
            s.track = fit->track;
        }
    }

    // The counter packets by (time, order written): mostly written in time
    // order already.
    std::vector<std::uint32_t> sorted_counters() const {
        const auto& packets = points_.packets;
        std::vector<std::uint32_t> order(packets.size());
        for (std::uint32_t c = 0; c < packets.size(); ++c) order[c] = c;
        const auto by_time = [&](std::uint32_t a, std::uint32_t b) { return packets[a].ts < packets[b].ts; };
        if (!std::is_sorted(order.begin(), order.end(), by_time)) std::stable_sort(order.begin(), order.end(), by_time);
        return order;
    }

    // Appends the packets of items [lo, hi) to `out`; `last`: the clock
    // before items[lo].
    void encode(const std::vector<item>& items, std::size_t lo, std::size_t hi, std::int64_t last,
                byte_buffer& out) const {
        basic_protobuf_writer<byte_buffer> w(out);
        // Delta timestamps never go back: items are sorted by time. A
        // negative time (possible with --lenient) is clamped to 0.
        for (std::size_t i = lo; i < hi; ++i) {
            const item& it = items[i];
            const auto p = w.begin(pf::trace_packet);
            const std::int64_t t = std::max<std::int64_t>(it.ts, 0);
            w.varint(pf::packet::timestamp, static_cast<std::uint64_t>(t - last));
            last = t;
            w.varint(pf::packet::trusted_packet_sequence_id, sequence_id);
            w.varint(pf::packet::sequence_flags, pf::packet::seq_needs_incremental_state);
            if (it.interns) write_interned(w, slices_[it.index]);
            const auto e = w.begin(pf::packet::track_event);
            write_event(w, it);
            w.end(e);
            w.end(p);
        }
    }

    // Interned data on the packet of the slice that first uses a name.
    // Categories and argument names (a few dozen) all go on the first packet.
    template <class W>
    void write_interned(W& w, const slice_rec& s) const {
        const auto m = w.begin(pf::packet::interned_data);
        interned_entry(w, pf::interned::event_names, s.name, names_.order[s.name - 1]);
        w.end(m);
    }
    template <class W>
    static void interned_entry(W& w, std::uint32_t field, std::uint32_t iid, std::string_view text) {
        const auto e = w.begin(field);
        w.varint(pf::interned::iid, iid);
        w.string(pf::interned::name, text);
        w.end(e);
    }

    template <class W>
    void write_event(W& w, const item& it) const {
        switch (it.closing ? item::end : it.kind) {
        case item::begin: {
            const slice_rec& s = slices_[it.index];
            w.varint(pf::event::type, pf::event::type_slice_begin);
            w.varint(pf::event::track_uuid, uuid_of(s.track));
            w.varint(pf::event::category_iids, s.cat);
            if (s.name != 0) w.varint(pf::event::name_iid, s.name);
            w.raw(std::string_view(args_).substr(s.args_at, s.args_size));
            for (auto [f, last] = flows_.of(it.index); f != last; ++f) write_flow_id(w, *f);
            break;
        }
        case item::end:
            w.varint(pf::event::type, pf::event::type_slice_end);
            w.varint(pf::event::track_uuid, uuid_of(slices_[it.index].track));
            break;
        case item::instant: {
            const orphan_rec& f = orphans_[it.index];
            w.varint(pf::event::type, pf::event::type_instant);
            w.varint(pf::event::track_uuid, uuid_of(f.track));
            w.string(pf::event::name, "flow");
            write_flow_id(w, f.tagged);
            break;
        }
        case item::counter: {
            const pf_counter_points::packet& c = points_.packets[it.index];
            const std::vector<std::uint32_t>& tracks = points_.shapes[c.shape];
            const std::int64_t* values = points_.values.data() + c.values_at;
            w.varint(pf::event::type, pf::event::type_counter);
            w.varint(pf::event::track_uuid, uuid_of(tracks[0]));
            w.int64(pf::event::counter_value, values[0]);
            for (std::size_t k = 1; k < tracks.size(); ++k) {
                w.varint(pf::event::extra_counter_track_uuids, uuid_of(tracks[k]));
            }
            for (std::size_t k = 1; k < tracks.size(); ++k) w.int64(pf::event::extra_counter_values, values[k]);
            break;
        }
        }
    }
    // Perfetto's flow ids are global to the trace and 0 means none: the JSON
    // view's id + 1.
    template <class W>
    static void write_flow_id(W& w, std::uint32_t tagged) {
        w.fixed64((tagged & starts_bit) != 0 ? pf::event::flow_ids : pf::event::terminating_flow_ids,
                  static_cast<std::uint64_t>(tagged & ~starts_bit) + 1);
    }

    static constexpr std::uint32_t none = ~0u;
    std::vector<track_rec> tracks_;
    std::unordered_map<int, std::uint32_t> processes_;
    std::unordered_map<std::uint64_t, std::uint32_t> threads_;
    struct thread_slot {
        std::uint64_t key = 0;
        std::uint32_t index = ~0u;
    };
    static constexpr unsigned thread_cache_bits = 8;
    std::array<thread_slot, std::size_t{1} << thread_cache_bits> thread_cache_{};
    std::map<std::pair<int, std::string>, std::uint32_t> counter_tracks_;
    pf_interner categories_, names_, arg_names_;
    std::string args_;  // every slice's encoded debug annotations
    std::vector<slice_rec> slices_;
    pf_flow_binder binder_;
    pf_slice_flows flows_;  // the slices' flow endpoints
    pf_counter_points points_;
    std::vector<std::uint32_t> single_shape_;  // a counter track -> its one-track shape
    int last_shape_pid_ = 0;
    std::uint32_t last_shape_ = ~0u;
    std::vector<std::string> last_shape_names_;
    std::vector<orphan_rec> orphans_;  // endpoints with no slice: instants
    // Last, so it stops before the tables it watches are freed.
    bool reserved_ = false;
    prefault_ahead ahead_;
    prefault_ahead::range_id ahead_slices_ = prefault_ahead::no_range, ahead_args_ = prefault_ahead::no_range,
                             ahead_links_ = prefault_ahead::no_range, ahead_packets_ = prefault_ahead::no_range,
                             ahead_values_ = prefault_ahead::no_range;
};

}  // namespace dfx::convert::swimlane::trace
