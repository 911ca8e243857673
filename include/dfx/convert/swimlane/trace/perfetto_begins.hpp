// perfetto_begins: the protobuf backend's second pass (perfetto_packets.hpp
// explains the two). The trace sections run again, the same calls in the
// same order, and each slice's BEGIN (category, name, args, the flows that
// start on it) and each counter point is encoded as it comes and written
// through the file's sink, after the slices' ENDs; a zero-length slice's
// END follows its BEGIN. What it needs of the first pass is handed over in
// a pf_plan.
//
//   perfetto_begins& begins = first_pass.write_ends(sink);
//   begins.slice({"event", "QK(t7)", 4, 10000, ts_us, dur_us, event_id}, args);
//   begins.counter(2, "shared_ready_queue AIC", ts_us, 3);
//   begins.flush();   // the last bytes through the sink
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "dfx/convert/common/same_text.hpp"
#include "dfx/convert/common/protobuf_writer.hpp"
#include "dfx/convert/swimlane/trace/perfetto_fields.hpp"
#include "dfx/convert/swimlane/trace/perfetto_flow_binder.hpp"
#include "dfx/convert/swimlane/trace/perfetto_tables.hpp"

namespace dfx::convert::swimlane::trace {

// µs (the JSON view's unit, 3 decimals) -> ns.
inline std::int64_t pf_ns(double us) { return std::llround(us * 1000.0); }
// A slice's times as the trace holds them: ns, never negative (a negative
// time is possible only with --lenient), the end not before the begin.
inline std::pair<std::int64_t, std::int64_t> pf_times(double ts_us, double dur_us) {
    const std::int64_t ts = pf_ns(ts_us);
    const std::int64_t begin = std::max<std::int64_t>(ts, 0);
    return {begin, std::max<std::int64_t>(ts + pf_ns(dur_us), begin)};
}
// The key of thread (pid, tid) in the backend's tables.
inline std::uint64_t pf_thread_key(int pid, std::int64_t tid) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(pid)) << 40) ^ static_cast<std::uint64_t>(tid);
}

// The slices of one pass, folded: both passes must hand in the same count
// and the same (thread track, begin, end) in the same order, or the trace
// would be wrong.
struct pf_slice_fold {
    std::size_t count = 0;
    std::uint64_t hash = 0;
    void add(std::uint32_t track, std::int64_t begin, std::int64_t end) noexcept {
        for (const std::uint64_t v :
             {std::uint64_t{track}, static_cast<std::uint64_t>(begin), static_cast<std::uint64_t>(end)}) {
            hash = (hash ^ v) * 0x100000001B3ull;
            hash ^= hash >> 29;
        }
        ++count;
    }
    bool operator==(const pf_slice_fold&) const = default;
};

// What the first pass hands the second (perfetto_trace::write_ends()).
struct pf_plan {
    // Per slice, in the order written: its track after nesting (held_bit:
    // its BEGIN is held back) and its place in nesting order (its flows).
    struct planned {
        std::uint32_t track, at;
    };
    static constexpr std::uint32_t held_bit = 1u << 31;
    std::vector<planned> slices;
    // BEGINs of one track at one time that the sections wrote in another
    // order than nesting order: held until the group's last one comes, then
    // written in nesting order. By order written: (group, rank in it).
    struct held_slot {
        std::uint32_t group, rank;
    };
    std::unordered_map<std::uint32_t, held_slot> held;
    std::vector<std::uint32_t> group_sizes;
    // The first pass's lookups, copied.
    std::unordered_map<std::uint64_t, std::uint32_t> threads;  // pf_thread_key -> track
    std::map<std::pair<int, std::string>, std::uint32_t> counter_tracks;
    std::vector<std::uint32_t> thread_of;  // track -> its thread's track (an overflow track's parent)
    pf_slice_fold first;
    const pf_slice_flows* flows = nullptr;  // each slice's flow endpoints, by place in nesting order
};

