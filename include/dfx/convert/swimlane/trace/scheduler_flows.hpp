// scheduler_flows: the arrows between the scheduler and the task slices:
//   complete         a task's slices (both views) -> the complete phase that
//                    noticed its last subtask finish;
//   complete→ready   the complete phase that finished a consumer's last
//                    producer -> the consumer's first dispatch (deps.json);
//   dispatch         the dispatching thread -> the task's Worker and
//                    Scheduler View slices;
//   submit→dispatch  the orchestrator's first submit of a task -> its dispatch.
//
//   write_complete_flows(cx, index);
//   const dispatch_threads threads(index, cx.opt.verbose);
//   write_dispatch_flows(cx, index, threads);
//   write_submit_flows(cx, index, threads);
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "dfx/convert/swimlane/trace/context.hpp"
#include "dfx/convert/swimlane/trace/dispatch_threads.hpp"
#include "dfx/convert/swimlane/trace/index.hpp"
#include "dfx/convert/swimlane/trace/layout.hpp"

namespace dfx::convert::swimlane::trace {

// Arrow sources sit this far inside the end of their slice, so Perfetto
// binds them to it and not to the next slice.
inline constexpr double flow_epsilon_us = 0.01;

// A logical task and the complete phase that noticed it finish (24 bytes:
// one per task, held through the complete arrows' sections).
struct completion {
    std::uint64_t id;
    double finish;
    std::uint32_t thread;
    std::uint32_t rank;  // in index.completes[thread] (its start and end there)
};

namespace flow_detail {

// Per task id with a finish: the last subtask's finish completes the
// logical task, and the complete phase of its core's thread noticed it.
inline std::vector<completion> completions(const trace_index& index) {
    const auto& tasks = index.tasks;
    std::vector<completion> done;
    done.reserve(index.groups.size());  // (at most one each: no doubled capacity)
    for (const id_group& g : index.groups) {
        std::uint32_t last = none;
        for (std::uint32_t r = g.first; r < g.first + g.count; ++r) {
            if (tasks[r].finish_us < 0) continue;
            if (last == none || tasks[r].finish_us > tasks[last].finish_us) last = r;
        }
        if (last == none) continue;
        const std::int64_t th = index.thread_of_core(tasks[last].core_id);
        if (th < 0 || th >= static_cast<std::int64_t>(index.pd.sched.size())) continue;
        const auto thread = static_cast<std::size_t>(th);
        const auto k = index.complete_for(thread, tasks[last].finish_us);
        if (!k) continue;
        done.push_back({g.id, tasks[last].finish_us, static_cast<std::uint32_t>(thread), *k});
    }
    return done;
}

inline void write_complete_arrows(event_sink& ev, const trace_index& index, const completion& d, std::int64_t& flow,
                                  part_state& part) {
    const std::int64_t dst_tid = layout::sched_lane_tid(static_cast<std::int64_t>(d.thread));
    const double comp_start = index.complete_starts[d.thread][d.rank];
    const double dst_ts = comp_start <= d.finish && d.finish <= index.complete_ends[d.thread][d.rank] ? d.finish : comp_start;
    index.row_anchors_of(d.id, view::worker, part.preds);
    for (const auto& a : part.preds) {
        ev.flow(flow, "complete", 's', layout::worker_view_pid, layout::core_tid(a.core), a.end - flow_epsilon_us,
                index.worker_event_of(a.row));
        ev.flow(flow, "complete", 'f', layout::scheduler_pid, dst_tid, dst_ts);
        ++flow;
    }
    index.row_anchors_of(d.id, view::scheduler, part.preds);
    for (const auto& a : part.preds) {
        const task& t = index.tasks[a.row];
        if (t.finish_us <= 0) continue;
        ev.flow(flow, "complete", 's', layout::scheduler_view_pid, index.sched_tid_of(a.row),
                t.finish_us - flow_epsilon_us, index.sched_event_of(a.row));
        ev.flow(flow, "complete", 'f', layout::scheduler_pid, dst_tid, dst_ts);
        ++flow;
    }
}

// A complete phase, by (end, thread, start order).
struct comp_ref {
    double end;
    std::uint32_t thread;
    std::uint32_t rank;  // position in completes[thread]
};

// Calls f(comp_ref) for every complete phase by (end, thread, start order),
// of `ends`: per thread, its complete phases' ends in start order (the trace
// index's complete_ends). A thread's phases follow one another, so each
// thread's are usually in end order already: they are merged then, holding
// nothing (a table of them all was 16 bytes a phase at the JSON trace's
// peak); else, or with many threads, sorted.
template <class F>
void for_each_complete_by_end(const std::vector<std::vector<double>>& ends, F&& f) {
    constexpr std::size_t merged_threads = 16;  // (the merge scans every thread's next phase per phase)
    bool in_end_order = ends.size() <= merged_threads;
    for (std::size_t th = 0; in_end_order && th < ends.size(); ++th) in_end_order = std::is_sorted(ends[th].begin(), ends[th].end());
    if (in_end_order) {
        std::vector<std::uint32_t> next(ends.size(), 0);  // per thread: its next phase
        for (;;) {
            std::uint32_t pick = none;
            for (std::uint32_t th = 0; th < ends.size(); ++th) {
                if (next[th] < ends[th].size() && (pick == none || ends[th][next[th]] < ends[pick][next[pick]])) pick = th;
            }
            if (pick == none) return;
            f(comp_ref{ends[pick][next[pick]], pick, next[pick]});
            ++next[pick];
        }
    }
    std::size_t count = 0;
    for (const auto& c : ends) count += c.size();
    std::vector<comp_ref> order;
    order.reserve(count);
    for (std::uint32_t th = 0; th < ends.size(); ++th) {
        for (std::uint32_t k = 0; k < ends[th].size(); ++k) order.push_back({ends[th][k], th, k});
    }
    std::sort(order.begin(), order.end(), [](const comp_ref& a, const comp_ref& b) {
        if (a.end != b.end) return a.end < b.end;
        return a.thread != b.thread ? a.thread < b.thread : a.rank < b.rank;
    });
    for (const comp_ref& c : order) f(c);
}

// The consumer group's earliest-dispatched row, or none.
inline std::uint32_t first_dispatched_row(const trace_index& index, const id_group& g) {
    std::uint32_t first = none;
    for (std::uint32_t r = g.first; r < g.first + g.count; ++r) {
        if (index.tasks[r].dispatch_us < 0) continue;
        if (first == none || index.tasks[r].dispatch_us < index.tasks[first].dispatch_us) first = r;
    }
    return first;
}

// Walk complete phases by (end, thread); the one that satisfies a
// consumer's last predecessor released it. Phases of one thread ending
// together keep their start order.
inline void write_complete_ready_flows(trace_context& cx, const trace_index& index, const std::vector<completion>& done) {
    const deps_graph& deps = index.deps;
    std::vector<std::size_t> slot_base(index.completes.size() + 1, 0);  // thread -> first slot of its complete phases
    for (std::size_t th = 0; th < index.completes.size(); ++th) slot_base[th + 1] = slot_base[th] + index.completes[th].size();
    // Tasks completed by each complete phase, in task-id order: a counting
    // sort of `done` by (thread, rank) slot.
    std::vector<std::uint32_t> first_done(slot_base.back() + 1, 0), by_phase(done.size());
    for (const auto& d : done) ++first_done[slot_base[d.thread] + d.rank + 1];
    for (std::size_t k = 1; k < first_done.size(); ++k) first_done[k] += first_done[k - 1];
    // first_done[slot] walks to where the next slot's begin as its tasks are
    // placed: shifted back after (no copy to walk).
    for (std::uint32_t i = 0; i < done.size(); ++i) by_phase[first_done[slot_base[done[i].thread] + done[i].rank]++] = i;
    for (std::size_t k = first_done.size() - 1; k > 0; --k) first_done[k] = first_done[k - 1];
    first_done[0] = 0;
    // Predecessors not yet complete, per consumer with rows (only those can
    // have an arrow).
    std::vector<std::uint32_t> waiting(index.groups.size(), 0);
    for (const deps_edge& e : deps.edges) {
        if (const std::uint32_t g = index.group_index(e.succ); g != id_index::npos) ++waiting[g];
    }
    std::vector<std::uint32_t> triggered;
    for_each_complete_by_end(index.complete_ends, [&](const comp_ref& c) {
        const std::size_t slot = slot_base[c.thread] + c.rank;
        triggered.clear();
        for (std::uint32_t k = first_done[slot]; k < first_done[slot + 1]; ++k) {
            auto [slo, shi] = deps.succs(done[by_phase[k]].id);
            for (auto e = slo; e != shi; ++e) {
                const std::uint32_t g = index.group_index(e->succ);
                if (g != id_index::npos && --waiting[g] == 0) triggered.push_back(g);
            }
        }
        const std::int64_t src_tid = layout::sched_lane_tid(static_cast<std::int64_t>(c.thread));
        for (const std::uint32_t gi : triggered) {
            const std::uint32_t first = first_dispatched_row(index, index.groups[gi]);
            if (first == none) continue;
            const std::int64_t th = index.thread_of_core(index.tasks[first].core_id);
            if (th < 0) continue;
            const double d = index.tasks[first].dispatch_us;
            if (d < c.end) continue;  // dispatched before the complete ended: arrow would point back
            cx.ev.flow(cx.flow_id, "complete→ready", 's', layout::scheduler_pid, src_tid, c.end - flow_epsilon_us);
            cx.ev.flow(cx.flow_id, "complete→ready", 'f', layout::scheduler_pid, layout::sched_lane_tid(th), d);
            ++cx.flow_id;
        }
    });
}

}  // namespace flow_detail

inline void write_complete_flows(trace_context& cx, const trace_index& index) {
    if (index.pd.sched.empty() || index.pd.core_to_thread.empty()) return;
    const std::vector<completion> done = flow_detail::completions(index);
    cx.in_chunks(
        done.size(), cx.flow_id,
        [&](std::size_t i) -> std::size_t {
            const id_group* g = index.group(done[i].id);
            return g->anchors + g->finished_anchors;
        },
        [&](event_sink& ev, std::size_t i, std::int64_t& flow, part_state& part) {
            flow_detail::write_complete_arrows(ev, index, done[i], flow, part);
        });
    if (!index.deps.edges_usable) return;
    flow_detail::write_complete_ready_flows(cx, index, done);
}

// Two arrows per dispatched task whose core has a scheduler thread.
inline void write_dispatch_flows(trace_context& cx, const trace_index& index, const dispatch_threads& threads) {
    const auto& tasks = index.tasks;
    std::vector<std::int64_t> thread(tasks.size(), -1);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (tasks[i].dispatch_us >= 0) thread[i] = threads.of(tasks[i].core_id);
    }
    cx.in_chunks(
        tasks.size(), cx.flow_id, [&](std::size_t i) { return thread[i] >= 0 ? 2 : 0; },
        [&](event_sink& ev, std::size_t i, std::int64_t& flow, part_state&) {
            if (thread[i] < 0) return;
            const task& t = tasks[i];
            const auto row = static_cast<std::uint32_t>(i);
            const std::int64_t sched_tid = layout::sched_lane_tid(thread[i]);
            ev.flow(flow, "dispatch", 's', layout::scheduler_pid, sched_tid, t.dispatch_us);
            ev.flow(flow, "dispatch", 'f', layout::worker_view_pid, layout::core_tid(t.core_id), t.start_us);
            ++flow;
            ev.flow(flow, "dispatch", 's', layout::scheduler_pid, sched_tid, t.dispatch_us);
            ev.flow(flow, "dispatch", 'f', layout::scheduler_view_pid, index.sched_tid_of(row), t.dispatch_us,
                    index.sched_event_of(row));
            ++flow;
        });
}

