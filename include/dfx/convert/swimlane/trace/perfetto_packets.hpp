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
//   "s" / "f" flow endpoints    -> flow_ids on the BEGIN of the slice an "s"
//                                  binds to, terminating_flow_ids on the END
//                                  of the slice an "f" binds to (bind_id, else
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
// Two passes, so that nothing is kept per slice but a 24-byte skeleton.
// The flows come after every slice and bind to slices, so no event of a
// slice can be written before every flow is in. trace_processor sorts a
// whole trace by (timestamp, position in the file) before it reads it (its
// TraceSorter, for a file with no flush events), so the packets need not
// come in time order, only in the right order where their times are equal.
// Hence:
//   1. the sections run once: each slice is kept as a skeleton (track,
//      times, event id, order written) and its texts interned (category,
//      name, args' names); each counter call names its tracks; chunks are
//      recorded on two threads (perfetto_skeletons.hpp), and each chunk's
//      slices counted;
//   2. the flow sections run: each endpoint is bound to a skeleton (on
//      the thread that runs its chunk: place_flow());
//   3. write_ends(): the slices are nested (overflow tracks); the trace's
//      start, every interned text, the track descriptors, every slice's
//      END with the flows that
//      end on it (in blocks on two threads), and the endpoints no slice
//      holds (as instants) are written;
//   4. the slice and counter sections run a second time, the same calls in
//      the same order (perfetto_begins.hpp; each chunk encoded on the
//      thread that runs it, told where its slices start, and written in
//      chunk order): each BEGIN, with the flows that start on it, and each
//      counter point (a zero-length slice's END right after its BEGIN).
// Written before every BEGIN, an END always precedes a BEGIN at the same
// time on its track; ENDs at one time come innermost first (the skeletons
// are walked backwards in nesting order). BEGINs at one time on one track
// must come outer first: where the sections wrote a shorter one before a
// longer one that begins with it, the group is held back until its last
// member comes and then written in nesting order (rare). trace_processor
// drops a flow whose terminating id it reads before the id that starts it:
// a flow starts on its source's BEGIN and ends on its destination's END, so
// only an arrow whose destination ends before its source begins (it runs
// backwards; the JSON loses it too) or, at a tie, ends when it begins, may
// be lost. Timestamps are absolute
// (ns; a delta clock would need time order), and every interned text is
// written once, before the first event: so a packet depends on nothing
// written after the trace's start, and chunks encode apart.
//
//   perfetto_trace pb;
//   pb.process_name(4, "Worker View");
//   pb.slice({"event", "QK(t7)", 4, 10000, ts_us, dur_us, event_id}, args);   // pass 1
//   pb.counters(2, {{"shared_ready_queue AIC", 3}, {"shared_ready_queue AIV", 0}}, ts_us);
//   pb.end_of_slices();
//   pb.flow(flow_id, 's', 4, 10000, ts_us, event_id);
//   perfetto_begins& second = pb.write_ends([&](std::string_view bytes) { file.append(bytes); });
//   second.slice({"event", "QK(t7)", 4, 10000, ts_us, dur_us, event_id}, args);   // pass 2
//   second.counters(2, {{"shared_ready_queue AIC", 3}, {"shared_ready_queue AIV", 0}}, ts_us);
//   pb.finish();   // the last bytes; checks both passes matched
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dfx/convert/common/prefault_ahead.hpp"
#include "dfx/convert/common/protobuf_writer.hpp"
#include "dfx/convert/swimlane/trace/perfetto_begins.hpp"
#include "dfx/convert/swimlane/trace/perfetto_fields.hpp"
#include "dfx/convert/swimlane/trace/perfetto_flow_binder.hpp"
#include "dfx/convert/swimlane/trace/perfetto_tables.hpp"

namespace dfx::convert::swimlane::trace {

class perfetto_trace final : public pf_backend {
public:
    // µs (the JSON view's unit, 3 decimals) -> ns.
    static std::int64_t ns(double us) { return pf_ns(us); }
    // Room for about `slices` slice skeletons and `flows` flow endpoints (a
    // hint: growing a table copies it, and the copy and the old one are both
    // resident for a moment; room reserved but never touched costs nothing).
    // The room is faulted in on a second thread a little ahead of the
    // writes (prefault_ahead.hpp), until it runs out or the flows begin.
    void reserve(std::size_t slices, std::size_t flows) {
        const bool again = std::exchange(reserved_, true);
        if (again) ahead_.stop();  // the rooms may move: not watched any more
        slices_.reserve(slices);
        flows_.reserve(flows / 2);  // (a link holds a flow's two endpoints)
        if (again) return;
        const auto& recs = slices_.records();
        ahead_slices_ = ahead_.watch(recs.data(), recs.capacity() * sizeof(slice_rec));
        const auto& froms = flows_.froms();
        const auto& tos = flows_.tos();
        ahead_froms_ = ahead_.watch(froms.data(), froms.capacity() * sizeof(std::uint32_t));
        ahead_tos_ = ahead_.watch(tos.data(), tos.capacity() * sizeof(std::uint32_t));
        ahead_.start();
    }

