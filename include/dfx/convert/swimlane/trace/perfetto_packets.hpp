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
//   "s" / "f" flow endpoints    -> flow_ids / terminating_flow_ids on the END
//                                  of the slice they bind to (bind_id, else
//                                  the enclosing slice of the track at ts); an
//                                  endpoint with no slice becomes a
//                                  TYPE_INSTANT carrying it
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
// Two passes, so that nothing is kept per slice but a 32-byte skeleton.
// The flows come after every slice and bind to slices, so the slices' ends
// (which carry the flows) can only be written once every flow is in; their
// begins (name, category, args: most of the bytes) need nothing from later.
// trace_processor sorts a whole trace by (timestamp, position in the file)
// before it reads it (its TraceSorter, for a file with no flush events), so
// the packets need not come in time order, only in the right order where
// their times are equal. Hence:
//   1. the sections run once: each slice is kept as a skeleton (track,
//      times, event id, order written), each flow endpoint is bound to one,
//      each counter call names its tracks;
//   2. write_ends(): the slices are nested (overflow tracks), and the header,
//      the track descriptors and every slice's END with its flows are
//      written, then the flows that bind to no slice as instants;
//   3. the slice and counter sections run a second time, the same calls in
//      the same order: each BEGIN and counter packet is written as it comes
//      (a zero-length slice's END right after its BEGIN).
// Written before every BEGIN, an END always precedes a BEGIN at the same
// time on its track; ENDs at one time come innermost first (the skeletons
// are walked backwards in nesting order). BEGINs at one time on one track
// must come outer first: where the sections wrote a shorter one before a
// longer one that begins with it, the group is held back until its last
// member comes and then written in nesting order (rare). Timestamps are
// absolute (ns; a delta clock would need time order), and interned data
// goes on the first packet in the file that uses it.
//
//   perfetto_trace pb;
//   pb.process_name(4, "Worker View");
//   pb.slice({"event", "QK(t7)", 4, 10000, ts_us, dur_us, event_id}, args);   // pass 1
//   pb.flow(flow_id, 's', 4, 10000, ts_us, event_id);
//   pb.counters(2, {{"shared_ready_queue AIC", 3}, {"shared_ready_queue AIV", 0}}, ts_us);
//   pb.write_ends([&](std::string_view bytes) { file.append(bytes); });
//   pb.slice({"event", "QK(t7)", 4, 10000, ts_us, dur_us, event_id}, args);   // pass 2
//   pb.counters(2, {{"shared_ready_queue AIC", 3}, {"shared_ready_queue AIV", 0}}, ts_us);
//   pb.finish();   // the last bytes through the sink; checks both passes matched
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <stdexcept>
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

    // Room for about `slices` slice skeletons and `flows` flow endpoints (a
    // hint: growing a table copies it, and the copy and the old one are both
    // resident for a moment; room reserved but never touched costs nothing).
    // The room is faulted in on a second thread a little ahead of the
    // writes (prefault_ahead.hpp), until it runs out or write_ends() begins.
    void reserve(std::size_t slices, std::size_t flows) {
        const bool again = std::exchange(reserved_, true);
        if (again) ahead_.stop();  // the rooms may move: not watched any more
        slices_.reserve(slices);
        flows_.reserve(flows);
        if (again) return;
        ahead_slices_ = ahead_.watch(slices_.data(), slices_.capacity() * sizeof(slice_rec));
        const auto& arrivals = flows_.arrivals();
        ahead_links_ = ahead_.watch(arrivals.data(), arrivals.capacity() * sizeof(pf_slice_flows::arrival));
        ahead_.start();
    }

    // ---- tracks ----
    void process_name(int pid, std::string_view name) { process_track(pid).name = std::string(name); }
    void thread_name(int pid, std::int64_t tid, std::string_view name) {
        tracks_[thread_track(pid, tid)].name = std::string(name);
    }

    // ---- events ----
    // A slice: its skeleton in the first pass, its BEGIN (and a zero-length
    // one's END) in the second.
    template <class Args = std::initializer_list<pf_arg>>
    void slice(const pf_slice& s, const Args& args) {
        const std::uint32_t track = thread_track(s.pid, s.tid);
        const std::int64_t begin = std::max<std::int64_t>(ns(s.ts_us), 0);  // (negative: only with --lenient)
        const std::int64_t end = std::max<std::int64_t>(begin + ns(s.dur_us), begin);
        both_passes_.add(track, begin, end);
        if (second_) return begin_event(s, args, track, begin, end);
        if (binder_.indexed()) throw std::logic_error("perfetto_trace: a slice after the first flow");
        slice_rec r;
        r.track = track;
        r.begin = begin;
        r.end = end;
        r.event_id = s.event_id < 0 ? slice_rec::no_id : pf_narrow<std::uint32_t>(s.event_id, "event id");
        r.seq = pf_narrow<std::uint32_t>(slices_.size(), "slices");
        before_growing(slices_, 1);
        slices_.push_back(r);
        ahead_.wrote(ahead_slices_, slices_.size() * sizeof(slice_rec));
    }
    // A flow endpoint ('s' starts flow `id`, 'f' ends it); bind_id < 0: the
    // enclosing slice of (pid, tid) at ts. First pass only, after every
    // slice: it is bound now.
    void flow(std::int64_t id, char ph, int pid, std::int64_t tid, double ts_us, std::int64_t bind_id) {
        if (second_) throw std::logic_error("perfetto_trace: a flow in the second pass");
        if (id < 0 || id >= std::int64_t{1} << 31) throw std::length_error("perfetto_trace: flow id out of range");
        const std::uint32_t tagged = static_cast<std::uint32_t>(id) | (ph == 's' ? starts_bit : 0u);
        const std::uint32_t track = thread_track(pid, tid);
        if (!binder_.indexed()) binder_.index(slices_, tracks_.size());
        const std::int64_t ts = std::max<std::int64_t>(ns(ts_us), 0);
        const std::uint32_t s = binder_.bind(slices_, track, ts, bind_id);
        if (s == pf_flow_binder::none) return orphans_.push_back({ts, track, tagged});
        before_growing(flows_.arrivals(), 1);
        pf_narrow<std::uint32_t>(flows_.arrivals().size() + 1, "flow endpoints");  // (grouped with 32-bit offsets)
        flows_.add(s, tagged);
        ahead_.wrote(ahead_links_, flows_.arrivals().size() * sizeof(pf_slice_flows::arrival));
    }
    // A point of the counter track `name` of process `pid`: its track in the
    // first pass, its packet in the second.
    void counter(int pid, std::string_view name, double ts_us, std::int64_t value) {
        const std::uint32_t track = counter_track(pid, name);
        if (second_) counter_event(ns(ts_us), &track, &value, 1);
    }
    // Points of several counter tracks at one time: one packet, the first
    // as its TYPE_COUNTER event, the others as its extra counter values.
    void counters(int pid, std::initializer_list<std::pair<std::string_view, std::int64_t>> points, double ts_us) {
        // The same tracks as the last call (a run of phases)? Else look them up.
        bool same = pid == last_pid_ && points.size() == last_names_.size();
        for (std::size_t i = 0; same && i < points.size(); ++i) same = (points.begin() + i)->first == last_names_[i];
        if (!same) {
            last_tracks_.clear();
            last_names_.clear();
            for (const auto& point : points) {
                last_tracks_.push_back(counter_track(pid, point.first));
                last_names_.emplace_back(point.first);
            }
            last_pid_ = pid;
        }
        if (!second_) return;
        std::array<std::int64_t, 8> values{};
        if (points.size() > values.size()) throw std::length_error("perfetto_trace: more than 8 counters in a packet");
        std::size_t n = 0;
        for (const auto& point : points) values[n++] = point.second;
        counter_event(ns(ts_us), last_tracks_.data(), values.data(), n);
    }
    [[nodiscard]] std::size_t slices() const noexcept { return both_passes_.first_count; }
    [[nodiscard]] bool second_pass() const noexcept { return second_; }

    // Ends the first pass: writes the trace's start, the track descriptors,
    // every slice's END with its flows and the instants, through
    // `sink(std::string_view)` (a file writer's append; it may throw), in
    // blocks of about 1 MiB. The second pass writes through it too.
    template <class Sink>
    void write_ends(Sink&& sink) {
        if (second_) throw std::logic_error("perfetto_trace: write_ends() twice");
        ahead_.stop();  // nothing more is written to the tables
        sink_ = std::forward<Sink>(sink);
        if (!binder_.indexed()) binder_.index(slices_, tracks_.size());
        binder_.release();  // the slices stay in nesting order
        flows_.group(slices_.size());
        nest_slices();
        plan_second_pass();
        basic_protobuf_writer<byte_buffer> w(out_);
        {  // The first packet clears the incremental state: every later one may use interned data.
            const auto p = w.begin(pf::trace_packet);
            w.varint(pf::packet::trusted_packet_sequence_id, sequence_id);
            w.varint(pf::packet::sequence_flags, pf::packet::seq_incremental_state_cleared);
            w.end(p);
        }
        for (std::size_t i = 0; i < tracks_.size(); ++i) write_descriptor(w, i);
        // Backwards in nesting order: at one end, the innermost first.
        for (std::size_t i = slices_.size(); i-- > 0;) {
            const slice_rec& s = slices_[i];
            if (s.end != s.begin) end_event(w, s.end, s.track, static_cast<std::uint32_t>(i));
            maybe_flush();
        }
        for (const orphan_rec& f : orphans_) {
            const auto p = packet(w, f.ts);
            const auto e = w.begin(pf::packet::track_event);
            w.varint(pf::event::type, pf::event::type_instant);
            w.varint(pf::event::track_uuid, uuid_of(f.track));
            w.string(pf::event::name, "flow");
            write_flow_id(w, f.tagged);
            w.end(e);
            w.end(p);
        }
        std::vector<orphan_rec>().swap(orphans_);
        std::vector<slice_rec>().swap(slices_);
        second_ = true;
        both_passes_.second = true;
        flush();
    }

    // Ends the second pass: writes what is left. Throws std::logic_error if
    // the second pass did not hand in the first's slices.
    void finish() {
        if (!second_) throw std::logic_error("perfetto_trace: finish() before write_ends()");
        if (!both_passes_.same() || !held_.empty()) {
            throw std::logic_error("perfetto_trace: the second pass's slices are not the first's");
        }
        flush();
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
    // What the second pass needs of the slice written k-th in the first:
    // its track after nesting (held_bit: its BEGIN is held back), and its
    // place in nesting order (its flows).
    struct planned {
        std::uint32_t track, at;
    };
    static constexpr std::uint32_t held_bit = 1u << 31;
    // BEGINs of one track at one time that the sections wrote in another
    // order than nesting order: held until the last one comes.
    struct held_group {
        std::uint32_t waiting;
        std::vector<std::string> packets;  // by rank in nesting order
    };
    struct held_slot {
        std::uint32_t group, rank;
    };
    // The slices of both passes, folded: the same count and the same
    // (track, begin, end) in the same order, or the trace would be wrong.
    struct pass_check {
        std::size_t first_count = 0, second_count = 0;
        std::uint64_t first_hash = 0, second_hash = 0;
        bool second = false;
        void add(std::uint32_t track, std::int64_t begin, std::int64_t end) noexcept {
            std::uint64_t& h = second ? second_hash : first_hash;
            for (const std::uint64_t v : {std::uint64_t{track}, static_cast<std::uint64_t>(begin),
                                          static_cast<std::uint64_t>(end)}) {
                h = (h ^ v) * 0x100000001B3ull;
                h ^= h >> 29;
            }
            ++(second ? second_count : first_count);
        }
        [[nodiscard]] bool same() const noexcept { return first_count == second_count && first_hash == second_hash; }
    };

    // ---- the first pass's end ----

    // Slices of one track must nest: a begin / end stream cannot say that
    // two slices overlap partly (the JSON view can, e.g. the Scheduler View's
    // sub-lanes when a core's slices overlap). Each slice that would break
    // the nesting moves to an overflow track under its thread's, the first
    // one where it nests. The slices are in nesting order
    // (pf_flow_binder::index(): track, begin, end descending, order written).
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

    // What the second pass needs per slice (by order written), and the
    // groups of BEGINs it must hold back: slices of one (track, begin) that
    // were written in another order than nesting order.
    void plan_second_pass() {
        plan_.assign(slices_.size(), planned{});
        for (std::uint32_t i = 0; i < slices_.size(); ++i) plan_[slices_[i].seq] = {slices_[i].track, i};
        std::vector<std::uint32_t> same_time;  // one run of (thread, begin), then one track's part of it
        for (std::size_t lo = 0, hi = 0; lo < slices_.size(); lo = hi) {
            hi = lo + 1;
            while (hi < slices_.size() && slices_[hi].begin == slices_[lo].begin &&
                   thread_of(slices_[hi].track) == thread_of(slices_[lo].track)) {
                ++hi;
            }
            if (hi - lo < 2) continue;
            // Per track after nesting (a few tracks at most), in nesting order.
            std::vector<std::uint32_t> done;
            for (std::size_t i = lo; i < hi; ++i) {
                const std::uint32_t track = slices_[i].track;
                if (std::find(done.begin(), done.end(), track) != done.end()) continue;
                done.push_back(track);
                same_time.clear();
                for (std::size_t j = i; j < hi; ++j) {
                    if (slices_[j].track == track) same_time.push_back(static_cast<std::uint32_t>(j));
                }
                bool in_order = true;
                for (std::size_t k = 1; in_order && k < same_time.size(); ++k) {
                    in_order = slices_[same_time[k - 1]].seq < slices_[same_time[k]].seq;
                }
                if (in_order) continue;
                const auto group = static_cast<std::uint32_t>(groups_.size());
                groups_.push_back({static_cast<std::uint32_t>(same_time.size()), {}});
                groups_.back().packets.resize(same_time.size());
                for (std::uint32_t rank = 0; rank < same_time.size(); ++rank) {
                    const std::uint32_t seq = slices_[same_time[rank]].seq;
                    held_.emplace(seq, held_slot{group, rank});
                    plan_[seq].track |= held_bit;
                }
            }
        }
    }
    // The thread track a track belongs to (itself, or an overflow track's parent).
    std::uint32_t thread_of(std::uint32_t track) const {
        const track_rec& t = tracks_[track];
        return t.kind == track_rec::overflow ? static_cast<std::uint32_t>(t.parent - 1) : track;
    }

    // ---- the second pass ----

    template <class Args>
    void begin_event(const pf_slice& s, const Args& args, std::uint32_t thread, std::int64_t begin,
                     std::int64_t end) {
        const std::size_t k = both_passes_.second_count - 1;
        if (k >= plan_.size()) throw std::logic_error("perfetto_trace: more slices in the second pass than the first");
        planned p = plan_[k];
        const bool holding = (p.track & held_bit) != 0;
        p.track &= ~held_bit;
        if (thread_of(p.track) != thread) {
            throw std::logic_error("perfetto_trace: the second pass's slices are not the first's");
        }
        const auto held = holding ? held_.find(static_cast<std::uint32_t>(k)) : held_.end();
        byte_buffer& to = holding ? scratch_ : out_;
        basic_protobuf_writer<byte_buffer> w(to);
        // Interned data goes on the first packet that uses it; a held one
        // may be written before that, so it carries its own.
        const std::uint32_t cat = categories_.intern(s.cat);
        const bool inline_name = s.name_kind == pf_slice::inline_text;
        const std::uint32_t name = inline_name ? 0 : names_.intern(s.name);
        arg_iids_.clear();
        for (const pf_arg& a : args) arg_iids_.push_back(arg_names_.intern(a.name));
        const bool fresh = holding || first_use(cat_sent_, cat) || (name != 0 && first_use(name_sent_, name)) ||
                           std::any_of(arg_iids_.begin(), arg_iids_.end(),
                                       [&](std::uint32_t a) { return first_use(arg_sent_, a); });
        const auto pk = packet(w, begin);
        if (fresh) {
            const auto m = w.begin(pf::packet::interned_data);
            if (holding || mark(cat_sent_, cat)) {
                interned_entry(w, pf::interned::event_categories, cat, categories_.order[cat - 1]);
            }
            if (name != 0 && (holding || mark(name_sent_, name))) {
                interned_entry(w, pf::interned::event_names, name, names_.order[name - 1]);
            }
            for (std::size_t i = 0; i < arg_iids_.size(); ++i) {
                const std::uint32_t a = arg_iids_[i];
                const bool repeat = std::find(arg_iids_.begin(), arg_iids_.begin() + i, a) != arg_iids_.begin() + i;
                if (!repeat && (holding || mark(arg_sent_, a))) {
                    interned_entry(w, pf::interned::debug_annotation_names, a, arg_names_.order[a - 1]);
                }
            }
            w.end(m);
        }
        const auto e = w.begin(pf::packet::track_event);
        w.varint(pf::event::type, pf::event::type_slice_begin);
        w.varint(pf::event::track_uuid, uuid_of(p.track));
        w.varint(pf::event::category_iids, cat);
        if (inline_name) {
            w.string(pf::event::name, s.name);
        } else {
            w.varint(pf::event::name_iid, name);
        }
        std::size_t i = 0;
        for (const pf_arg& a : args) {
            const auto m = w.begin(pf::event::debug_annotations);
            w.varint(pf::annotation::name_iid, arg_iids_[i++]);
            if (a.kind == pf_arg::integer) w.int64(pf::annotation::int_value, a.i);
            if (a.kind == pf_arg::real) w.double_value(pf::annotation::double_value, a.d);
            if (a.kind == pf_arg::text) w.string(pf::annotation::string_value, a.s);
            w.end(m);
        }
        w.end(e);
        w.end(pk);
        // A zero-length slice holds nothing: its END follows its BEGIN.
        if (end == begin) end_event(w, end, p.track, p.at);
        if (held != held_.end()) {
            held_group& g = groups_[held->second.group];
            g.packets[held->second.rank].assign(scratch_.data(), scratch_.size());
            scratch_.clear();
            held_.erase(held);
            if (--g.waiting == 0) {
                for (const std::string& bytes : g.packets) out_.append(bytes);
                std::vector<std::string>().swap(g.packets);
            }
        }
        maybe_flush();
    }

    void counter_event(std::int64_t ts, const std::uint32_t* tracks, const std::int64_t* values, std::size_t n) {
        basic_protobuf_writer<byte_buffer> w(out_);
        const auto p = packet(w, std::max<std::int64_t>(ts, 0));
        const auto e = w.begin(pf::packet::track_event);
        w.varint(pf::event::type, pf::event::type_counter);
        w.varint(pf::event::track_uuid, uuid_of(tracks[0]));
        w.int64(pf::event::counter_value, values[0]);
        for (std::size_t k = 1; k < n; ++k) w.varint(pf::event::extra_counter_track_uuids, uuid_of(tracks[k]));
        for (std::size_t k = 1; k < n; ++k) w.int64(pf::event::extra_counter_values, values[k]);
        w.end(e);
        w.end(p);
        maybe_flush();
    }

    // ---- packets ----

    // Opens a packet at `ts` on the sequence, for a track event.
    static basic_protobuf_writer<byte_buffer>::open_message packet(basic_protobuf_writer<byte_buffer>& w,
                                                                    std::int64_t ts) {
        const auto p = w.begin(pf::trace_packet);
        w.varint(pf::packet::timestamp, static_cast<std::uint64_t>(ts));
        w.varint(pf::packet::trusted_packet_sequence_id, sequence_id);
        w.varint(pf::packet::sequence_flags, pf::packet::seq_needs_incremental_state);
        return p;
    }
    // The END of the slice at `at` in nesting order, with its flows.
    void end_event(basic_protobuf_writer<byte_buffer>& w, std::int64_t ts, std::uint32_t track,
                   std::uint32_t at) const {
        const auto p = packet(w, ts);
        const auto e = w.begin(pf::packet::track_event);
        w.varint(pf::event::type, pf::event::type_slice_end);
        w.varint(pf::event::track_uuid, uuid_of(track));
        for (auto [f, last] = flows_.of(at); f != last; ++f) write_flow_id(w, *f);
        w.end(e);
        w.end(p);
    }
    template <class W>
    static void interned_entry(W& w, std::uint32_t field, std::uint32_t iid, std::string_view text) {
        const auto e = w.begin(field);
        w.varint(pf::interned::iid, iid);
        w.string(pf::interned::name, text);
        w.end(e);
    }
    // Perfetto's flow ids are global to the trace and 0 means none: the JSON
    // view's id + 1.
    template <class W>
    static void write_flow_id(W& w, std::uint32_t tagged) {
        w.fixed64((tagged & starts_bit) != 0 ? pf::event::flow_ids : pf::event::terminating_flow_ids,
                  static_cast<std::uint64_t>(tagged & ~starts_bit) + 1);
    }
    // Whether iid has not been written yet / marks it written (true if it was not).
    static bool first_use(const std::vector<bool>& sent, std::uint32_t iid) {
        return iid > sent.size() || !sent[iid - 1];
    }
    static bool mark(std::vector<bool>& sent, std::uint32_t iid) {
        if (iid > sent.size()) sent.resize(iid, false);
        if (sent[iid - 1]) return false;
        sent[iid - 1] = true;
        return true;
    }
    void maybe_flush() {
        if (out_.size() >= flush_bytes) flush();
    }
    void flush() {
        if (out_.size() == 0) return;
        sink_(std::string_view(out_.data(), out_.size()));
        out_.clear();
    }

    // Stops the prefaulting before `table` outgrows its room (and moves).
    template <class Table>
    void before_growing(const Table& table, std::size_t more) noexcept {
        if (table.capacity() - table.size() < more) ahead_.stop();
    }

    // ---- tracks ----

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
        if (second_) throw std::logic_error("perfetto_trace: a thread in the second pass that the first did not have");
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
        if (second_) throw std::logic_error("perfetto_trace: a counter track in the second pass that the first did not have");
        process_track(pid);
        const auto index = static_cast<std::uint32_t>(tracks_.size());
        tracks_.push_back({track_rec::counter, pid, 0, std::string(name), uuid_of(processes_.at(pid))});
        counter_tracks_.emplace(std::move(key), index);
        return index;
    }

    void write_descriptor(basic_protobuf_writer<byte_buffer>& w, std::size_t i) {
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
        maybe_flush();
    }

    static constexpr std::uint32_t none = ~0u;
    static constexpr std::size_t flush_bytes = std::size_t{1} << 20;
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
    int last_pid_ = 0;  // the last counters() call's tracks
    std::vector<std::string> last_names_;
    std::vector<std::uint32_t> last_tracks_;
    // First pass.
    std::vector<slice_rec> slices_;  // skeletons; in nesting order from the first flow on
    pf_flow_binder binder_;
    pf_slice_flows flows_;             // the slices' flow endpoints
    std::vector<orphan_rec> orphans_;  // endpoints with no slice: instants
    // Second pass.
    bool second_ = false;
    pass_check both_passes_;
    std::vector<planned> plan_;  // by order written
    std::unordered_map<std::uint32_t, held_slot> held_;  // by order written: BEGINs held back
    std::vector<held_group> groups_;
    pf_interner categories_, names_, arg_names_;
    std::vector<bool> cat_sent_, name_sent_, arg_sent_;  // by iid - 1: written
    std::vector<std::uint32_t> arg_iids_;  // the current slice's
    byte_buffer out_, scratch_;
    std::function<void(std::string_view)> sink_;
    // Last, so it stops before the tables it watches are freed.
    bool reserved_ = false;
    prefault_ahead ahead_;
    prefault_ahead::range_id ahead_slices_ = prefault_ahead::no_range, ahead_links_ = prefault_ahead::no_range;
};

}  // namespace dfx::convert::swimlane::trace