class perfetto_begins final : public pf_backend {
public:
    static constexpr std::uint64_t sequence_id = 1;
    static constexpr std::size_t flush_bytes = std::size_t{1} << 20;  // written through the sink this full

    // `sink(bytes)` writes (and may throw).
    perfetto_begins(pf_plan plan, std::function<void(std::string_view)> sink)
        : plan_(std::move(plan)), sink_(std::move(sink)) {
        groups_.resize(plan_.group_sizes.size());
        for (std::size_t g = 0; g < groups_.size(); ++g) {
            groups_[g].waiting = plan_.group_sizes[g];
            groups_[g].packets.resize(plan_.group_sizes[g]);
        }
    }

    // Names are the first pass's: its descriptors are written already.
    void process_name(int, std::string_view) override {}
    void thread_name(int, std::int64_t, std::string_view) override {}
    void flow(std::int64_t, char, int, std::int64_t, double, std::int64_t) override {
        throw std::logic_error("perfetto_trace: a flow in the second pass");
    }

    void slice_span(const pf_slice& s, std::span<const pf_arg> args) override {
        const std::uint32_t thread = thread_track(s.pid, s.tid);
        const auto [begin, end] = pf_times(s.ts_us, s.dur_us);
        const std::size_t k = seen_.count;
        seen_.add(thread, begin, end);
        if (k >= plan_.slices.size()) {
            throw std::logic_error("perfetto_trace: more slices in the second pass than the first");
        }
        pf_plan::planned p = plan_.slices[k];
        const bool holding = (p.track & pf_plan::held_bit) != 0;
        p.track &= ~pf_plan::held_bit;
        if (plan_.thread_of[p.track] != thread) {
            throw std::logic_error("perfetto_trace: the second pass's slices are not the first's");
        }
        // A held BEGIN is written out of turn: it carries its own interned
        // data. (Interned data goes on the first packet in the file that
        // uses it.)
        const bool own_interning = holding;
        byte_buffer& to = holding ? scratch_ : out_;
        basic_protobuf_writer<byte_buffer> w(to);
        const std::uint32_t cat = categories_.intern(s.cat);
        const bool inline_name = s.name_kind == pf_slice::inline_text;
        const std::uint32_t name = inline_name ? 0 : names_.intern(s.name);
        arg_iids_.clear();
        for (const pf_arg& a : args) arg_iids_.push_back(arg_names_.intern(a.name));
        const bool fresh = own_interning || unsent(cat_sent_, cat) || (name != 0 && unsent(name_sent_, name)) ||
                           std::any_of(arg_iids_.begin(), arg_iids_.end(),
                                       [&](std::uint32_t a) { return unsent(arg_sent_, a); });
        const auto pk = packet(w, begin);
        if (fresh) {
            const auto m = w.begin(pf::packet::interned_data);
            if (own_interning || mark(cat_sent_, cat)) {
                interned_entry(w, pf::interned::event_categories, cat, categories_.order[cat - 1]);
            }
            if (name != 0 && (own_interning || mark(name_sent_, name))) {
                interned_entry(w, pf::interned::event_names, name, names_.order[name - 1]);
            }
            for (std::size_t i = 0; i < arg_iids_.size(); ++i) {
                const std::uint32_t a = arg_iids_[i];
                const bool repeat = std::find(arg_iids_.begin(), arg_iids_.begin() + i, a) != arg_iids_.begin() + i;
                if (!repeat && (own_interning || mark(arg_sent_, a))) {
                    interned_entry(w, pf::interned::debug_annotation_names, a, arg_names_.order[a - 1]);
                }
            }
            w.end(m);
        }
        const auto e = w.begin(pf::packet::track_event);
        w.varint(pf::event::type, pf::event::type_slice_begin);
        w.varint(pf::event::track_uuid, p.track + 1);
        w.varint(pf::event::category_iids, cat);
        if (inline_name) {
            w.string(pf::event::name, s.name);
        } else {
            w.varint(pf::event::name_iid, name);
        }
        for (std::size_t i = 0; i < args.size(); ++i) {
            const pf_arg& a = args[i];
            const auto m = w.begin(pf::event::debug_annotations);
            w.varint(pf::annotation::name_iid, arg_iids_[i]);
            if (a.kind == pf_arg::integer) w.int64(pf::annotation::int_value, a.i);
            if (a.kind == pf_arg::real) w.double_value(pf::annotation::double_value, a.d);
            if (a.kind == pf_arg::text) w.string(pf::annotation::string_value, a.s);
            w.end(m);
        }
        // The flows that start here: trace_processor starts a flow at the
        // first event that names it and drops a terminating id read before
        // that, so a start rides on the BEGIN (the earliest a slice has)
        // and an end on the END (the latest).
        for (auto [f, last] = plan_.flows->starts_of(p.at); f != last; ++f) write_flow_id(w, true, *f);
        w.end(e);
        w.end(pk);
        // A zero-length slice holds nothing: its END follows its BEGIN.
        if (end == begin) end_event(w, end, p.track, p.at, *plan_.flows);
        if (!holding) return maybe_flush();
        const auto slot = plan_.held.find(static_cast<std::uint32_t>(k));
        if (slot == plan_.held.end()) throw std::logic_error("perfetto_trace: a held slice without its group");
        held_group& g = groups_[slot->second.group];
        std::string& mine = g.packets[slot->second.rank];
        mine.assign(scratch_.data(), scratch_.size());
        scratch_.clear();
        if (--g.waiting != 0) return;
        for (const std::string& bytes : g.packets) out_.append(bytes);  // in nesting order
        std::vector<std::string>().swap(g.packets);
        maybe_flush();
    }