    // ---- the first pass: tracks, slices, flows, counters' tracks ----
    void process_name(int pid, std::string_view name) override { process_track(pid).name = std::string(name); }
    void thread_name(int pid, std::int64_t tid, std::string_view name) override {
        tracks_[thread_track(pid, tid)].name = std::string(name);
    }
    // A slice: the texts it interns, and its skeleton.
    void slice_span(const pf_slice& s, std::span<const pf_arg> args) override {
        if (binder_.indexed()) throw std::logic_error("perfetto_trace: a slice after the first flow");
        names_.add(s, args);
        slice_skeleton(s.pid, s.tid, s.ts_us, s.dur_us, s.event_id);
    }
    void slice_skeleton(int pid, std::int64_t tid, double ts_us, double dur_us, std::int64_t id) override {
        if (binder_.indexed()) throw std::logic_error("perfetto_trace: a slice after the first flow");
        const std::uint32_t track = thread_track(pid, tid);
        const auto [begin, end] = pf_times(ts_us, dur_us);
        fold_.add(fold_.count, track, begin, end);
        const std::uint32_t event_id = id < 0 ? slice_rec::no_id : pf_narrow<std::uint32_t>(id, "event id");
        pf_narrow<std::uint32_t>(slices_.size(), "slices");
        before_growing(slices_.records(), 1);
        slices_.push_back(begin, end, track, event_id);
        ahead_.wrote(ahead_slices_, slices_.size() * sizeof(slice_rec));
    }
    // A recorded chunk's texts (perfetto_skeletons.hpp).
    void intern_text(pf_text kind, std::string_view text) override {
        // (After the slices the texts are the plan's: names_ is moved from.)
        if (binder_.indexed()) throw std::logic_error("perfetto_trace: a slice's text after the first flow");
        names_.of(kind).intern(text);
    }
    // A section's chunks, all handed in: the second pass runs the sections
    // before the flows again, and encodes each chunk apart.
    void section_chunks(std::span<const std::uint32_t> slices_per_chunk) override {
        if (binder_.indexed()) return;
        std::size_t slices = 0;
        for (const std::uint32_t n : slices_per_chunk) slices += n;
        sections_.push_back({pf_narrow<std::uint32_t>(fold_.count - slices, "slices"),
                             pf_narrow<std::uint32_t>(slices_per_chunk.size(), "chunks")});
        chunk_slices_.insert(chunk_slices_.end(), slices_per_chunk.begin(), slices_per_chunk.end());
    }
    // After every slice: the slices are indexed for the flows, which may
    // now be placed on other threads (place_flow()).
    void end_of_slices() {
        if (binder_.indexed()) return;
        binder_.index(slices_, tracks_.size());
        placeable_threads_.assign(threads_.begin(), threads_.end());
        std::sort(placeable_threads_.begin(), placeable_threads_.end());
    }
    // A flow endpoint, after every slice: it is bound now.
    void flow(std::int64_t id, char ph, int pid, std::int64_t tid, double ts_us, std::int64_t bind_id) override {
        const std::uint32_t track = thread_track(pid, tid);
        if (!binder_.indexed()) binder_.index(slices_, tracks_.size());
        const std::int64_t ts = std::max<std::int64_t>(ns(ts_us), 0);
        add_flow(id, ph, track, ts, binder_.bind(slices_, track, ts, bind_id));
    }
    // Any thread, after end_of_slices(), while flows come: a lookup in
    // tables that no longer change (the threads that had slices then; a
    // flow on another thread is placed by flow()).
    [[nodiscard]] bool place_flow(int pid, std::int64_t tid, double ts_us, std::int64_t bind_id,
                                  std::vector<std::uint32_t>& fingers, flow_place& place) const override {
        const std::uint64_t key = pf_thread_key(pid, tid);
        const auto found =
            std::lower_bound(placeable_threads_.begin(), placeable_threads_.end(), std::pair(key, std::uint32_t{0}));
        if (found == placeable_threads_.end() || found->first != key) return false;
        place.track = found->second;
        place.slice = binder_.bind(slices_, place.track, std::max<std::int64_t>(ns(ts_us), 0), bind_id, fingers);
        return true;
    }
    void placed_flow(std::int64_t id, char ph, double ts_us, flow_place place) override {
        add_flow(id, ph, place.track, std::max<std::int64_t>(ns(ts_us), 0), place.slice);
    }
    // Counter points: their tracks (the points are the second pass's).
    void counter(int pid, std::string_view name, double, std::int64_t) override { counter_track(pid, name); }
    void counters_span(int pid, std::span<const pf_point> points, double) override {
        for (const auto& point : points) counter_track(pid, point.first);
    }
    [[nodiscard]] bool wants_skeletons_only() const noexcept override { return !begins_; }
    // Slices per block of ENDs encoded on one thread (write_ends()); the
    // bytes do not depend on it (tests use tiny blocks).
    void end_block(std::size_t slices) noexcept { end_block_ = slices; }
    [[nodiscard]] std::size_t slices() const noexcept { return fold_.count; }

