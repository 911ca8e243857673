// perfetto_packets: the swimlane trace as Perfetto's native protobuf format
// (a `Trace` of `TracePacket`s), the second backend of event_sink
// (event_shapes.hpp) beside the JSON one. The field numbers below are
// Perfetto's (protos/perfetto/trace/: trace_packet.proto, clock_snapshot.proto,
// track_event/{track_event,track_descriptor,process_descriptor,
// thread_descriptor,counter_descriptor,debug_annotation}.proto,
// interned_data/interned_data.proto); they are stable by protobuf's contract.
//
// What the JSON view has, the protobuf trace has, on one packet sequence:
//   process_name / thread_name  -> TrackDescriptors (ProcessDescriptor,
//                                  ThreadDescriptor), one per pid / (pid, tid)
//   "X" slice                   -> TYPE_SLICE_BEGIN + TYPE_SLICE_END, with the
//                                  name interned, the category interned and
//                                  the args as interned-name debug annotations
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
// events (compactly, a few dozen bytes each) and writes them at finish(),
// sorted by time: timestamps are deltas of a sequence-scoped incremental
// clock (1-3 bytes instead of 6), interned data is emitted with the first
// packet that uses it.
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
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <thread>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dfx/convert/common/protobuf_writer.hpp"

namespace dfx::convert::swimlane::trace {

// ---- field numbers (Perfetto's protos) ----
namespace pf {
inline constexpr std::uint32_t trace_packet = 1;  // Trace.packet

namespace packet {  // TracePacket
inline constexpr std::uint32_t clock_snapshot = 6;
inline constexpr std::uint32_t timestamp = 8;
inline constexpr std::uint32_t trusted_packet_sequence_id = 10;
inline constexpr std::uint32_t track_event = 11;
inline constexpr std::uint32_t interned_data = 12;
inline constexpr std::uint32_t sequence_flags = 13;
inline constexpr std::uint32_t trace_packet_defaults = 59;
inline constexpr std::uint32_t track_descriptor = 60;
inline constexpr std::uint64_t seq_incremental_state_cleared = 1;
inline constexpr std::uint64_t seq_needs_incremental_state = 2;
}  // namespace packet

namespace clock {  // ClockSnapshot, ClockSnapshot.Clock
inline constexpr std::uint32_t clocks = 1;
inline constexpr std::uint32_t primary_trace_clock = 2;
inline constexpr std::uint32_t clock_id = 1;
inline constexpr std::uint32_t timestamp = 2;
inline constexpr std::uint32_t is_incremental = 3;
inline constexpr std::uint64_t builtin_boottime = 6;
inline constexpr std::uint64_t sequence_clock = 64;  // 64..127: scoped to the sequence
}  // namespace clock

namespace defaults {  // TracePacketDefaults
inline constexpr std::uint32_t timestamp_clock_id = 58;
}

namespace track {  // TrackDescriptor
inline constexpr std::uint32_t uuid = 1;
inline constexpr std::uint32_t name = 2;
inline constexpr std::uint32_t process = 3;
inline constexpr std::uint32_t thread = 4;
inline constexpr std::uint32_t parent_uuid = 5;
inline constexpr std::uint32_t counter = 8;
}  // namespace track
namespace process {  // ProcessDescriptor
inline constexpr std::uint32_t pid = 1;
inline constexpr std::uint32_t process_name = 6;
}  // namespace process
namespace thread {  // ThreadDescriptor
inline constexpr std::uint32_t pid = 1;
inline constexpr std::uint32_t tid = 2;
inline constexpr std::uint32_t thread_name = 5;
}  // namespace thread

namespace event {  // TrackEvent
inline constexpr std::uint32_t category_iids = 3;
inline constexpr std::uint32_t debug_annotations = 4;
inline constexpr std::uint32_t type = 9;
inline constexpr std::uint32_t name_iid = 10;
inline constexpr std::uint32_t name = 23;
inline constexpr std::uint32_t track_uuid = 11;
inline constexpr std::uint32_t extra_counter_values = 12;       // repeated int64
inline constexpr std::uint32_t counter_value = 30;
inline constexpr std::uint32_t extra_counter_track_uuids = 31;  // repeated uint64
inline constexpr std::uint32_t flow_ids = 47;              // repeated fixed64
inline constexpr std::uint32_t terminating_flow_ids = 48;  // repeated fixed64
inline constexpr std::uint64_t type_slice_begin = 1;
inline constexpr std::uint64_t type_slice_end = 2;
inline constexpr std::uint64_t type_instant = 3;
inline constexpr std::uint64_t type_counter = 4;
}  // namespace event

namespace annotation {  // DebugAnnotation
inline constexpr std::uint32_t name_iid = 1;
inline constexpr std::uint32_t int_value = 4;
inline constexpr std::uint32_t double_value = 5;
inline constexpr std::uint32_t string_value = 6;
}  // namespace annotation

namespace interned {  // InternedData; EventCategory, EventName, DebugAnnotationName are {iid = 1, name = 2}
inline constexpr std::uint32_t event_categories = 1;
inline constexpr std::uint32_t event_names = 2;
inline constexpr std::uint32_t debug_annotation_names = 3;
inline constexpr std::uint32_t iid = 1;
inline constexpr std::uint32_t name = 2;
}  // namespace interned
}  // namespace pf

// One argument of a slice: an integer, a double or a string.
struct pf_arg {
    enum kind_t : std::uint8_t { integer, real, text };
    std::string_view name;
    kind_t kind = integer;
    std::int64_t i = 0;
    double d = 0;
    std::string_view s{};
    static pf_arg of(std::string_view n, std::int64_t v) { return {n, integer, v, 0, {}}; }
    static pf_arg of_us(std::string_view n, double v) { return {n, real, 0, v, {}}; }
    static pf_arg of_text(std::string_view n, std::string_view v) { return {n, text, 0, 0, v}; }
};

// A slice as the sections describe it (times in µs, as in the JSON view).
struct pf_slice {
    std::string_view cat;
    std::string_view name;
    int pid;
    std::int64_t tid;
    double ts_us;
    double dur_us;
    std::int64_t event_id = -1;  // the JSON "id" flows bind to, or -1
};

class perfetto_trace {
public:
    // µs (the JSON view's unit, 3 decimals) -> ns.
    static std::int64_t ns(double us) { return std::llround(us * 1000.0); }