    void counter(int pid, std::string_view name, double ts_us, std::int64_t value) override {
        const std::uint32_t track = counter_track(pid, name);
        counter_event(pf_ns(ts_us), &track, &value, 1);
    }
    void counters_span(int pid, std::span<const pf_point> points, double ts_us) override {
        // The same tracks as the last call (a run of phases)? Else look them up.
        bool same = pid == last_pid_ && points.size() == last_names_.size();
        for (std::size_t i = 0; same && i < points.size(); ++i) same = same_text(points[i].first, last_names_[i]);
        if (!same) {
            last_tracks_.clear();
            last_names_.clear();
            for (const auto& point : points) {
                last_tracks_.push_back(counter_track(pid, point.first));
                last_names_.emplace_back(point.first);
            }
            last_pid_ = pid;
        }
        std::array<std::int64_t, 8> values{};
        if (points.size() > values.size()) throw std::length_error("perfetto_trace: more than 8 counters in a packet");
        std::size_t n = 0;
        for (const auto& point : points) values[n++] = point.second;
        counter_event(pf_ns(ts_us), last_tracks_.data(), values.data(), n);
    }

    // Writes what is encoded through the sink.
    void flush() {
        if (out_.size() == 0) return;
        sink_(std::string_view(out_.data(), out_.size()));
        out_.clear();
    }
    // Whether this pass handed in the first pass's slices (count, threads, times).
    [[nodiscard]] bool matches_first() const noexcept { return seen_ == plan_.first; }

    // The END at `ts` on `track` of the slice at `at` in nesting order, with
    // the flows that end on it.
    static void end_event(basic_protobuf_writer<byte_buffer>& w, std::int64_t ts, std::uint32_t track, std::uint32_t at,
                          const pf_slice_flows& flows) {
        const auto p = packet(w, ts);
        const auto e = w.begin(pf::packet::track_event);
        w.varint(pf::event::type, pf::event::type_slice_end);
        w.varint(pf::event::track_uuid, track + 1);
        for (auto [f, last] = flows.ends_of(at); f != last; ++f) write_flow_id(w, false, *f);
        w.end(e);
        w.end(p);
    }
    // Perfetto's flow ids are global to the trace and 0 means none: the JSON
    // view's id + 1.
    template <class W>
    static void write_flow_id(W& w, bool starts, std::uint32_t id) {
        w.fixed64(starts ? pf::event::flow_ids : pf::event::terminating_flow_ids, std::uint64_t{id} + 1);
    }