    // Ends the first pass, after the flows: nests the slices (overflow
    // tracks) and writes the trace's start, the tracks' descriptors, every
    // slice's END with the flows that end on it and the instants through
    // `sink(std::string_view)` (a file writer's append; it may throw), in
    // blocks of about 1 MiB. Returns the second pass, which writes through
    // it too.
    template <class Sink>
    perfetto_begins& write_ends(Sink&& sink) {
        if (begins_) throw std::logic_error("perfetto_trace: write_ends() twice");
        ahead_.stop();  // nothing more is written to the tables
        sink_ = std::forward<Sink>(sink);
        end_of_slices();
        binder_.release();  // the slices stay in nesting order
        std::vector<std::pair<std::uint64_t, std::uint32_t>>().swap(placeable_threads_);  // nothing is placed now
        flows_.group(slices_.size());
        nest_slices();
        pf_plan plan = plan_second_pass();
        plan.threads = threads_;
        plan.counter_tracks = counter_tracks_;
        plan.thread_of.resize(tracks_.size());
        for (std::uint32_t t = 0; t < tracks_.size(); ++t) plan.thread_of[t] = thread_of(t);
        plan.first = fold_;
        plan.flows = &flows_;
        plan.sections = std::move(sections_);
        plan.chunk_slices = std::move(chunk_slices_);
        basic_protobuf_writer<byte_buffer> w(out_);
        {  // The first packet clears the incremental state: every later one may use interned data.
            const auto p = w.begin(pf::trace_packet);
            w.varint(pf::packet::trusted_packet_sequence_id, sequence_id);
            w.varint(pf::packet::sequence_flags, pf::packet::seq_incremental_state_cleared);
            w.end(p);
        }
        write_interned(w);
        plan.names = std::move(names_);
        for (std::size_t i = 0; i < tracks_.size(); ++i) write_descriptor(w, i);
        flush();
        write_slice_ends();
        for (const orphan_rec& f : orphans_) {
            const auto p = pf_begin_encoder::packet(w, f.ts);
            const auto e = w.begin(pf::packet::track_event);
            w.varint(pf::event::type, pf::event::type_instant);
            w.varint(pf::event::track_uuid, uuid_of(f.track));
            w.string(pf::event::name, "flow");
            pf_begin_encoder::write_flow_id(w, (f.tagged & starts_bit) != 0, f.tagged & ~starts_bit);
            w.end(e);
            w.end(p);
            maybe_flush();
        }
        std::vector<orphan_rec>().swap(orphans_);
        slices_.release();
        flush();
        begins_ = std::make_unique<perfetto_begins>(std::move(plan), sink_);
        return *begins_;
    }

    // Writes what is left. Throws std::logic_error if the second pass did
    // not hand in the first pass's slices.
    void finish() {
        if (!begins_) throw std::logic_error("perfetto_trace: finish() before write_ends()");
        begins_->flush();  // (the held BEGINs among the last bytes go to their groups)
        if (!begins_->matches_first()) {
            throw std::logic_error("perfetto_trace: the second pass's slices are not the first's");
        }
    }

    static constexpr std::uint64_t sequence_id = perfetto_begins::sequence_id;

private:
    struct track_rec {
        enum kind_t : std::uint8_t { process, thread, counter, overflow } kind;
        int pid;
        std::int64_t tid;
        std::string name;
        std::uint64_t parent = 0;
    };
    using slice_rec = pf_slice_rec;
    // One that no slice holds: written as an instant.
    struct orphan_rec {
        std::int64_t ts;
        std::uint32_t track;
        std::uint32_t tagged;  // the flow id, starts_bit set for a start
    };
    static constexpr std::uint32_t starts_bit = 1u << 31;

