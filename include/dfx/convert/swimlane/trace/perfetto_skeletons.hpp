// perfetto_skeletons: what a chunk of a section hands the protobuf
// backend's first pass, recorded on the thread that formats the chunk and
// handed to the backend later, in chunk order (trace_context::in_chunks).
// The first pass keeps only each slice's skeleton (thread, times, event id),
// each counter point's track, each flow endpoint (bound to a skeleton:
// here, once the slices are in, or when it is handed in) and the texts the
// slices intern (categories, names, args' names: all of them are written
// once, at the trace's start), so only those are recorded: the rest is the
// second pass's, which runs the slice sections again.
//
//   pf_skeleton_recorder part;                    // one per chunk
//   event_sink ev(scratch, &part);                // the chunk's items write to it
//   ...
//   part.replay(first_pass);                      // in chunk order, on the backend's thread
//   part.release();
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dfx/convert/common/same_text.hpp"
#include "dfx/convert/swimlane/trace/perfetto_fields.hpp"
#include "dfx/convert/swimlane/trace/perfetto_tables.hpp"

namespace dfx::convert::swimlane::trace {

class pf_skeleton_recorder final : public pf_chunk_recorder {
public:
    [[nodiscard]] bool wants_skeletons_only() const noexcept override { return true; }

    void slice_span(const pf_slice& s, std::span<const pf_arg> args) override {
        note_text(pf_text::category, s.cat);
        if (s.name_kind != pf_slice::inline_text) note_text(pf_text::name, s.name);
        for (const pf_arg& a : args) note_text(pf_text::arg_name, a.name);
        calls_.push_back({call::slice, s.pid, s.tid, s.ts_us, s.dur_us, s.event_id});
        ++slices_;
    }
    // The slices recorded.
    [[nodiscard]] std::uint32_t slices() const noexcept { return slices_; }
    void counter(int pid, std::string_view name, double, std::int64_t) override { note_track(pid, name); }
    void counters_span(int pid, std::span<const pf_point> points, double) override {
        for (const auto& point : points) note_track(pid, point.first);
    }
    // Places flows with `backend`'s place_flow() as they come (on this
    // chunk's thread), or leaves them all to it (null).
    void place_flows_with(const pf_backend* backend) noexcept { placer_ = backend; }

    void flow(std::int64_t id, char ph, int pid, std::int64_t tid, double ts_us, std::int64_t bind_id) override {
        flow_place place;
        if (placer_ && placer_->place_flow(pid, tid, ts_us, bind_id, fingers_, place)) {
            calls_.push_back({ph == 's' ? call::placed_start : call::placed_end, 0, place.track, ts_us,
                              static_cast<double>(id), place.slice});
            return;
        }
        calls_.push_back({ph == 's' ? call::flow_start : call::flow_end, pid, tid, ts_us, static_cast<double>(id),
                          bind_id});
    }

    // Hands the calls to `to`, in the order they were made.
    void replay(pf_backend& to) const {
        for (const call& c : calls_) {
            if (c.kind == call::slice) {
                to.slice_skeleton(c.pid, c.tid, c.ts_us, c.dur_us, c.event_id);
            } else if (c.kind == call::placed_start || c.kind == call::placed_end) {
                to.placed_flow(static_cast<std::int64_t>(c.dur_us), c.kind == call::placed_start ? 's' : 'f', c.ts_us,
                               {static_cast<std::uint32_t>(c.tid), static_cast<std::uint32_t>(c.event_id)});
            } else if (c.kind == call::text) {
                to.intern_text(static_cast<pf_text>(c.pid), texts_[static_cast<std::size_t>(c.tid)]);
            } else if (c.kind != call::counter_track) {
                to.flow(static_cast<std::int64_t>(c.dur_us), c.kind == call::flow_start ? 's' : 'f', c.pid, c.tid,
                        c.ts_us, c.event_id);
            } else {
                const auto& [pid, name] = tracks_[static_cast<std::size_t>(c.tid)];
                to.counter(pid, name, 0.0, 0);
            }
        }
    }

    // Frees what was recorded (once it is replayed).
    void release() {
        std::vector<call>().swap(calls_);
        std::vector<std::pair<int, std::string>>().swap(tracks_);
        std::vector<std::uint32_t>().swap(fingers_);
        std::vector<std::string>().swap(texts_);
        std::vector<pf_text>().swap(text_kinds_);
        texts_seen_ = {};
        last_ = ~std::size_t{0};
        slices_ = 0;
    }

private:
    struct call {
        enum kind_t : std::uint8_t { slice, counter_track, flow_start, flow_end, placed_start, placed_end, text } kind;
        int pid;           // a text: its pf_text
        std::int64_t tid;  // a counter track: its index in tracks_; a placed flow: its track; a text: its index in texts_
        double ts_us, dur_us;  // a flow: its id in dur_us (exact: ids are below 2^31)
        std::int64_t event_id;  // a flow: its bind id; a placed one: its slice
    };
    // A counter track, once per chunk (the first pass only registers
    // tracks, in the order they first appear); the last one is checked
    // first, as a phase's points come in runs on the same tracks.
    void note_track(int pid, std::string_view name) {
        if (last_ != ~std::size_t{0} && tracks_[last_].first == pid && same_text(tracks_[last_].second, name)) {
            return;
        }
        for (std::size_t i = 0; i < tracks_.size(); ++i) {
            if (tracks_[i].first == pid && same_text(tracks_[i].second, name)) {
                last_ = i;
                return;
            }
        }
        last_ = tracks_.size();
        tracks_.emplace_back(pid, std::string(name));
        calls_.push_back({call::counter_track, pid, static_cast<std::int64_t>(last_), 0.0, 0.0, -1});
    }
    // A text to intern, once per chunk as a rule: one seen at the same
    // address with the same bytes and kind is not noted again. (Noted twice,
    // it is interned once: the backend finds it.)
    void note_text(pf_text kind, std::string_view text) {
        pf_address_cache::slot& seen = texts_seen_.of(text);
        if (seen.data == text.data() && seen.iid != 0) {
            const std::size_t at = seen.iid - 1;
            if (text_kinds_[at] == kind && same_text(texts_[at], text)) return;
        }
        seen = {text.data(), static_cast<std::uint32_t>(texts_.size() + 1)};
        calls_.push_back({call::text, static_cast<int>(kind), static_cast<std::int64_t>(texts_.size()), 0.0, 0.0, -1});
        texts_.emplace_back(text);
        text_kinds_.push_back(kind);
    }

    std::vector<call> calls_;
    std::vector<std::string> texts_;  // the chunk's texts to intern
    std::vector<pf_text> text_kinds_;
    pf_address_cache texts_seen_;     // -> index in texts_ + 1
    std::uint32_t slices_ = 0;
    std::vector<std::pair<int, std::string>> tracks_;  // the chunk's counter tracks
    std::size_t last_ = ~std::size_t{0};
    const pf_backend* placer_ = nullptr;
    std::vector<std::uint32_t> fingers_;  // place_flow()'s, per track
};

}  // namespace dfx::convert::swimlane::trace
