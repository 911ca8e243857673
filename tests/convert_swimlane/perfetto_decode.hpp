// perfetto_decode: a small reader of the protobuf traces perfetto_trace
// writes, for its unit tests, that reads them as trace_processor does: the
// packets sorted by (timestamp, position in the file), then each track's
// BEGIN / END events paired by a stack (a slice on an overflow track is
// reported on its parent thread), flows taken from a slice's BEGIN and END
// in that order: a terminating id read before the id that starts its flow
// is dropped, as trace_processor drops it. Names must be inline
// (pf_slice::inline_text): it does not intern.
//
//   const decoded_trace d = decode_trace(bytes);
//   CHECK(d.problems.empty());
//   for (const decoded_slice& s : d.slices) ... s.name, s.thread, s.begin, s.end, s.flows
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dfx/convert/swimlane/trace/perfetto_fields.hpp"

namespace perfetto_decode {

namespace pf = dfx::convert::swimlane::trace::pf;

struct decoded_slice {
    std::string name;
    std::uint64_t thread = 0;  // the thread track's uuid (an overflow track's parent)
    std::int64_t begin = 0, end = 0;
    std::vector<std::pair<std::uint64_t, bool>> flows;  // (Perfetto flow id, a start), in file order
};

struct decoded_trace {
    std::vector<decoded_slice> slices;
    std::vector<std::uint64_t> dropped_flows;  // ended before they started: trace_processor drops them
    std::vector<std::pair<std::uint64_t, bool>> instant_flows;
    std::vector<std::pair<std::uint64_t, bool>> flow_ids;  // every flow id in file order
    std::vector<std::string> problems;
};

// Calls on_field(field, wire type, payload) for each field of `msg`;
// false if it is malformed. A varint's payload is empty: read it with `value`.
struct message {
    std::string_view bytes;
    struct field {
        std::uint32_t number;
        int wire;
        std::uint64_t value;     // a varint / fixed64
        std::string_view data;   // a length-delimited payload
    };
    template <class OnField>
    bool each(OnField&& on_field) const {
        std::size_t at = 0;
        const auto varint = [&](std::uint64_t& v) {
            v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (at >= bytes.size()) return false;
                const auto byte = static_cast<unsigned char>(bytes[at++]);
                v |= std::uint64_t{byte & 0x7Fu} << shift;
                if (!(byte & 0x80)) return true;
            }
            return false;
        };
        while (at < bytes.size()) {
            std::uint64_t key = 0;
            if (!varint(key)) return false;
            field f{static_cast<std::uint32_t>(key >> 3), static_cast<int>(key & 7), 0, {}};
            if (f.wire == 0) {
                if (!varint(f.value)) return false;
            } else if (f.wire == 1) {
                if (at + 8 > bytes.size()) return false;
                for (int b = 7; b >= 0; --b) f.value = f.value << 8 | static_cast<unsigned char>(bytes[at + b]);
                at += 8;
            } else if (f.wire == 2) {
                std::uint64_t n = 0;
                if (!varint(n) || n > bytes.size() - at) return false;
                f.data = bytes.substr(at, n);
                at += n;
            } else {
                return false;
            }
            on_field(f);
        }
        return true;
    }
};

inline decoded_trace decode_trace(std::string_view trace) {
    decoded_trace d;
    struct event {
        std::int64_t ts = 0;
        std::uint64_t type = 0, track = 0;
        std::string name;
        std::vector<std::pair<std::uint64_t, bool>> flows;
    };
    std::vector<event> events;
    std::map<std::uint64_t, std::uint64_t> parent;  // uuid -> parent uuid
    std::map<std::uint64_t, bool> is_thread;
    const bool whole = message{trace}.each([&](const message::field& p) {
        if (p.number != pf::trace_packet) return d.problems.push_back("a top-level field that is not a packet");
        event ev;
        bool has_event = false;
        const bool ok = message{p.data}.each([&](const message::field& f) {
            if (f.number == pf::packet::timestamp) ev.ts = static_cast<std::int64_t>(f.value);
            if (f.number == pf::packet::track_descriptor) {
                std::uint64_t uuid = 0, up = 0;
                bool thread = false;
                message{f.data}.each([&](const message::field& g) {
                    if (g.number == pf::track::uuid) uuid = g.value;
                    if (g.number == pf::track::parent_uuid) up = g.value;
                    if (g.number == pf::track::thread) thread = true;
                });
                parent[uuid] = up;
                is_thread[uuid] = thread;
            }
            if (f.number != pf::packet::track_event) return;
            has_event = true;
            message{f.data}.each([&](const message::field& g) {
                if (g.number == pf::event::type) ev.type = g.value;
                if (g.number == pf::event::track_uuid) ev.track = g.value;
                if (g.number == pf::event::name) ev.name = std::string(g.data);
                if (g.number == pf::event::flow_ids || g.number == pf::event::terminating_flow_ids) {
                    ev.flows.emplace_back(g.value, g.number == pf::event::flow_ids);
                    d.flow_ids.push_back(ev.flows.back());
                }
            });
        });
        if (!ok) d.problems.push_back("a malformed packet");
        if (has_event) events.push_back(std::move(ev));
    });
    if (!whole) d.problems.push_back("a malformed trace");
    // trace_processor's order: by timestamp, then position in the file.
    std::stable_sort(events.begin(), events.end(), [](const event& a, const event& b) { return a.ts < b.ts; });
    std::map<std::uint64_t, std::vector<const event*>> open;  // track -> its open BEGINs
    std::map<std::uint64_t, bool> active;  // flow id -> started, not ended
    for (const event& ev : events) {
        for (const auto& [id, start] : ev.flows) {
            if (start) {
                if (active[id]) d.problems.push_back("flow " + std::to_string(id) + " started twice");
                active[id] = true;
            } else if (!active[id]) {
                d.dropped_flows.push_back(id);
            } else {
                active[id] = false;
            }
        }
        const std::uint64_t thread = is_thread[ev.track] ? ev.track : parent[ev.track];
        if (ev.type == pf::event::type_slice_begin) {
            open[ev.track].push_back(&ev);
        } else if (ev.type == pf::event::type_slice_end) {
            auto& stack = open[ev.track];
            if (stack.empty()) {
                d.problems.push_back("an END with no open slice at " + std::to_string(ev.ts));
                continue;
            }
            const event& b = *stack.back();
            stack.pop_back();
            decoded_slice s{b.name, thread, b.ts, ev.ts, b.flows};
            s.flows.insert(s.flows.end(), ev.flows.begin(), ev.flows.end());
            d.slices.push_back(std::move(s));
        } else if (ev.type == pf::event::type_instant) {
            d.instant_flows.insert(d.instant_flows.end(), ev.flows.begin(), ev.flows.end());
        }
    }
    for (const auto& [track, stack] : open) {
        if (!stack.empty()) d.problems.push_back(std::to_string(stack.size()) + " slice(s) never closed");
    }
    return d;
}

}  // namespace perfetto_decode