    // Room for about `slices` slices and `flows` flow endpoints (a hint:
    // growing the tables and the name map is what the collection costs most).
    void reserve(std::size_t slices, std::size_t flows) {
        slices_.reserve(slices);
        flows_.reserve(flows);
        names_.ids.reserve(slices / 2);
        names_.order.reserve(slices / 2);
    }

    // ---- tracks ----
    void process_name(int pid, std::string_view name) { process_track(pid).name = std::string(name); }
    void thread_name(int pid, std::int64_t tid, std::string_view name) {
        tracks_[thread_track(pid, tid)].name = std::string(name);
    }

    // ---- events ----
    template <class Args>
    void slice(const pf_slice& s, const Args& args) {
        slice_rec r;
        r.track = thread_track(s.pid, s.tid);
        r.cat = intern(categories_, s.cat);
        r.name = intern(names_, s.name);
        r.begin = ns(s.ts_us);
        r.end = r.begin + ns(s.dur_us);
        r.event_id = s.event_id;
        r.args_at = static_cast<std::uint32_t>(args_.size());
        protobuf_writer w(args_);
        for (const pf_arg& a : args) {
            const auto m = w.begin(pf::event::debug_annotations);
            w.varint(pf::annotation::name_iid, intern(arg_names_, a.name));
            if (a.kind == pf_arg::integer) w.int64(pf::annotation::int_value, a.i);
            if (a.kind == pf_arg::real) w.double_value(pf::annotation::double_value, a.d);
            if (a.kind == pf_arg::text) w.string(pf::annotation::string_value, a.s);
            w.end(m);
        }
        r.args_size = static_cast<std::uint32_t>(args_.size() - r.args_at);
        slices_.push_back(r);
    }
    // A flow endpoint ('s' starts flow `id`, 'f' ends it); bind_id < 0: the
    // enclosing slice of (pid, tid) at ts.
    void flow(std::int64_t id, char ph, int pid, std::int64_t tid, double ts_us, std::int64_t bind_id) {
        flows_.push_back({id, thread_track(pid, tid), ns(ts_us), bind_id, ph == 's'});
    }
    // A point of the counter track `name` of process `pid`.
    void counter(int pid, std::string_view name, double ts_us, std::int64_t value) {
        counters_.push_back({counter_track(pid, name), ns(ts_us), value});
    }
    // Points of several counter tracks at one time: one packet, the first
    // as its TYPE_COUNTER event, the others as its extra counter values.
    void counters(int pid, std::initializer_list<std::pair<std::string_view, std::int64_t>> points, double ts_us) {
        const std::int64_t t = ns(ts_us);
        bool first = true;
        for (const auto& [name, value] : points) {
            counters_.push_back({counter_track(pid, name), t, value, first ? static_cast<std::uint8_t>(points.size() - 1)
                                                                            : std::uint8_t{0}, !first});
            first = false;
        }
    }
    [[nodiscard]] std::size_t slices() const noexcept { return slices_.size(); }

