// counters: the trace's counter ("C") tracks on the AICPU Scheduler process
// (pid 2): the shared ready queue's depths after each complete / dispatch
// phase, and the 8 --overhead tracks (spec §4.9): per engine (aic, aiv) its
// idle cores, ready tasks and whether it is in overhead (an idle core while
// a ready task waits), then "every engine blocked" and "every working
// engine starved". A track gets a point only when its value changes.
//
//   write_ready_queue_point(ev, record);     // from the scheduler phases
//   write_overhead_counters(cx, index);      // with --overhead, needs deps.json
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "dfx/convert/common/io_progress.hpp"
#include "dfx/convert/swimlane/overhead_model.hpp"
#include "dfx/convert/swimlane/trace/context.hpp"
#include "dfx/convert/swimlane/trace/index.hpp"
#include "dfx/convert/swimlane/trace/layout.hpp"

namespace dfx::convert::swimlane::trace {

// The shared ready queue's (AIC, AIV, MIX) depths at the end of phase `r`
// (`end_us`, perf_data::end_us()).
inline void write_ready_queue_point(event_sink& ev, const sched_record& r, double end_us) {
    if (ev.protobuf()) {
        // One counter track per arg, named as Perfetto's JSON importer names them.
        ev.counters(layout::scheduler_pid,
                    {{"shared_ready_queue AIC", r.depth_end[0]},
                     {"shared_ready_queue AIV", r.depth_end[1]},
                     {"shared_ready_queue MIX", r.depth_end[2]}},
                    end_us);
        return;
    }
    ev.counter_json("shared_ready_queue", end_us, [&](json_buffer& c, double ts) {
        c.append(R"({"args": {"AIC": )");
        c.append_int(r.depth_end[0]);
        c.append(R"(, "AIV": )");
        c.append_int(r.depth_end[1]);
        c.append(R"(, "MIX": )");
        c.append_int(r.depth_end[2]);
        c.append(R"(}, "cat": "queue", "name": "shared_ready_queue", "ph": "C", "pid": )");
        c.append_int(layout::scheduler_pid);
        c.append(R"(, "tid": )");
        c.append_int(layout::ready_queue_tid);
        c.append(R"(, "ts": )");
        c.append_us(ts);
        c.push_back('}');
    });
}

namespace counter_detail {

// Python's round(x, 3): the double nearest to the correctly rounded decimal.
inline double round3(double x) {
    char buf[64];
    auto* end = fmt::format_to(buf, "{:.3f}", x);
    *end = '\0';
    return std::strtod(buf, nullptr);
}

struct track {
    std::string name;
    std::int64_t tid;
    std::int64_t prev = std::numeric_limits<std::int64_t>::min();
};

// Three tracks per swept engine, then the two system-wide ones.
inline std::vector<track> overhead_tracks(const perf_data& pd, const overhead_sweep& sweep) {
    std::vector<track> tracks;
    for (const auto type : sweep.types) {
        const std::string& n = pd.core_type_names[type];
        const std::int64_t base = n == "aic" ? layout::aic_overhead_tid : layout::aiv_overhead_tid;
        tracks.push_back({"oh_" + n + "_idle", base});
        tracks.push_back({"oh_" + n + "_ready", base + 1});
        tracks.push_back({"oh_" + n + "_overhead", base + 2});
    }
    tracks.push_back({"oh_all_overhead", layout::all_overhead_tid});
    tracks.push_back({"oh_has_overhead", layout::has_overhead_tid});
    return tracks;
}

inline void write_point(event_sink& ev, const track& t, double ts, std::int64_t value) {
    if (ev.protobuf()) return ev.counter(layout::scheduler_pid, t.name + " " + t.name, ts, value);
    ev.counter_json(t.name, ts, [&](json_buffer& o, double at) {
        o.append(R"({"ph": "C", "cat": "overhead", "name": )");
        o.append_string(t.name);
        o.append(R"(, "pid": )");
        o.append_int(layout::scheduler_pid);
        o.append(R"(, "tid": )");
        o.append_int(t.tid);
        o.append(R"(, "ts": )");
        o.append_us(at);
        o.append(R"(, "args": {)");
        o.append_string(t.name);
        o.append(": ");
        o.append_int(value);
        o.append("}}");
    });
}

}  // namespace counter_detail

inline void write_overhead_counters(trace_context& cx, const trace_index& index) {
    const perf_data& pd = index.pd;
    const auto& tasks = index.tasks;
    if (!index.deps.has_edges() || tasks.empty()) return;
    overhead_sweep sweep;
    const auto k = cores_per_type(pd);
    for (const char* name : {"aic", "aiv"}) {
        for (std::size_t i = 0; i < pd.core_type_names.size(); ++i) {
            if (pd.core_type_names[i] == name && k[i] > 0) {
                sweep.types.push_back(static_cast<std::uint16_t>(i));
                sweep.k.push_back(k[i]);
            }
        }
    }
    if (sweep.types.empty()) return;
    sweep.w0 = tasks.front().start_us;
    sweep.w1 = tasks.front().end_us;
    for (const task& t : tasks) {
        sweep.w0 = std::min(sweep.w0, t.start_us);
        sweep.w1 = std::max(sweep.w1, t.end_us);
    }
    std::vector<counter_detail::track> tracks = counter_detail::overhead_tracks(pd, sweep);
    std::vector<std::int64_t> vals(tracks.size());
    io_progress::stage_ticker shown(cx.ev.count());
    sweep.run(pd, index.deps, [&](double a, double, const auto& running, const auto& ready) {
        bool all = true, has_work = false, work_idle = true;
        for (std::size_t i = 0; i < sweep.types.size(); ++i) {
            const std::int64_t idle = sweep.k[i] - running[i];
            const bool ov = idle > 0 && ready[i] > 0;
            vals[3 * i] = idle;
            vals[3 * i + 1] = ready[i];
            vals[3 * i + 2] = ov ? 1 : 0;
            all = all && ov;
            if (ready[i] > 0) {
                has_work = true;
                work_idle = work_idle && idle > 0;
            }
        }
        vals[vals.size() - 2] = all ? 1 : 0;
        vals[vals.size() - 1] = has_work && work_idle ? 1 : 0;
        const double ts = counter_detail::round3(a);
        for (std::size_t i = 0; i < tracks.size(); ++i) {
            if (tracks[i].prev == vals[i]) continue;
            tracks[i].prev = vals[i];
            counter_detail::write_point(cx.ev, tracks[i], ts, vals[i]);
            ++cx.summary.overhead_points;
        }
        shown.tick(cx.ev.count());
    });
    shown.finish(cx.ev.count());
    if (cx.opt.verbose) {
        fmt::print(cx.opt.verbose, "  Overhead Analysis: {} counter points (8 tracks)\n", cx.summary.overhead_points);
    }
}

}  // namespace dfx::convert::swimlane::trace
