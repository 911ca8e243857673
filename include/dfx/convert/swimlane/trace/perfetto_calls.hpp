// perfetto_calls: what a chunk of a section hands the protobuf backend's
// second pass (perfetto_begins.hpp), recorded on the thread that runs the
// chunk and handed in later, in chunk order (trace_context::in_chunks). The
// sections' own work (labels, args, times) then runs on two threads while
// the one encoder writes the packets; the first pass's counterpart, which
// keeps only skeletons, is perfetto_skeletons.hpp.
//
// Every slice and counter call is kept whole. Its texts are copied (a
// section may hand in a temporary, such as a task's label). A category, an
// interned name or an arg's name seen again (at an address still in a
// small table, or with the bytes of one of the chunk's first 64 distinct
// ones) is kept once per chunk: the encoder's interner then finds a
// repeated name by its address, as it does when the sections call it
// directly. A task's label and an arg's text value, mostly unique, are
// always copied.
//
//   pf_call_recorder part;                        // one per chunk
//   event_sink ev(scratch, &part);                // the chunk's items write to it
//   ...
//   part.replay(second_pass);                     // in chunk order, on the encoder's thread
//   part.release();
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "dfx/convert/common/same_text.hpp"
#include "dfx/convert/swimlane/trace/perfetto_fields.hpp"

namespace dfx::convert::swimlane::trace {

class pf_call_recorder final : public pf_chunk_recorder {
public:
    void slice_span(const pf_slice& s, std::span<const pf_arg> args) override {
        call c{};
        c.kind = call::slice;
        c.name_kind = s.name_kind;
        c.pid = s.pid;
        c.tid = s.tid;
        c.ts_us = s.ts_us;
        c.dur_us = s.dur_us;
        c.event_id = s.event_id;
        c.cat = kept(s.cat);
        c.name = s.name_kind == pf_slice::inline_text ? copied(s.name) : kept(s.name);
        c.first = args_.size();
        c.count = static_cast<std::uint32_t>(args.size());
        for (const pf_arg& a : args) {
            args_.push_back({kept(a.name), a.kind, a.i, a.d, a.kind == pf_arg::text ? copied(a.s) : text{}});
        }
        calls_.push_back(c);
    }
    void counter(int pid, std::string_view name, double ts_us, std::int64_t value) override {
        const pf_point point{name, value};
        record_counters(call::counter, pid, std::span<const pf_point>(&point, 1), ts_us);
    }
    void counters_span(int pid, std::span<const pf_point> points, double ts_us) override {
        record_counters(call::counters, pid, points, ts_us);
    }
    void flow(std::int64_t, char, int, std::int64_t, double, std::int64_t) override {
        throw std::logic_error("perfetto_trace: a flow in the second pass");
    }

    // Hands the calls to `to`, in the order they were made.
    void replay(pf_backend& to) {
        for (const call& c : calls_) {
            if (c.kind == call::slice) {
                args_out_.clear();
                for (std::size_t i = c.first; i < c.first + c.count; ++i) {
                    const arg& a = args_[i];
                    args_out_.push_back({view(a.name), a.kind, a.i, a.d, view(a.s)});
                }
                to.slice_span({view(c.cat), view(c.name), c.pid, c.tid, c.ts_us, c.dur_us, c.event_id, c.name_kind},
                              args_out_);
                continue;
            }
            points_out_.clear();
            for (std::size_t i = c.first; i < c.first + c.count; ++i) {
                points_out_.push_back({view(points_[i].name), points_[i].value});
            }
            if (c.kind == call::counter) {
                to.counter(c.pid, points_out_[0].first, c.ts_us, points_out_[0].second);
            } else {
                to.counters_span(c.pid, points_out_, c.ts_us);
            }
        }
    }

    // Frees what was recorded (once it is replayed).
    void release() {
        std::vector<call>().swap(calls_);
        std::vector<arg>().swap(args_);
        std::vector<point>().swap(points_);
        std::string().swap(chars_);
        std::vector<text>().swap(distinct_);
        std::vector<pf_arg>().swap(args_out_);
        std::vector<pf_point>().swap(points_out_);
        seen_.fill({});
    }

private:
    // A text: where its bytes are in chars_ (which may move as it grows).
    struct text {
        std::size_t at = 0, size = 0;
    };
    struct call {
        enum kind_t : std::uint8_t { slice, counter, counters } kind;
        pf_slice::name_mode name_kind;
        int pid;
        std::int64_t tid;
        double ts_us, dur_us;
        std::int64_t event_id;
        text cat, name;
        std::size_t first;   // its args (a slice) or points (a counter call)
        std::uint32_t count;
    };
    struct arg {
        text name;
        pf_arg::kind_t kind;
        std::int64_t i;
        double d;
        text s;
    };
    struct point {
        text name;
        std::int64_t value;
    };

    void record_counters(call::kind_t kind, int pid, std::span<const pf_point> points, double ts_us) {
        call c{};
        c.kind = kind;
        c.pid = pid;
        c.ts_us = ts_us;
        c.first = points_.size();
        c.count = static_cast<std::uint32_t>(points.size());
        for (const pf_point& p : points) points_.push_back({kept(p.first), p.second});
        calls_.push_back(c);
    }

    text copied(std::string_view s) {
        const text t{chars_.size(), s.size()};
        chars_.append(s);
        return t;
    }
    // A text the sections hand in again and again (a category, a phase's
    // name, an arg's name): most are string literals, so the same address,
    // looked up by it first; else by its bytes among the chunk's first
    // distinct ones, so that equal texts come back at one address however
    // the addresses fall in the table.
    text kept(std::string_view s) {
        seen& e = seen_[((reinterpret_cast<std::uintptr_t>(s.data()) >> 3) ^ s.size()) % seen_.size()];
        if (e.from == s.data() && same_text(view(e.t), s)) {
            return e.t;
        }
        e.from = s.data();
        for (const text t : distinct_) {
            if (same_text(view(t), s)) return e.t = t;
        }
        e.t = copied(s);
        if (distinct_.size() < max_distinct) distinct_.push_back(e.t);
        return e.t;
    }
    [[nodiscard]] std::string_view view(text t) const noexcept { return {chars_.data() + t.at, t.size}; }


    struct seen {
        const char* from = nullptr;
        text t;
    };
    std::vector<call> calls_;
    std::vector<arg> args_;
    std::vector<point> points_;
    std::string chars_;
    std::array<seen, 64> seen_{};
    static constexpr std::size_t max_distinct = 64;
    std::vector<text> distinct_;  // the chunk's first distinct kept texts
    std::vector<pf_arg> args_out_;      // the call being replayed
    std::vector<pf_point> points_out_;  // ...
};

}  // namespace dfx::convert::swimlane::trace