    // Appends the whole Trace to `out`, in chunks through `flush(out)`, which
    // may empty it (a file writer's flush).
    template <class Flush>
    void finish(std::string& out, Flush&& flush) {
        // Two cores: the time order of the slices and counters is sorted on
        // a second thread while the flows are attached and the slices nested
        // (which read and write other fields).
        std::vector<item> items;
        std::thread sorter([&] { items = sorted_items(); });
        try {
            const std::vector<std::uint32_t> by_track = slices_by_track();
            attach_flows(by_track);
            nest_slices(by_track);
        } catch (...) {
            sorter.join();
            throw;
        }
        sorter.join();
        add_orphan_items(items);
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
        // The packets, in blocks encoded two at a time (this thread and one
        // more), written in order.
        const std::vector<std::uint32_t> first_use = first_uses(items);
        constexpr std::size_t block = std::size_t{1} << 16;
        std::string other;
        for (std::size_t lo = 0; lo < items.size(); lo += 2 * block) {
            const std::size_t mid = std::min(items.size(), lo + block), hi = std::min(items.size(), lo + 2 * block);
            std::thread second;
            if (mid < hi) second = std::thread([&, mid, hi] { encode(items, first_use, mid, hi, other); });
            try {
                encode(items, first_use, lo, mid, out);
            } catch (...) {
                if (second.joinable()) second.join();
                throw;
            }
            flush(out);
            if (second.joinable()) {
                second.join();
                flush(other);
            }
        }
        flush(out);
    }

    static constexpr std::uint64_t sequence_id = 1;

private:
    // Strings by iid. The texts live in fixed blocks, so the views the map
    // keys on stay valid as it grows (names are mostly one per task).
    struct interner {
        std::unordered_map<std::string_view, std::uint32_t> ids;
        std::vector<std::string_view> order;  // iid - 1 -> text
        std::vector<std::unique_ptr<char[]>> blocks;
        std::size_t left = 0;
        char* at = nullptr;
        std::string_view keep(std::string_view text) {
            if (text.size() > left) {
                const std::size_t size = std::max<std::size_t>(text.size(), std::size_t{1} << 16);
                blocks.push_back(std::make_unique<char[]>(size));
                at = blocks.back().get();
                left = size;
            }
            std::copy(text.begin(), text.end(), at);
            const std::string_view kept(at, text.size());
            at += text.size();
            left -= text.size();
            return kept;
        }
    };
    static std::uint32_t intern(interner& in, std::string_view s) {
        const auto found = in.ids.find(s);
        if (found != in.ids.end()) return found->second;
        const std::string_view kept = in.keep(s);
        const auto iid = static_cast<std::uint32_t>(in.order.size() + 1);
        in.ids.emplace(kept, iid);
        in.order.push_back(kept);
        return iid;
    }
    struct track_rec {
        enum kind_t : std::uint8_t { process, thread, counter, overflow } kind;
        int pid;
        std::int64_t tid;
        std::string name;
        std::uint64_t parent = 0;
    };
    struct slice_rec {
        std::uint32_t track = 0, cat = 0, name = 0;
        std::uint32_t args_at = 0, args_size = 0;
        std::int64_t begin = 0, end = 0, event_id = -1;
        std::uint32_t flows_at = 0, flows_size = 0;  // into attached_
    };
    struct flow_rec {
        std::int64_t id;
        std::uint32_t track;
        std::int64_t ts;
        std::int64_t bind_id;
        bool starts;
    };
    struct counter_rec {
        std::uint32_t track;
        std::int64_t ts;
        std::int64_t value;
        std::uint8_t extra = 0;  // points that follow in this packet
        bool follows = false;    // written with the point before it
    };
    struct item {
        enum kind_t : std::uint8_t { end = 0, begin = 1, instant = 2, counter = 3 };
        std::int64_t ts;
        std::int64_t order;  // ties at one ts: see sorted_items()
        std::uint32_t index;
        kind_t kind;
        bool closing = false;  // a zero-length slice's end, right after its begin
        bool operator<(const item& o) const {
            if (ts != o.ts) return ts < o.ts;
            if (kind != o.kind) return kind < o.kind;
            if (order != o.order) return order < o.order;
            if (index != o.index) return index < o.index;
            return closing < o.closing;
        }
    };

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
        // Events come in runs on one track: the last one is checked first.
        if (key == last_thread_key_ && last_thread_ != none) return last_thread_;
        auto found = threads_.find(key);
        if (found != threads_.end()) {
            last_thread_key_ = key;
            return last_thread_ = found->second;
        }
        process_track(pid);
        const auto index = static_cast<std::uint32_t>(tracks_.size());
        tracks_.push_back({track_rec::thread, pid, tid, {}, uuid_of(processes_.at(pid))});
        threads_.emplace(key, index);
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

