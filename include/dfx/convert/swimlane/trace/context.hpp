// context: what the sections of a swimlane trace share while they write:
// the options, the event stream, the summary they add to, the two running
// numbers (flow ids, marker / alloc-bar event ids) and in_chunks, which
// formats a long section on two threads in item order (ordered_chunks.hpp).
//
//   trace_context cx(file, options, index.first_free_event_id);
//   cx.in_chunks(n, [&](event_sink& ev, std::size_t i) { ...ev.next()... });
//   cx.in_chunks(n, cx.flow_id, numbers_of, body);   // items drawing flow ids
//   cx.ev.close(metadata); cx.summary.events = cx.ev.count();
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "dfx/convert/common/io_progress.hpp"
#include "dfx/convert/common/json_writer.hpp"
#include "dfx/convert/common/ordered_chunks.hpp"
#include "dfx/convert/swimlane/time_window.hpp"
#include "dfx/convert/swimlane/trace/event_shapes.hpp"
#include "dfx/convert/swimlane/trace/index.hpp"
#include "dfx/convert/swimlane/trace/perfetto_begins.hpp"
#include "dfx/convert/swimlane/trace/perfetto_skeletons.hpp"

namespace dfx::convert::swimlane {

// The trace's file format: Chrome trace JSON (the reference's), or
// Perfetto's native protobuf (perfetto_packets.hpp), several times smaller.
enum class trace_format { json, perfetto };

struct trace_options {
    trace_format format = trace_format::json;
    bool overhead = false;  // add the 8 --overhead counter tracks
    std::FILE* verbose = nullptr;  // progress / diagnostics (-v), or null
    std::FILE* warnings = stderr;
    // Items (tasks, records, edges) per chunk of a section formatted on two
    // threads: each chunk's events take well under an output block (a few
    // hundred bytes per item), and a section has many chunks to share. The
    // output does not depend on it (tests use tiny chunks).
    std::size_t chunk_items = 1024;
    // --window / --tasks: write only this stretch of time (time_window.hpp).
    std::optional<time_window> window;
    // critical-path's CPM traces: the Worker View bars of tasks not in this
    // set are named ·(tY) (anonymous_task_label), so the path stands out.
    // Null: every bar keeps its label.
    const std::unordered_set<std::uint64_t>* named_tasks = nullptr;
};

struct trace_summary {
    std::size_t events = 0;
    std::size_t flows = 0;  // flow ids used
    std::size_t dependency_flows = 0;
    std::size_t hb_violations = 0;
    std::size_t overhead_points = 0;
    std::size_t window_slices = 0;  // with a window: the slices it kept
    std::size_t window_flows = 0;   // ... and the flow arrows
};

namespace trace {

// What one chunk's items share: counters, scratch space, and where the
// chunk is in a scheduler thread's phases (its items read them in order).
struct part_state {
    std::size_t hb_violations = 0;
    std::vector<anchor> preds, succs;
    sched_phases::reader phases;
    orch_phase_marks::reader orch;
};

class trace_context {
public:
    // `pb`: the protobuf backend, or null for JSON.
    trace_context(json_file_writer& file, const trace_options& options, std::int64_t first_free_event_id,
                  pf_backend* pb = nullptr)
        : opt(options), window_(opt.window ? std::make_unique<window_gate>(*opt.window) : nullptr),
          ev(file, pb, window_.get()), next_event_id(first_free_event_id), file_(file) {}

    const trace_options opt;

private:
    std::unique_ptr<window_gate> window_;  // declared before ev, which points to it

public:
    event_sink ev;  // the main stream; sections' parts are counted into it
    trace_summary summary;
    std::int64_t flow_id = 0;        // next flow id
    std::int64_t next_event_id = 0;  // next marker / alloc-bar event id

