// The orchestrator thread: runs the workload's orchestration inside a root
// scope, submits each task into the ring of the current scope depth, infers
// its dependencies through the tensor map, wires the live ones and publishes
// the task; stamps its collector view at every submit and scope boundary.
//
// When a ring has no room the orchestrator waits for retirements (the stall
// scope stats shows). When no room can ever come (every submitted task has
// completed and the open scopes hold the rest) it is a fatal error, as on a
// device: the collectors latch, submitted tasks finish, the run fails.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "chip.hpp"

namespace sim {

template <class View>
class orchestrator final : public orchestrator_api {
public:
    orchestrator(chip& c, View& view) : c_(c), view_(view) {
        for (int r = 0; r < ring_count; ++r)
            view_.set_heap_capacity(r, c_.ring_at(r).capacity().heap_bytes);
    }

    // The whole orchestration: the workload inside the root scope. A fatal
    // error latches the collectors (scope stats writes what it had) and ends
    // the orchestration; tasks already submitted still run to completion.
    void run(workload& w) {
        try {
            scope_begin(nullptr, 0);  // the root scope has no site: "(unknown):0"
            w.orchestrate(*this);
            scope_end();
        } catch (const std::exception& e) {
            // fatal_error: a ring too small; anything else: a workload bug.
            fatal_ = true;
            c_.fatal_message = e.what();
            view_.fatal();
        }
        c_.orchestration_done();
    }

    void scope_begin(const char* file, int line) override {
        if (fatal_) return;
        ++depth_;
        scopes_.emplace_back();
        // Begin is sampled after the scope is pushed.
        view_.scope_begin([this] { return sample(); }, file, line);
    }

    void scope_end() noexcept override {
        if (fatal_ || scopes_.empty()) return;  // after a fatal error nothing more is recorded
        // End is sampled before the scope's tasks are released.
        view_.scope_end([this] { return sample(); });
        for (task* t : scopes_.back()) c_.end_scope_of(*t);
        scopes_.pop_back();
        --depth_;
        if (c_.reclaim()) c_.notify_progress();
    }

    submitted submit(const task_spec& spec) override {
        if (depth_ < 0) throw std::logic_error("submit outside any scope");
        if (spec.args.size() > max_kernel_args) throw std::logic_error("a task takes at most 4 tensor arguments");
        const int r = std::min(depth_, ring_count - 1);
        ring& rg = c_.ring_at(r);
        const std::uint64_t id = (std::uint64_t(r) << 32) | rg.head();
        auto phase = view_.submitting(id);

        std::uint64_t bytes = 0;
        for (const auto& a : spec.args)
            if (a.type == dfx::arg_type::output) bytes += aligned(std::uint64_t{a.rows} * a.cols * sizeof(float));

        wait_for(r, resource::task_window, [&] { return !rg.window_full(); });
        std::uint64_t heap_start = 0;
        wait_for(r, resource::heap, [&] {
            const auto at = rg.heap_place(bytes);
            if (at) heap_start = *at;
            return at.has_value();
        });

        task& t = c_.new_task();
        t.id = id;
        t.ring = r;
        t.kernel = &kernel(spec.kernel);
        t.block_num = std::max<std::uint32_t>(spec.block_num, 1);
        t.scalars = spec.scalars;
        rg.admit(t.slot, heap_start, bytes);
        c_.index_task(t);
        report_heap_wraps(r);

        // Arguments: allocate the outputs from the ring's heap.
        submitted result;
        result.id = id;
        std::vector<submit_arg_ref> refs;
        std::uint64_t at = heap_start;
        t.args.reserve(spec.args.size());
        for (const auto& a : spec.args) {
            if (a.type == dfx::arg_type::output) {
                const buffer& b = c_.new_heap_buffer({rg.heap_addr(at), rg.heap_data(at), a.rows, a.cols, id});
                at += aligned(b.bytes());
                t.args.push_back(tensor::whole(b));
                result.outputs.push_back(t.args.back());
            } else {
                check_alive(a.t);
                t.args.push_back(a.t);
            }
        }
        for (std::size_t i = 0; i < spec.args.size(); ++i) refs.push_back({spec.args[i].type, &t.args[i]});
        describe_args(t, spec);

        // Dependencies: the logical graph, then the live part of it wired.
        const std::uint64_t tensormap_before = c_.tmap().entries();
        const std::vector<inferred_edge> edges = c_.tmap().infer(id, refs, spec.deps);
        t.slot.tensormap_entries = static_cast<std::uint32_t>(c_.tmap().entries() - tensormap_before);
        c_.tensormap_live().fetch_add(static_cast<std::int32_t>(t.slot.tensormap_entries), std::memory_order_relaxed);
        std::vector<task*> producers;
        for (const auto& e : edges) {
            c_.graph_edges.push_back({e.pred, id, e.source, e.arg});
            task* p = c_.find_task(e.pred);
            if (!p) throw std::logic_error("task " + std::to_string(id) + " depends on unknown task " + std::to_string(e.pred));
            if (std::find(producers.begin(), producers.end(), p) == producers.end()) producers.push_back(p);
        }
        std::vector<dfx::arg_type> types;
        for (const auto& a : spec.args) types.push_back(a.type);
        c_.graph_tasks.push_back({id, spec.kernel, t.block_num, std::move(types), t.kernel->scalars, spec.dumps});

        wait_for(r, resource::dep_pool, [&] { return rg.dep_pool_has(c_.live_producers(producers)); });
        const std::uint32_t wired = c_.wire(t, producers);
        rg.take_dep_entries(t.slot, wired);
        c_.wired_edges += wired;
        scopes_.back().push_back(&t);

        capture(t, spec);
        c_.publish(t);
        return result;
    }

private:
    static std::uint64_t aligned(std::uint64_t bytes) { return (bytes + 63) / 64 * 64; }