inline void write_submit_flows(trace_context& cx, const trace_index& index, const dispatch_threads& threads) {
    const perf_data& pd = index.pd;
    const auto& tasks = index.tasks;
    if (pd.orch.empty()) return;
    // Host-orchestrated traces without calibrated clocks cannot say how far
    // apart submit and dispatch were: no cross-domain arrows then.
    if (pd.orchestrator_source == "host" && !pd.cross_domain_latency_available) return;
    struct submit {  // 24 bytes: one per submit, held through the flow sections
        std::uint64_t id;
        double end;
        std::uint32_t lane;
        std::uint32_t seq;  // in the order read: of one id's submits, the first is kept
    };
    std::size_t phases = 0;
    for (const auto& lane : pd.orch) phases += lane.size();
    if (phases >= std::size_t{1} << 32) throw std::length_error("dfx swimlane: more than 2^32 orchestrator phases");
    std::vector<submit> first;  // first orch_submit per task id
    first.reserve(phases);
    std::uint32_t seq = 0;
    for (std::uint32_t lane = 0; lane < pd.orch.size(); ++lane) {
        for (const orch_record& r : pd.orch[lane]) {
            if (r.task_id.valid()) first.push_back({r.task_id.value, pd.orch_us(r.end), lane, seq++});
        }
    }
    // By (id, order read): the order a stable sort by id gives, without its buffer.
    std::sort(first.begin(), first.end(),
              [](const submit& a, const submit& b) { return a.id != b.id ? a.id < b.id : a.seq < b.seq; });
    first.erase(std::unique(first.begin(), first.end(), [](const submit& a, const submit& b) { return a.id == b.id; }),
                first.end());
    if (first.empty()) return;
    // Per task: its first submit, when it has one and a dispatch arrow.
    std::vector<const submit*> submit_of(tasks.size(), nullptr);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const task& t = tasks[i];
        if (t.dispatch_us < 0 || threads.of(t.core_id) < 0) continue;
        auto it = std::lower_bound(first.begin(), first.end(), t.task_id,
                                   [](const submit& s, std::uint64_t id) { return s.id < id; });
        if (it != first.end() && it->id == t.task_id) submit_of[i] = &*it;
    }
    cx.in_chunks(
        tasks.size(), cx.flow_id, [&](std::size_t i) { return submit_of[i] ? 1 : 0; },
        [&](event_sink& ev, std::size_t i, std::int64_t& flow, part_state&) {
            const submit* s = submit_of[i];
            if (!s) return;
            const task& t = tasks[i];
            ev.flow(flow, "submit→dispatch", 's', layout::host_pid, layout::orchestrator_tid(s->lane), s->end);
            ev.flow(flow, "submit→dispatch", 'f', layout::scheduler_pid, layout::sched_lane_tid(threads.of(t.core_id)),
                    t.dispatch_us);
            ++flow;
        });
}

}  // namespace dfx::convert::swimlane::trace