    // Opens a packet at `ts` on the sequence, for a track event.
    [[gnu::always_inline]] static basic_protobuf_writer<byte_buffer>::open_message packet(
        basic_protobuf_writer<byte_buffer>& w, std::int64_t ts) {
        const auto p = w.begin(pf::trace_packet);
        w.varint(pf::packet::timestamp, static_cast<std::uint64_t>(ts));
        w.varint(pf::packet::trusted_packet_sequence_id, sequence_id);
        w.varint(pf::packet::sequence_flags, pf::packet::seq_needs_incremental_state);
        return p;
    }

private:
    struct held_group {
        std::uint32_t waiting = 0;
        std::vector<std::string> packets;  // by rank in nesting order
    };

    void counter_event(std::int64_t ts, const std::uint32_t* tracks, const std::int64_t* values, std::size_t n) {
        basic_protobuf_writer<byte_buffer> w(out_);
        const auto p = packet(w, std::max<std::int64_t>(ts, 0));
        const auto e = w.begin(pf::packet::track_event);
        w.varint(pf::event::type, pf::event::type_counter);
        w.varint(pf::event::track_uuid, tracks[0] + 1);
        w.int64(pf::event::counter_value, values[0]);
        for (std::size_t k = 1; k < n; ++k) w.varint(pf::event::extra_counter_track_uuids, tracks[k] + 1);
        for (std::size_t k = 1; k < n; ++k) w.int64(pf::event::extra_counter_values, values[k]);
        w.end(e);
        w.end(p);
        maybe_flush();
    }
    void maybe_flush() {
        if (out_.size() >= flush_bytes) flush();
    }

    std::uint32_t thread_track(int pid, std::int64_t tid) {
        const std::uint64_t key = pf_thread_key(pid, tid);
        if (key == last_thread_key_ && last_thread_ != ~0u) return last_thread_;
        const auto found = plan_.threads.find(key);
        if (found == plan_.threads.end()) {
            throw std::logic_error("perfetto_trace: a thread in the second pass that the first did not have");
        }
        last_thread_key_ = key;
        return last_thread_ = found->second;
    }
    std::uint32_t counter_track(int pid, std::string_view name) {
        const auto found = plan_.counter_tracks.find(std::pair<int, std::string>(pid, std::string(name)));
        if (found == plan_.counter_tracks.end()) {
            throw std::logic_error("perfetto_trace: a counter track in the second pass that the first did not have");
        }
        return found->second;
    }

    template <class W>
    static void interned_entry(W& w, std::uint32_t field, std::uint32_t iid, std::string_view text) {
        const auto e = w.begin(field);
        w.varint(pf::interned::iid, iid);
        w.string(pf::interned::name, text);
        w.end(e);
    }
    // Whether iid has not been written yet / marks it written (true if it was not).
    static bool unsent(const std::vector<bool>& sent, std::uint32_t iid) {
        return iid > sent.size() || !sent[iid - 1];
    }
    static bool mark(std::vector<bool>& sent, std::uint32_t iid) {
        if (iid > sent.size()) sent.resize(iid, false);
        if (sent[iid - 1]) return false;
        sent[iid - 1] = true;
        return true;
    }

    pf_plan plan_;
    std::function<void(std::string_view)> sink_;
    pf_slice_fold seen_;
    std::vector<held_group> groups_;
    pf_interner categories_, names_, arg_names_;
    std::vector<bool> cat_sent_, name_sent_, arg_sent_;  // by iid - 1: written
    std::vector<std::uint32_t> arg_iids_;  // the current slice's
    std::uint64_t last_thread_key_ = 0;
    std::uint32_t last_thread_ = ~0u;
    int last_pid_ = 0;  // the last counters() call's tracks
    std::vector<std::string> last_names_;
    std::vector<std::uint32_t> last_tracks_;
    byte_buffer out_;      // the next bytes
    byte_buffer scratch_;  // a held BEGIN
};

}  // namespace dfx::convert::swimlane::trace