    // Slice indices by (track, begin, end descending, index): outer slices
    // before the ones they hold; of equal ones, the later written is inner.
    std::vector<std::uint32_t> slices_by_track() const {
        std::vector<std::uint32_t> order(slices_.size());
        for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
            const slice_rec &x = slices_[a], &y = slices_[b];
            if (x.track != y.track) return x.track < y.track;
            if (x.begin != y.begin) return x.begin < y.begin;
            if (x.end != y.end) return x.end > y.end;
            return a < b;
        });
        return order;
    }

    // Each flow endpoint onto the slice it binds to: by event id, else the
    // innermost slice of its track that holds its time (of equal ones, the
    // last written). `by_track`: slices_by_track().
    void attach_flows(const std::vector<std::uint32_t>& by_track) {
        // Event ids are dense (index.hpp numbers them in runs): a table.
        std::int64_t max_id = -1;
        for (const slice_rec& r : slices_) max_id = std::max(max_id, r.event_id);
        // (trace_index numbers slices from 0 in runs, so the table is small.)
        std::vector<std::uint32_t> by_id(static_cast<std::size_t>(max_id + 1), none);
        for (std::uint32_t i = 0; i < slices_.size(); ++i) {
            if (slices_[i].event_id >= 0) by_id[static_cast<std::size_t>(slices_[i].event_id)] = i;
        }
        // Where each track's run starts in by_track.
        std::vector<std::uint32_t> track_start(tracks_.size() + 1, 0);
        for (const std::uint32_t i : by_track) ++track_start[slices_[i].track + 1];
        for (std::size_t t = 1; t < track_start.size(); ++t) track_start[t] += track_start[t - 1];
        // Begins and ends in by_track order, contiguous: the searches below
        // touch these, not the slices.
        std::vector<std::int64_t> begins(by_track.size()), ends(by_track.size());
        for (std::size_t k = 0; k < by_track.size(); ++k) {
            begins[k] = slices_[by_track[k]].begin;
            ends[k] = slices_[by_track[k]].end;
        }
        std::vector<std::uint32_t> target(flows_.size(), none);
        for (std::uint32_t f = 0; f < flows_.size(); ++f) {
            const flow_rec& fl = flows_[f];
            if (fl.bind_id >= 0 && fl.bind_id <= max_id) {
                const std::uint32_t s = by_id[static_cast<std::size_t>(fl.bind_id)];
                if (s != none && slices_[s].track == fl.track) {
                    target[f] = s;
                    continue;
                }
            }
            if (fl.track >= tracks_.size()) continue;
            // The last slice of the track beginning at or before ts, going
            // back past the ones that end before it (few: lanes rarely nest).
            const auto lo = begins.begin() + track_start[fl.track];
            auto hi = std::upper_bound(lo, begins.begin() + track_start[fl.track + 1], fl.ts);
            for (int steps = 0; hi != lo && steps < 64; ++steps) {
                --hi;
                const auto k = static_cast<std::size_t>(hi - begins.begin());
                if (ends[k] >= fl.ts) {
                    target[f] = by_track[k];
                    break;
                }
            }
        }
        // Group the endpoints by slice (a counting sort, in flow order).
        for (std::uint32_t f = 0; f < flows_.size(); ++f) {
            if (target[f] == none) {
                orphan_flows_.push_back(f);
            } else {
                ++slices_[target[f]].flows_size;
            }
        }
        std::uint32_t next = 0;
        for (slice_rec& r : slices_) {
            r.flows_at = next;
            next += r.flows_size;
            r.flows_size = 0;
        }
        attached_.assign(next, 0);
        for (std::uint32_t f = 0; f < flows_.size(); ++f) {
            if (target[f] == none) continue;
            slice_rec& r = slices_[target[f]];
            attached_[r.flows_at + r.flows_size++] = f;
        }
    }

    // Slices of one track must nest: a begin / end stream cannot say that
    // two slices overlap partly (the JSON view can, e.g. the Scheduler View's
    // sub-lanes when a core's slices overlap). Each slice that would break
    // the nesting moves to an overflow track under its thread's, the first
    // one where it nests.
    void nest_slices(const std::vector<std::uint32_t>& by_track) {
        struct lane {
            std::uint32_t track;
            std::vector<std::int64_t> open_ends;  // a stack: innermost last
        };
        std::vector<lane> lanes;
        std::uint32_t current = none;
        for (const std::uint32_t i : by_track) {
            slice_rec& s = slices_[i];
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

    // Every event's packet in time order. At one timestamp: slice ends
    // first (the later-begun first), then begins (the longer first, so the
    // shorter nests inside), instants and counters last. A zero-length slice
    // writes its end right after its begin.
    std::vector<item> sorted_items() const {
        std::vector<item> items;
        items.reserve(2 * slices_.size() + counters_.size());
        for (std::uint32_t i = 0; i < slices_.size(); ++i) {
            const slice_rec& s = slices_[i];
            items.push_back({s.begin, -(s.end - s.begin), i, item::begin});
            if (s.end != s.begin) {
                items.push_back({s.end, -s.begin, i, item::end});
            } else {
                items.push_back({s.begin, 0, i, item::begin, true});
            }
        }
        for (std::uint32_t c = 0; c < counters_.size(); ++c) {
            if (!counters_[c].follows) items.push_back({counters_[c].ts, 0, c, item::counter});
        }
        std::sort(items.begin(), items.end());
        return items;
    }

    // Orphan flow endpoints (no slice holds them) as instants, merged into
    // the sorted items.
    void add_orphan_items(std::vector<item>& items) const {
        const auto sorted = static_cast<std::ptrdiff_t>(items.size());
        for (std::uint32_t f : orphan_flows_) items.push_back({flows_[f].ts, 0, f, item::instant});
        std::sort(items.begin() + sorted, items.end());
        std::inplace_merge(items.begin(), items.begin() + sorted, items.end());
    }

    // For each name, the item of the first slice begin that uses it: its
    // packet carries the interned name.
    std::vector<std::uint32_t> first_uses(const std::vector<item>& items) const {
        std::vector<std::uint32_t> first(names_.order.size(), none);
        for (std::uint32_t i = 0; i < items.size(); ++i) {
            const item& it = items[i];
            if (it.kind != item::begin || it.closing) continue;
            std::uint32_t& f = first[slices_[it.index].name - 1];
            if (f == none) f = i;
        }
        return first;
    }

    // Appends the packets of items [lo, hi) to `out`.
    void encode(const std::vector<item>& items, const std::vector<std::uint32_t>& first_use, std::size_t lo,
                std::size_t hi, std::string& out) const {
        protobuf_writer w(out);
        // Delta timestamps never go back: items are sorted by time. A
        // negative time (possible with --lenient) is clamped to 0.
        std::int64_t last = lo == 0 ? 0 : std::max<std::int64_t>(items[lo - 1].ts, 0);
        for (std::size_t i = lo; i < hi; ++i) {
            const item& it = items[i];
            const auto p = w.begin(pf::trace_packet);
            const std::int64_t t = std::max<std::int64_t>(it.ts, 0);
            w.varint(pf::packet::timestamp, static_cast<std::uint64_t>(t - last));
            last = t;
            w.varint(pf::packet::trusted_packet_sequence_id, sequence_id);
            w.varint(pf::packet::sequence_flags, pf::packet::seq_needs_incremental_state);
            if (it.kind == item::begin && !it.closing && first_use[slices_[it.index].name - 1] == i) {
                write_interned(w, slices_[it.index]);
            }
            const auto e = w.begin(pf::packet::track_event);
            write_event(w, it);
            w.end(e);
            w.end(p);
        }
    }

    // Interned data on the packet of the slice that first uses a name.
    // Categories and argument names (a few dozen) all go on the first packet.
    void write_interned(protobuf_writer& w, const slice_rec& s) const {
        const auto m = w.begin(pf::packet::interned_data);
        interned_entry(w, pf::interned::event_names, s.name, names_.order[s.name - 1]);
        w.end(m);
    }
    static void interned_entry(protobuf_writer& w, std::uint32_t field, std::uint32_t iid, std::string_view text) {
        const auto e = w.begin(field);
        w.varint(pf::interned::iid, iid);
        w.string(pf::interned::name, text);
        w.end(e);
    }

    void write_event(protobuf_writer& w, const item& it) const {
        switch (it.closing ? item::end : it.kind) {
        case item::begin: {
            const slice_rec& s = slices_[it.index];
            w.varint(pf::event::type, pf::event::type_slice_begin);
            w.varint(pf::event::track_uuid, uuid_of(s.track));
            w.varint(pf::event::category_iids, s.cat);
            w.varint(pf::event::name_iid, s.name);
            w.raw(std::string_view(args_).substr(s.args_at, s.args_size));
            for (std::uint32_t k = s.flows_at; k < s.flows_at + s.flows_size; ++k) write_flow_id(w, flows_[attached_[k]]);
            break;
        }
        case item::end:
            w.varint(pf::event::type, pf::event::type_slice_end);
            w.varint(pf::event::track_uuid, uuid_of(slices_[it.index].track));
            break;
        case item::instant: {
            const flow_rec& f = flows_[it.index];
            w.varint(pf::event::type, pf::event::type_instant);
            w.varint(pf::event::track_uuid, uuid_of(f.track));
            w.string(pf::event::name, "flow");
            write_flow_id(w, f);
            break;
        }
        case item::counter: {
            const counter_rec& c = counters_[it.index];
            w.varint(pf::event::type, pf::event::type_counter);
            w.varint(pf::event::track_uuid, uuid_of(c.track));
            w.int64(pf::event::counter_value, c.value);
            for (std::uint32_t k = 1; k <= c.extra; ++k) {
                w.varint(pf::event::extra_counter_track_uuids, uuid_of(counters_[it.index + k].track));
            }
            for (std::uint32_t k = 1; k <= c.extra; ++k) {
                w.int64(pf::event::extra_counter_values, counters_[it.index + k].value);
            }
            break;
        }
        }
    }
    // Perfetto's flow ids are global to the trace and 0 means none: the JSON
    // view's id + 1.
    static void write_flow_id(protobuf_writer& w, const flow_rec& f) {
        w.fixed64(f.starts ? pf::event::flow_ids : pf::event::terminating_flow_ids, static_cast<std::uint64_t>(f.id) + 1);
    }

    static constexpr std::uint32_t none = ~0u;
    std::vector<track_rec> tracks_;
    std::unordered_map<int, std::uint32_t> processes_;
    std::unordered_map<std::uint64_t, std::uint32_t> threads_;
    std::uint64_t last_thread_key_ = 0;
    std::uint32_t last_thread_ = ~0u;
    std::map<std::pair<int, std::string>, std::uint32_t> counter_tracks_;
    interner categories_, names_, arg_names_;
    std::string args_;  // every slice's encoded debug annotations
    std::vector<slice_rec> slices_;
    std::vector<flow_rec> flows_;
    std::vector<counter_rec> counters_;
    std::vector<std::uint32_t> attached_;      // flow indices, grouped per slice
    std::vector<std::uint32_t> orphan_flows_;  // endpoints with no slice: instants
};

}  // namespace dfx::convert::swimlane::trace
