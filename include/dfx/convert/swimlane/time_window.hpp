// time_window: `dfx swimlane --window START:END` (and --tasks FIRST:LAST,
// which becomes the time span of those tasks): the trace of one stretch of
// time only. START and END are µs on the trace's own time base, the numbers
// its "ts" fields hold. What is kept (window_gate, used by event_sink for
// both formats, so no section filters anything itself):
//
//   slices    every slice that overlaps [START, END] (closed: a slice ending
//             at START or beginning at END is kept), WHOLE, not clipped: its
//             ts, dur, args and id are the full trace's, so a windowed trace
//             is a subset of the full one event for event, durations and the
//             statistics the UI derives from them stay true, and the flows
//             that bind to a slice by id or by time still find it. A slice
//             crossing a boundary therefore shows in both neighbouring
//             windows, and the timeline reaches a little past START / END.
//   flows     an arrow whose two endpoints both lie in [START, END] (with
//             their original flow ids); one end outside drops the arrow.
//   counters  every point in [START, END], and per track the value in force
//             at START (its last point before START) re-anchored at START,
//             unless the track has a point exactly at START.
//   metadata  process / thread names, sort indices, the trace's "metadata"
//             object: all of them, whatever the window holds.
//
//   const auto w = parse_time_window("1500:2500");        // or throws window_error
//   trace_options opt; opt.window = w;                    // write_trace applies it
//
// Events outside the window are still formatted (in a scratch buffer) and
// then dropped, so event and flow ids are numbered exactly as in the full
// trace. What the window saves is the output (and the Perfetto backend's
// per-event tables, which only hold kept events); the capture itself is read
// and indexed whole before the trace is written.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dfx/convert/common/json_buffer.hpp"
#include "dfx/convert/swimlane/perf_data.hpp"

namespace dfx::convert::swimlane {

// A malformed --window / --tasks value; what() names the flag.
struct window_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// [start_us, end_us], closed, on the trace's time base.
struct time_window {
    double start_us = 0;
    double end_us = 0;
    [[nodiscard]] bool holds(double ts) const noexcept { return ts >= start_us && ts <= end_us; }
    [[nodiscard]] bool overlaps(double ts, double dur) const noexcept {
        return ts <= end_us && ts + dur >= start_us;
    }
};

namespace window_detail {

// Largest bound accepted: the Perfetto backend keeps ns in an int64.
inline constexpr double max_us = 9.0e12;

// A plain non-negative decimal ("1500", "1500.25"): no sign, exponent,
// spaces, inf or nan. Returns false when it is not one.
inline bool parse_us(std::string_view s, double& out) {
    if (s.empty()) return false;
    auto digits = [&](std::size_t& i) {
        const std::size_t from = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
        return i > from;
    };
    std::size_t i = 0;
    if (!digits(i)) return false;
    if (i < s.size() && s[i] == '.' && !digits(++i)) return false;
    if (i != s.size()) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc{} && r.ptr == s.data() + s.size() && std::isfinite(out);
}

inline bool parse_id(std::string_view s, std::uint64_t& out) {
    if (s.empty() || s.front() < '0' || s.front() > '9') return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc{} && r.ptr == s.data() + s.size();
}

// "A:B" split at its one colon, or throws naming `flag`.
inline std::pair<std::string_view, std::string_view> halves(std::string_view text, std::string_view flag,
                                                            std::string_view form) {
    const auto colon = text.find(':');
    if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos) {
        throw window_error(std::string(flag) + ": expected " + std::string(form) + ", got '" + std::string(text) + "'");
    }
    return {text.substr(0, colon), text.substr(colon + 1)};
}

}  // namespace window_detail

// --window START:END: non-negative µs (decimals allowed), START <= END.
inline time_window parse_time_window(std::string_view text) {
    using namespace window_detail;
    const auto [a, b] = halves(text, "--window", "START:END in µs (e.g. 1500:2500)");
    time_window w;
    for (const auto& [part, value] : {std::pair{a, &w.start_us}, std::pair{b, &w.end_us}}) {
        if (!parse_us(part, *value)) {
            throw window_error("--window: '" + std::string(part) + "' in '" + std::string(text) +
                               "' is not a non-negative number of µs");
        }
        if (*value > max_us) {
            throw window_error("--window: '" + std::string(part) + "' is out of range (at most 9e12 µs)");
        }
    }
    if (w.start_us > w.end_us) {
        throw window_error("--window: START is after END in '" + std::string(text) + "'");
    }
    return w;
}

