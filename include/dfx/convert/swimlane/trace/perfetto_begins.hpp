// perfetto_begins: the protobuf backend's second pass (perfetto_packets.hpp
// explains the two). The trace sections run again, the same calls in the
// same order, and each slice's BEGIN (category, name, args, the flows that
// start on it) and each counter point is encoded as it comes and written
// through the file's sink, after the slices' ENDs; a zero-length slice's
// END follows its BEGIN. What it needs of the first pass is handed over in
// a pf_plan, which no one changes any more.
//
// So a packet depends on nothing written before it: the texts it names
// were all interned in the first pass and written at the trace's start, and
// where a slice goes (its track after nesting, its flows) is the plan's, by
// the slice's place in the order written. A section's chunks are therefore
// encoded on the threads that run them (pf_begin_encoder, one per chunk,
// told where its slices start: the first pass counted each chunk's) and
// their bytes written in chunk order; the calls the sections make outside
// chunks are encoded here the same way.
//
//   perfetto_begins& begins = first_pass.write_ends(sink);
//   begins.slice({"event", "QK(t7)", 4, 10000, ts_us, dur_us, event_id}, args);
//   begins.counter(2, "shared_ready_queue AIC", ts_us, 3);
//   // a section in chunks (trace_context::in_chunks):
//   std::vector<pf_chunk_span> spans = begins.plan_section(chunks);
//   pf_begin_encoder part;  part.start(begins.plan(), spans[k]);   // on any thread
//   part.slice(...);
//   begins.write_chunk(part);                                        // in chunk order
//   begins.flush();   // the last bytes through the sink
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
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
// and the same (thread track, begin, end) at each place in the order
// written, or the trace would be wrong. Each slice adds a hash of its place
// and fields, so chunks fold apart and their folds add up.
struct pf_slice_fold {
    std::size_t count = 0;
    std::uint64_t hash = 0;
    void add(std::size_t at, std::uint32_t track, std::int64_t begin, std::int64_t end) noexcept {
        const std::uint64_t place = mixed((std::uint64_t{track} << 32) | (at & 0xFFFF'FFFFu));  // (slices < 2^32)
        hash += mixed(place ^ static_cast<std::uint64_t>(begin) ^
                      std::rotl(static_cast<std::uint64_t>(end) * 0x9E3779B97F4A7C15ull, 29));
        ++count;
    }
    pf_slice_fold& operator+=(const pf_slice_fold& o) noexcept {
        count += o.count;
        hash += o.hash;
        return *this;
    }
    bool operator==(const pf_slice_fold&) const = default;

private:
    static std::uint64_t mixed(std::uint64_t x) noexcept {  // (splitmix64's finaliser)
        x += 0x9E3779B97F4A7C15ull;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
        return x ^ (x >> 31);
    }
};

// The texts the slices intern, each table's iids in first-use order (the
// first pass interns them; the second looks them up).
struct pf_names {
    pf_interner categories, names, arg_names;
    pf_interner& of(pf_text kind) noexcept {
        return kind == pf_text::category ? categories : kind == pf_text::name ? names : arg_names;
    }
    void add(const pf_slice& s, std::span<const pf_arg> args) {
        categories.intern(s.cat);
        if (s.name_kind != pf_slice::inline_text) names.intern(s.name);
        for (const pf_arg& a : args) arg_names.intern(a.name);
    }
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
    pf_names names;
    // The sections the first pass ran in chunks before its flows (the ones
    // the second runs again), in order: where each one's slices start, and
    // each chunk's slices.
    struct section {
        std::uint32_t first_slice, chunks;
    };
    std::vector<section> sections;
    std::vector<std::uint32_t> chunk_slices;
    pf_slice_fold first;
    const pf_slice_flows* flows = nullptr;  // each slice's flow endpoints, by place in nesting order
};

// Where a chunk's slices are in the order written.
struct pf_chunk_span {
    std::size_t first = 0, count = 0;
};

// Encodes second-pass calls into bytes of its own, given where its slices
// start: a chunk's (then handed to perfetto_begins::write_chunk() in chunk
// order) or the calls made outside chunks. A held BEGIN is kept apart, with
// where in the bytes it came, for the writer to put in its group.
class pf_begin_encoder final : public pf_chunk_recorder {
public:
    struct held_begin {
        std::size_t at;     // bytes() before it
        std::uint32_t seq;  // its place in the order written
        std::string bytes;
    };

    // From now on, the slices handed in are span.first, span.first + 1, ...,
    // and at most span.count of them.
    void start(const pf_plan& plan, pf_chunk_span span) {
        plan_ = &plan;
        next_ = span.first;
        end_ = span.first + span.count;
        expected_ = span.count;
        lookups_ = std::make_unique<lookups>(plan.names);
    }
    // The index of the next slice (for the calls outside chunks, which go on
    // after each chunk written).
    [[nodiscard]] std::size_t next_slice() const noexcept { return next_; }
    void resume_at(std::size_t slice) noexcept {
        next_ = slice;
        end_ = plan_->slices.size();
    }
    [[nodiscard]] bool all_expected() const noexcept { return fold.count == expected_; }

    void slice_span(const pf_slice& s, std::span<const pf_arg> args) override {
        const std::uint32_t thread = thread_track(s.pid, s.tid);
        const auto [begin, end] = pf_times(s.ts_us, s.dur_us);
        if (next_ >= end_) throw std::logic_error("perfetto_trace: more slices in the second pass than the first");
        const std::size_t k = next_++;
        fold.add(k, thread, begin, end);
        pf_plan::planned p = plan_->slices[k];
        const bool holding = (p.track & pf_plan::held_bit) != 0;
        p.track &= ~pf_plan::held_bit;
        if (plan_->thread_of[p.track] != thread) {
            throw std::logic_error("perfetto_trace: the second pass's slices are not the first's");
        }
        byte_buffer& to = holding ? scratch_ : out_;
        basic_protobuf_writer<byte_buffer> w(to);
        lookups& l = *lookups_;
        const std::uint32_t cat = l.categories.iid(s.cat);
        const bool inline_name = s.name_kind == pf_slice::inline_text;
        const std::uint32_t name = inline_name ? 0 : l.names.iid(s.name);
        const auto pk = packet(w, begin);
        const auto e = w.begin(pf::packet::track_event);
        w.varint(pf::event::type, pf::event::type_slice_begin);
        w.varint(pf::event::track_uuid, p.track + 1);
        w.varint(pf::event::category_iids, cat);
        if (inline_name) {
            w.string(pf::event::name, s.name);
        } else {
            w.varint(pf::event::name_iid, name);
        }
        for (const pf_arg& a : args) {
            const auto m = w.begin(pf::event::debug_annotations);
            w.varint(pf::annotation::name_iid, l.arg_names.iid(a.name));
            if (a.kind == pf_arg::integer) w.int64(pf::annotation::int_value, a.i);
            if (a.kind == pf_arg::real) w.double_value(pf::annotation::double_value, a.d);
            if (a.kind == pf_arg::text) w.string(pf::annotation::string_value, a.s);
            w.end(m);
        }
        // The flows that start here: trace_processor starts a flow at the
        // first event that names it and drops a terminating id read before
        // that, so a start rides on the BEGIN (the earliest a slice has)
        // and an end on the END (the latest).
        for (auto [f, last] = plan_->flows->starts_of(p.at); f != last; ++f) write_flow_id(w, true, *f);
        w.end(e);
        w.end(pk);
        // A zero-length slice holds nothing: its END follows its BEGIN.
        if (end == begin) end_event(w, end, p.track, p.at, *plan_->flows);
        if (!holding) return;
        held_.push_back({out_.size(), static_cast<std::uint32_t>(k), std::string(scratch_.data(), scratch_.size())});
        scratch_.clear();
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
    void flow(std::int64_t, char, int, std::int64_t, double, std::int64_t) override {
        throw std::logic_error("perfetto_trace: a flow in the second pass");
    }

    // What is encoded, and the held BEGINs among it.
    [[nodiscard]] const byte_buffer& bytes() const noexcept { return out_; }
    [[nodiscard]] std::vector<held_begin>& held() noexcept { return held_; }
    pf_slice_fold fold;  // the slices encoded
    // Forgets what is encoded (written), keeping its room.
    void clear_output() noexcept {
        out_.clear();
        held_.clear();
    }
    // Frees everything (a chunk's, once written).
    void release() {
        out_ = byte_buffer();
        scratch_ = byte_buffer();
        std::vector<held_begin>().swap(held_);
        lookups_.reset();
    }

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

    static constexpr std::uint64_t sequence_id = 1;
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
    struct lookups {
        explicit lookups(const pf_names& n) : categories(n.categories), names(n.names), arg_names(n.arg_names) {}
        pf_interned_lookup categories, names, arg_names;
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
    }

    std::uint32_t thread_track(int pid, std::int64_t tid) {
        const std::uint64_t key = pf_thread_key(pid, tid);
        if (key == last_thread_key_ && last_thread_ != ~0u) return last_thread_;
        const auto found = plan_->threads.find(key);
        if (found == plan_->threads.end()) {
            throw std::logic_error("perfetto_trace: a thread in the second pass that the first did not have");
        }
        last_thread_key_ = key;
        return last_thread_ = found->second;
    }
    std::uint32_t counter_track(int pid, std::string_view name) {
        const auto found = plan_->counter_tracks.find(std::pair<int, std::string>(pid, std::string(name)));
        if (found == plan_->counter_tracks.end()) {
            throw std::logic_error("perfetto_trace: a counter track in the second pass that the first did not have");
        }
        return found->second;
    }

    const pf_plan* plan_ = nullptr;
    std::size_t next_ = 0, end_ = 0, expected_ = 0;
    std::unique_ptr<lookups> lookups_;
    std::uint64_t last_thread_key_ = 0;
    std::uint32_t last_thread_ = ~0u;
    int last_pid_ = 0;  // the last counters() call's tracks
    std::vector<std::string> last_names_;
    std::vector<std::uint32_t> last_tracks_;
    byte_buffer out_;      // the bytes
    byte_buffer scratch_;  // a held BEGIN
    std::vector<held_begin> held_;
};

class perfetto_begins final : public pf_backend {
public:
    static constexpr std::uint64_t sequence_id = pf_begin_encoder::sequence_id;
    static constexpr std::size_t flush_bytes = std::size_t{1} << 20;  // written through the sink this full

    // `sink(bytes)` writes (and may throw).
    perfetto_begins(pf_plan plan, std::function<void(std::string_view)> sink)
        : plan_(std::move(plan)), sink_(std::move(sink)) {
        groups_.resize(plan_.group_sizes.size());
        for (std::size_t g = 0; g < groups_.size(); ++g) {
            groups_[g].waiting = plan_.group_sizes[g];
            groups_[g].packets.resize(plan_.group_sizes[g]);
        }
        direct_.start(plan_, {0, plan_.slices.size()});
    }
    [[nodiscard]] perfetto_begins* second_pass() noexcept override { return this; }
    [[nodiscard]] const pf_plan& plan() const noexcept { return plan_; }

    // Names are the first pass's: its descriptors are written already.
    void process_name(int, std::string_view) override {}
    void thread_name(int, std::int64_t, std::string_view) override {}
    void flow(std::int64_t, char, int, std::int64_t, double, std::int64_t) override {
        throw std::logic_error("perfetto_trace: a flow in the second pass");
    }
    // The calls made outside chunks.
    void slice_span(const pf_slice& s, std::span<const pf_arg> args) override {
        direct_.slice_span(s, args);
        maybe_flush();
    }
    void counter(int pid, std::string_view name, double ts_us, std::int64_t value) override {
        direct_.counter(pid, name, ts_us, value);
        maybe_flush();
    }
    void counters_span(int pid, std::span<const pf_point> points, double ts_us) override {
        direct_.counters_span(pid, points, ts_us);
        maybe_flush();
    }

    // A section of `chunks` chunks, about to run: where each chunk's slices
    // are (the first pass's count). Sections the first pass did not count
    // (after its flows: they have no slices) have none.
    std::vector<pf_chunk_span> plan_section(std::size_t chunks) {
        std::vector<pf_chunk_span> spans(chunks, pf_chunk_span{direct_.next_slice(), 0});
        if (section_ == plan_.sections.size()) return spans;
        const pf_plan::section& s = plan_.sections[section_++];
        if (s.first_slice != direct_.next_slice() || s.chunks != chunks) {
            throw std::logic_error("perfetto_trace: the second pass's sections are not the first's");
        }
        std::size_t at = s.first_slice;
        for (std::size_t k = 0; k < chunks; ++k) {
            spans[k] = {at, plan_.chunk_slices[chunk_++]};
            at += spans[k].count;
        }
        return spans;
    }
    // A chunk's bytes, in chunk order: they follow what is written.
    void write_chunk(pf_begin_encoder& part) {
        if (!part.all_expected()) {
            throw std::logic_error("perfetto_trace: a chunk of the second pass had other slices than the first's");
        }
        write_encoded(direct_);
        write_encoded(part);
        chunks_ += part.fold;
        direct_.resume_at(direct_.next_slice() + part.fold.count);
    }

    // Writes what is encoded through the sink.
    void flush() { write_encoded(direct_); }
    // Whether this pass handed in the first pass's slices (count, threads,
    // times) and every held BEGIN was written.
    [[nodiscard]] bool matches_first() const noexcept {
        pf_slice_fold seen = chunks_;
        seen += direct_.fold;
        const bool held_written =
            std::all_of(groups_.begin(), groups_.end(), [](const held_group& g) { return g.waiting == 0; });
        return seen == plan_.first && held_written;
    }

private:
    struct held_group {
        std::uint32_t waiting = 0;
        std::vector<std::string> packets;  // by rank in nesting order
    };

    void maybe_flush() {
        if (direct_.bytes().size() >= flush_bytes) flush();
    }
    // An encoder's bytes through the sink, each held BEGIN put in its group
    // where it came, and a group written (in nesting order) where its last
    // one came.
    void write_encoded(pf_begin_encoder& from) {
        const byte_buffer& bytes = from.bytes();
        std::size_t written = 0;
        const auto write_to = [&](std::size_t at) {
            if (at > written) sink_(std::string_view(bytes.data() + written, at - written));
            written = at;
        };
        for (pf_begin_encoder::held_begin& h : from.held()) {
            write_to(h.at);
            const auto slot = plan_.held.find(h.seq);
            if (slot == plan_.held.end()) throw std::logic_error("perfetto_trace: a held slice without its group");
            held_group& g = groups_[slot->second.group];
            if (g.waiting == 0) throw std::logic_error("perfetto_trace: a held slice of a group already written");
            g.packets[slot->second.rank] = std::move(h.bytes);
            if (--g.waiting != 0) continue;
            for (const std::string& packet : g.packets) sink_(packet);
            std::vector<std::string>().swap(g.packets);
        }
        write_to(bytes.size());
        from.clear_output();
    }

    pf_plan plan_;
    std::function<void(std::string_view)> sink_;
    std::vector<held_group> groups_;
    pf_begin_encoder direct_;  // the calls outside chunks
    pf_slice_fold chunks_;     // the chunks' slices
    std::size_t section_ = 0, chunk_ = 0;  // the next in plan_.sections, plan_.chunk_slices
};

}  // namespace dfx::convert::swimlane::trace