    // Writes items [0, n) of a section in chunks on two threads.
    // `numbers_of(i)`: how many numbers item i draws from `counter` (flow
    // ids, event ids); `body(ev, i, number, part)` writes item i's events,
    // drawing `number++`. Everything a body reads must stay unchanged while
    // the section runs.
    template <class NumbersOf, class Body>
    void in_chunks(std::size_t n, std::int64_t& counter, NumbersOf&& numbers_of, Body&& body) {
        if (ev.protobuf() && !ev.window()) {
            if (ev.protobuf()->wants_skeletons_only()) {
                return recorded_in_chunks<pf_skeleton_recorder>(n, counter, numbers_of, body);
            }
            if (ev.protobuf()->second_pass()) {
                return recorded_in_chunks<pf_begin_encoder>(n, counter, numbers_of, body);
            }
        }
        if (ev.window() || ev.protobuf()) {
            // A window keeps state across items (a counter's value in force
            // at START, a flow's start), and a backend of another kind (a
            // test's) takes the calls as they come: one thread, in item
            // order, drawing from the counter directly.
            part_state state;
            io_progress::stage_ticker shown(ev.count());
            for (std::size_t i = 0; i < n; ++i) {
                body(ev, i, counter, state);
                shown.tick(ev.count());
            }
            shown.finish(ev.count());
            summary.hb_violations += state.hb_violations;
            return;
        }
        struct part_stats {
            std::size_t events = 0;
            std::size_t hb_violations = 0;
            part_stats& operator+=(const part_stats& o) {
                events += o.events;
                hb_violations += o.hb_violations;
                return *this;
            }
        };
        const auto stats = format_in_order<part_stats>(
            file_, n, std::max<std::size_t>(opt.chunk_items, 1), counter, numbers_of,
            [&](const item_chunk& c, json_buffer& out, std::int64_t& number) {
                event_sink part(out, event_sink::part);
                part_state state;
                for (std::size_t i = c.begin; i < c.end; ++i) body(part, i, number, state);
                io_progress::add_stage_items(part.count());
                return part_stats{part.count(), state.hb_violations};
            });
        ev.add_count(stats.events);
        summary.hb_violations += stats.hb_violations;
    }
    // A section that draws no numbers: `body(ev, i)`.
    template <class Body>
    void in_chunks(std::size_t n, Body&& body) {
        std::int64_t unused = 0;
        in_chunks(n, unused, [](std::size_t) { return 0; },
                  [&](event_sink& part, std::size_t i, std::int64_t&, part_state&) { body(part, i); });
    }

private:
    // A section for the protobuf backend: chunks run on two threads into
    // what the pass keeps of them, handed to it in chunk order on this
    // thread as they are done: in the first pass the calls it keeps,
    // recorded (perfetto_skeletons.hpp), then replayed; in the second the
    // chunk's packets, encoded where the chunk runs (perfetto_begins.hpp),
    // then written. The same result as one thread making the calls in
    // order, each chunk drawing its numbers from where the counting pass put
    // it (as format_in_order does).
    //
    // This thread hands in whatever is done before it runs a chunk itself.
    // Neither thread runs a chunk more than `ahead` chunks past the last one
    // handed in, so what waits stays a few chunks' worth however slow the
    // hand-over is.
    template <class Recorder, class NumbersOf, class Body>
    void recorded_in_chunks(std::size_t n, std::int64_t& counter, NumbersOf&& numbers_of, Body&& body) {
        constexpr bool first_pass = std::is_same_v<Recorder, pf_skeleton_recorder>;
        const std::vector<item_chunk> chunks =
            numbered_chunks(n, std::max<std::size_t>(opt.chunk_items, 1), counter, numbers_of);
        pf_backend& backend = *ev.protobuf();
        // The second pass: where each chunk's slices start (the first pass's count).
        std::vector<pf_chunk_span> spans;
        if constexpr (!first_pass) spans = backend.second_pass()->plan_section(chunks.size());
        std::vector<std::uint32_t> slices_per_chunk;  // the first pass's count
        struct part {
            Recorder calls;
            std::size_t events = 0, hb_violations = 0;
            std::exception_ptr error;
            std::atomic<bool> done{false};
        };
        constexpr std::size_t ahead = 8;
        std::unique_ptr<part[]> parts(new part[chunks.size()]);
        std::atomic<std::size_t> next{0};
        std::atomic<bool> failed{false};
        std::atomic<std::size_t> runs_below{ahead};  // the other thread runs chunks below it
        const auto run = [&](std::size_t k) {
            part& p = parts[k];
            try {
                if constexpr (first_pass) {
                    p.calls.place_flows_with(&backend);
                } else {
                    p.calls.start(backend.second_pass()->plan(), spans[k]);
                }
                json_buffer unused;
                event_sink sink(unused, &p.calls);
                part_state state;
                std::int64_t number = chunks[k].first_number;
                for (std::size_t i = chunks[k].begin; i < chunks[k].end; ++i) body(sink, i, number, state);
                if (number != chunks[k].first_number + chunks[k].numbers) {
                    throw std::logic_error("trace_context: a chunk's items drew other numbers than they said");
                }
                p.events = sink.count();
                p.hb_violations = state.hb_violations;
            } catch (...) {
                p.error = std::current_exception();
                failed = true;
            }
            p.done.store(true, std::memory_order_release);
            p.done.notify_all();
        };
        std::size_t handed = 0;  // chunks handed to the backend
        const auto let_run = [&](std::size_t below) {
            runs_below.store(below);
            runs_below.notify_all();
        };
        const auto hand_done = [&] {
            while (handed < chunks.size() && parts[handed].done.load(std::memory_order_acquire)) {
                part& p = parts[handed];
                if (p.error) std::rethrow_exception(p.error);
                if constexpr (first_pass) {
                    p.calls.replay(backend);
                    slices_per_chunk.push_back(p.calls.slices());
                } else {
                    backend.second_pass()->write_chunk(p.calls);
                }
                ev.add_count(p.events);
                io_progress::add_stage_items(p.events);
                summary.hb_violations += p.hb_violations;
                p.calls.release();
                let_run(++handed + ahead);  // one more may run as soon as this one is in
            }
        };
        std::thread helper([&] {
            for (std::size_t k; !failed && (k = next.fetch_add(1)) < chunks.size();) {
                for (std::size_t below; k >= (below = runs_below.load());) runs_below.wait(below);
                if (failed) break;
                run(k);
            }
        });
        const auto stop_helper = [&] {
            let_run(~std::size_t{0});
            helper.join();
        };
        try {
            for (;;) {
                hand_done();
                if (handed == chunks.size() || failed) break;
                // Chunk `handed` is taken and not done: the other thread runs
                // it. Run one here only within the same bound as that thread.
                if (next.load() < handed + ahead) {
                    if (const std::size_t k = next.fetch_add(1); k < chunks.size()) {
                        run(k);
                        continue;
                    }
                }
                parts[handed].done.wait(false);
            }
        } catch (...) {
            failed = true;
            stop_helper();
            throw;
        }
        stop_helper();
        // A chunk failed: its error, or the first one's (a chunk taken after
        // the failure may not have run).
        for (std::size_t k = 0; k < chunks.size(); ++k) {
            if (parts[k].error) std::rethrow_exception(parts[k].error);
        }
        if (handed != chunks.size()) throw std::logic_error("trace_context: a chunk was not handed in");
        if constexpr (first_pass) backend.section_chunks(slices_per_chunk);
    }

    json_file_writer& file_;
};

}  // namespace trace
}  // namespace dfx::convert::swimlane