// --tasks FIRST:LAST: a range of task ids (as the records number them),
// FIRST <= LAST.
struct task_range {
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    [[nodiscard]] bool holds(std::uint64_t id) const noexcept { return id >= first && id <= last; }
};

inline task_range parse_task_range(std::string_view text) {
    using namespace window_detail;
    const auto [a, b] = halves(text, "--tasks", "FIRST:LAST task ids (e.g. 100:199)");
    task_range r;
    if (!parse_id(a, r.first) || !parse_id(b, r.last)) {
        throw window_error("--tasks: '" + std::string(text) +
                           "' is not two non-negative task ids in range (FIRST:LAST)");
    }
    if (r.first > r.last) throw window_error("--tasks: FIRST is after LAST in '" + std::string(text) + "'");
    return r;
}

// The time the tasks of `r` span: from the earliest start of their slices
// (received on the core, or dispatched by the AICPU when it was) to the
// latest end (finished, on the core or the AICPU). Null when the capture has
// no task in the range.
inline std::optional<time_window> window_of_tasks(const perf_data& pd, const task_range& r) {
    std::optional<time_window> w;
    for (const task& t : pd.tasks) {
        if (!r.holds(t.task_id)) continue;
        double lo = std::min(t.receive_us, t.start_us), hi = t.end_us;
        if (t.joined) {
            lo = std::min(lo, t.dispatch_us);
            hi = std::max(hi, t.finish_us);
        }
        if (!w) w = time_window{lo, hi};
        w->start_us = std::min(w->start_us, lo);
        w->end_us = std::max(w->end_us, hi);
    }
    return w;
}

namespace trace {

// The window's state while a trace is written: the flow start waiting for
// its end, and per counter track the point in force at START. One gate per
// trace, used by the main event_sink only (a windowed trace is written on
// one thread: see trace_context::in_chunks).
class window_gate {
public:
    explicit window_gate(const time_window& w) : window(w) {}

    const time_window window;
    std::size_t slices_kept = 0;
    std::size_t flows_kept = 0;

    // Where an event outside the window is formatted, then forgotten.
    json_buffer& discard() {
        const std::size_t capacity = scratch_.capacity();
        scratch_ = json_buffer(scratch_.release(), capacity);  // emptied, its block kept
        return scratch_;
    }

    // ---- flows: an 's' endpoint waits for its 'f' (they come in pairs) ----
    struct pending_flow {
        std::int64_t id = -1;
        double ts = 0;
        std::string_view name;
        int pid = 0;
        std::int64_t tid = 0;
        std::int64_t bind_id = -1, input_count = -1, output_count = -1;
    };
    std::optional<pending_flow> waiting;

    // ---- counters ----
    // What a counter track holds: its in-force point before START, and
    // whether it has a point at START itself (then no anchor is needed).
    // Points need not come in time order (the ready queue's come thread by
    // thread), so the anchors are written when the trace closes.
    struct counter_track {
        bool at_start = false;
        bool held = false;
        double held_ts = 0;
        std::string json;  // JSON backend: the held point, formatted at START
        int pid = 0;       // protobuf backend: the held values
        std::vector<std::pair<std::string, std::int64_t>> values;
    };
    // What to do with a point of track `key` at `ts`: hold it (the latest
    // before START so far), write it (inside) or drop it.
    enum class verdict { hold, write, drop };
    verdict point(const std::string& key, double ts, counter_track*& track) {
        track = &tracks_[key];
        if (ts < window.start_us) {
            // Of points at one time as written, the later one.
            if (track->held && as_written(ts) < as_written(track->held_ts)) return verdict::drop;
            track->held = true;
            track->held_ts = ts;
            return verdict::hold;
        }
        if (ts > window.end_us) return verdict::drop;
        if (ts == window.start_us) track->at_start = true;
        return verdict::write;
    }
    // The points in force at START of the tracks with none at START, in key
    // order; once.
    template <class Write>
    void flush_held(Write&& write) {
        for (auto& [key, t] : tracks_) {
            if (t.held && !t.at_start) write(t);
            t.held = false;
        }
    }

private:
    // A time as the JSON writes it (json_buffer::append_us: 6 decimals below
    // 1e9 µs, the full double above), scaled: times equal as written compare
    // equal.
    static double as_written(double ts) { return std::abs(ts) < 1e9 ? std::round(ts * 1e6) : ts; }

    json_buffer scratch_;
    std::map<std::string, counter_track> tracks_;
};

}  // namespace trace
}  // namespace dfx::convert::swimlane