    // A heap output may only be read while its producer is alive (its scope
    // open, or a consumer holding it): a workload bug otherwise, not a stall.
    void check_alive(const tensor& t) const {
        if (t.buf->owner == no_task) return;
        const task* p = c_.find_task(t.buf->owner);
        if (p && p->slot.releasable.load(std::memory_order_acquire))
            throw std::logic_error("task " + std::to_string(p->id) +
                                   "'s output is read after its scope ended and it retired (use after free)");
    }

    // Waits until `ready()` holds, retiring what can be retired meanwhile.
    // When every submitted task has completed and there is still no room,
    // only open scopes hold the ring: waiting longer cannot help.
    template <class Ready>
    void wait_for(int r, resource what, Ready ready) {
        if (ready()) return;
        const auto start = std::chrono::steady_clock::now();
        for (int polls = 0;; ++polls) {
            const std::uint32_t seen = c_.progress().load(std::memory_order_acquire);
            c_.reclaim();
            if (ready()) break;
            if (c_.all_completed()) {
                c_.reclaim();
                if (ready()) break;
                const auto& cap = c_.ring_at(r).capacity();
                const std::uint64_t size = what == resource::task_window ? cap.task_window
                                           : what == resource::heap    ? cap.heap_bytes
                                                                       : cap.dep_pool;
                fatal_ = true;
                throw fatal_error(std::string(resource_knob(what)) + " of ring " + std::to_string(r) + " (" +
                                  std::to_string(size) +
                                  ") is too small: every submitted task has completed, and what fills it is "
                                  "held by the open scopes, so nothing can retire. Raise " +
                                  resource_flag(what) + " (or use smaller scopes)");
            }
            if (polls < spin_polls)
                cpu_relax();
            else
                c_.progress().wait(seen, std::memory_order_acquire);
        }
        auto& s = c_.stalls[static_cast<std::size_t>(r)][static_cast<std::size_t>(what)];
        ++s.count;
        s.time += std::chrono::steady_clock::now() - start;
    }

    // Heap wraps are charged to the innermost open scope's ring, which is
    // the ring being sampled or allocated from when this runs.
    void report_heap_wraps(int r) {
        const ring& rg = c_.ring_at(r);
        auto& reported = wraps_reported_[static_cast<std::size_t>(r)];
        for (const auto alloc = rg.alloc_wraps(); reported[0] < alloc; ++reported[0])
            view_.heap_wrapped(dfx::heap_side::alloc);
        for (const auto reclaim = rg.reclaim_wraps(); reported[1] < reclaim; ++reported[1])
            view_.heap_wrapped(dfx::heap_side::reclaim);
    }

    dfx::scope_sample sample() {
        const int r = std::min(depth_, ring_count - 1);
        report_heap_wraps(r);
        return c_.ring_at(r).sample(c_.tensormap_live().load(std::memory_order_relaxed));
    }

    // The task's argument list as the collectors see it (task::views,
    // task::dump_args), and the marks of a level-1 args dump.
    static void describe_args(task& t, const task_spec& spec) {
        const auto k = static_cast<std::int32_t>(t.kernel->id);
        t.kernel_ids = t.kernel->core == dfx::core_type::aic ? std::array<std::int32_t, 3>{k, -1, -1}
                                                             : std::array<std::int32_t, 3>{-1, k, -1};
        for (std::size_t i = 0; i < t.args.size(); ++i) {
            t.views[i] = t.args[i].view();
            t.host_views[i] = t.args[i].host_view();
            switch (spec.args[i].type) {
                case dfx::arg_type::input: t.dump_args.add_input(t.host_views[i]); break;
                case dfx::arg_type::inout: t.dump_args.add_inout(t.host_views[i]); break;
                default: t.dump_args.add_output(t.host_views[i]); break;  // OUTPUT, OUTPUT_EXISTING
            }
        }
        for (std::uint8_t j = 0; j < t.kernel->scalars; ++j) t.dump_args.add_scalar(t.scalars[j]);
        for (const int i : spec.dumps) {
            if (i < 0 || static_cast<std::size_t>(i) >= t.args.size())
                throw std::logic_error("dump mark " + std::to_string(i) + " is not an argument of the task");
            t.dump_args.dump(t.host_views[static_cast<std::size_t>(i)]);
        }
    }

    void capture(const task& t, const task_spec& spec) {
        if constexpr (View::guards::dep_gen) {
            std::array<dfx::submit_arg, max_kernel_args> args{};
            for (std::size_t i = 0; i < t.args.size(); ++i)  // an OUTPUT had no buffer before this submit
                args[i] = {spec.args[i].type, spec.args[i].type == dfx::arg_type::output ? nullptr : &t.views[i]};
            dfx::submit_capture s;
            s.task_id = t.id;
            s.kernel_ids = t.kernel_ids;
            s.block_num = t.block_num;
            s.args = std::span<const dfx::submit_arg>(args.data(), t.args.size());
            s.explicit_deps = spec.deps;
            view_.capture_submit(s);
        }
    }

    chip& c_;
    View& view_;
    int depth_ = -1;
    bool fatal_ = false;
    std::vector<std::vector<task*>> scopes_;
    std::array<std::array<std::uint64_t, 2>, ring_count> wraps_reported_{};
};

}  // namespace sim