    // A flow endpoint on `track` at `ts`, bound to slice `s` (or none).
    void add_flow(std::int64_t id, char ph, std::uint32_t track, std::int64_t ts, std::uint32_t s) {
        if (id < 0 || id >= std::int64_t{1} << 31) throw std::length_error("perfetto_trace: flow id out of range");
        const std::uint32_t tagged = static_cast<std::uint32_t>(id) | (ph == 's' ? starts_bit : 0u);
        pf_narrow<std::uint32_t>(flows_.links() + 2, "flows");  // (grouped with 32-bit offsets)
        if (s == pf_flow_binder::none) orphans_.push_back({ts, track, tagged});
        before_growing(flows_.froms(), 2);
        before_growing(flows_.tos(), 2);
        flows_.add(static_cast<std::uint32_t>(id), ph == 's', s == pf_flow_binder::none ? pf_slice_flows::absent : s);
        ahead_.wrote(ahead_froms_, flows_.links() * sizeof(std::uint32_t));
        ahead_.wrote(ahead_tos_, flows_.links() * sizeof(std::uint32_t));
    }

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
        for (slice_rec& s : slices_.records()) {
            const std::int64_t end = slices_.end_of(s);
            if (s.track != current) {
                current = s.track;
                lanes.assign(1, lane{current, {}});
            }
            lane* fit = nullptr;
            for (lane& l : lanes) {
                while (!l.open_ends.empty() && l.open_ends.back() <= s.begin) l.open_ends.pop_back();
                if (l.open_ends.empty() || l.open_ends.back() >= end) {
                    fit = &l;
                    break;
                }
            }
            if (!fit) {
                const auto index = pf_narrow<std::uint32_t>(tracks_.size(), "overflow tracks");
                if (index >= pf_plan::held_bit) throw std::length_error("perfetto_trace: too many tracks");
                const track_rec t = tracks_[current];
                tracks_.push_back({track_rec::overflow, t.pid, t.tid, t.name, uuid_of(current)});
                lanes.push_back(lane{index, {}});
                fit = &lanes.back();
            }
            fit->open_ends.push_back(end);
            s.track = fit->track;
        }
    }

    // What the second pass needs per slice (by order written), and the
    // groups of BEGINs it must hold back: slices of one (track, begin) that
    // were written in another order than nesting order.
    pf_plan plan_second_pass() const {
        pf_plan plan;
        plan.slices.assign(slices_.size(), pf_plan::planned{});
        for (std::uint32_t i = 0; i < slices_.size(); ++i) plan.slices[slices_[i].seq] = {slices_[i].track, i};
        std::vector<std::uint32_t> same_time;  // one track's part of a run of (thread, begin)
        std::vector<std::uint32_t> done;
        for (std::size_t lo = 0, hi = 0; lo < slices_.size(); lo = hi) {
            hi = lo + 1;
            while (hi < slices_.size() && slices_[hi].begin == slices_[lo].begin &&
                   thread_of(slices_[hi].track) == thread_of(slices_[lo].track)) {
                ++hi;
            }
            if (hi - lo < 2) continue;
            // Per track after nesting (a few tracks at most), in nesting order.
            done.clear();
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
                const auto group = static_cast<std::uint32_t>(plan.group_sizes.size());
                plan.group_sizes.push_back(static_cast<std::uint32_t>(same_time.size()));
                for (std::uint32_t rank = 0; rank < same_time.size(); ++rank) {
                    const std::uint32_t seq = slices_[same_time[rank]].seq;
                    plan.held.emplace(seq, pf_plan::held_slot{group, rank});
                    plan.slices[seq].track |= pf_plan::held_bit;
                }
            }
        }
        return plan;
    }
    // The thread track a track belongs to (itself, or an overflow track's parent).
    std::uint32_t thread_of(std::uint32_t track) const {
        const track_rec& t = tracks_[track];
        return t.kind == track_rec::overflow ? static_cast<std::uint32_t>(t.parent - 1) : track;
    }

    // ---- writing ----

    // Every slice's END, backwards in nesting order (at one end, the
    // innermost first), through the sink. Each is read-only work over the
    // skeletons and the grouped flows: blocks of them are encoded on two
    // threads, this one and one more per pair of blocks, and written in
    // order.
    void write_slice_ends() {
        const std::size_t block = std::max<std::size_t>(end_block_, 1);
        const auto encode = [this](std::size_t top, std::size_t bottom, byte_buffer& out) {
            out.clear();
            basic_protobuf_writer<byte_buffer> w(out);
            for (std::size_t i = top; i-- > bottom;) {
                const slice_rec& s = slices_[i];
                if (s.length == 0) continue;  // (its END follows its BEGIN)
                pf_begin_encoder::end_event(w, slices_.end_of(s), s.track, static_cast<std::uint32_t>(i), flows_);
            }
        };
        const auto write = [this](const byte_buffer& bytes) {
            if (bytes.size() != 0) sink_(std::string_view(bytes.data(), bytes.size()));
        };
        byte_buffer here, there;
        for (std::size_t top = slices_.size(); top > 0;) {
            const std::size_t mid = top > block ? top - block : 0;
            const std::size_t bottom = mid > block ? mid - block : 0;
            if (mid == bottom) {
                encode(top, mid, here);
                write(here);
                break;
            }
            // (The other thread is joined before anything it uses can go,
            // whatever throws: the sink may.)
            std::exception_ptr failed;
            std::thread other([&] {
                try {
                    encode(mid, bottom, there);
                } catch (...) {
                    failed = std::current_exception();
                }
            });
            try {
                encode(top, mid, here);
            } catch (...) {
                other.join();
                throw;
            }
            other.join();
            if (failed) std::rethrow_exception(failed);
            write(here);
            write(there);
            top = bottom;
        }
    }
    void maybe_flush() {
        if (out_.size() >= perfetto_begins::flush_bytes) flush();
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
        const std::uint64_t key = pf_thread_key(pid, tid);
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

    // Every interned text, in packets of at most `per_packet` entries, so
    // that no later packet depends on another before it.
    void write_interned(basic_protobuf_writer<byte_buffer>& w) {
        constexpr std::size_t per_packet = 1024;
        const std::pair<std::uint32_t, const pf_interner*> tables[] = {
            {pf::interned::event_categories, &names_.categories},
            {pf::interned::event_names, &names_.names},
            {pf::interned::debug_annotation_names, &names_.arg_names}};
        for (const auto& [field, table] : tables) {
            for (std::size_t from = 0; from < table->order.size(); from += per_packet) {
                const auto p = w.begin(pf::trace_packet);
                w.varint(pf::packet::trusted_packet_sequence_id, sequence_id);
                w.varint(pf::packet::sequence_flags, pf::packet::seq_needs_incremental_state);
                const auto m = w.begin(pf::packet::interned_data);
                for (std::size_t i = from; i < std::min(from + per_packet, table->order.size()); ++i) {
                    const auto e = w.begin(field);
                    w.varint(pf::interned::iid, i + 1);
                    w.string(pf::interned::name, table->order[i]);
                    w.end(e);
                }
                w.end(m);
                w.end(p);
                maybe_flush();
            }
        }
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
    std::vector<track_rec> tracks_;
    std::unordered_map<int, std::uint32_t> processes_;
    std::unordered_map<std::uint64_t, std::uint32_t> threads_;
    std::size_t end_block_ = std::size_t{1} << 15;  // about 0.5 MB of ENDs
    std::vector<std::pair<std::uint64_t, std::uint32_t>> placeable_threads_;  // threads_ at end_of_slices(), sorted
    struct thread_slot {
        std::uint64_t key = 0;
        std::uint32_t index = ~0u;
    };
    static constexpr unsigned thread_cache_bits = 8;
    std::array<thread_slot, std::size_t{1} << thread_cache_bits> thread_cache_{};
    std::map<std::pair<int, std::string>, std::uint32_t> counter_tracks_;
    pf_slice_table slices_;  // skeletons; in nesting order from the first flow on
    pf_slice_fold fold_;
    pf_names names_;  // the texts the slices intern
    std::vector<pf_plan::section> sections_;  // the sections in chunks before the flows
    std::vector<std::uint32_t> chunk_slices_;
    pf_flow_binder binder_;
    pf_slice_flows flows_;             // the slices' flow endpoints
    std::vector<orphan_rec> orphans_;  // endpoints with no slice: instants
    byte_buffer out_;
    std::function<void(std::string_view)> sink_;
    std::unique_ptr<perfetto_begins> begins_;
    // Last, so it stops before the tables it watches are freed.
    bool reserved_ = false;
    prefault_ahead ahead_;
    prefault_ahead::range_id ahead_slices_ = prefault_ahead::no_range, ahead_froms_ = prefault_ahead::no_range,
                             ahead_tos_ = prefault_ahead::no_range;
};

}  // namespace dfx::convert::swimlane::trace
