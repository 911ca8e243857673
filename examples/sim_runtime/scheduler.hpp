// The AICPU scheduler threads and the AICore workers.
//
// Scheduler thread `me` owns the cores whose owner is `me`. Each loop: poll
// its busy cores' `finished` registers (complete), release the consumers of
// the tasks that completed (resolve), retire what can retire (release), and
// hand ready blocks to its idle cores through their doorbells (dispatch).
// Each worker waits on its doorbell, runs the kernel on real buffers and
// answers on `finished`. Both spin briefly, then sleep on an atomic.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "chip.hpp"
#include "dfx/record/pmu_record.hpp"

namespace sim {

template <class View>
void run_scheduler(chip& c, View& view, unsigned me) {
    struct owned {
        core_state* core;
        std::uint32_t inflight = 0;  // dispatch token in the register; 0 = idle
        std::uint32_t next_token = 1;
        typename View::stamp stamp{};
    };
    std::vector<owned> cores;
    for (std::uint32_t i = 0; i < c.core_count(); ++i)
        if (c.core(i).owner == me) cores.push_back({&c.core(i)});

    std::vector<owned*> finished;
    std::vector<task*> done;
    const auto depths = [&c] { return c.depths(); };  // read only when phases are recorded
    int idle_polls = 0;
    for (std::uint32_t iter = 0;; ++iter) {
        const std::uint32_t seen = c.wake(me).load(std::memory_order_acquire);
        bool worked = false;

        // Complete: which busy cores answered?
        finished.clear();
        for (auto& o : cores)
            if (o.inflight && o.core->finished.load(std::memory_order_acquire) == o.inflight) finished.push_back(&o);
        if (!finished.empty()) {
            worked = true;
            done.clear();
            {
                auto phase = view.phase(dfx::sched_phase_kind::complete, iter, depths);
                for (owned* o : finished) {
                    view.finished(o->core->id, o->inflight, o->stamp);
                    o->inflight = 0;
                    task* t = o->core->current;
                    if (!chip::block_done(*t)) continue;
                    // Outputs are final, and no consumer can start before complete().
                    view.after_completion(t->id, t->kernel_ids, t->dump_args);
                    done.push_back(t);
                }
                phase.processed(static_cast<std::uint32_t>(finished.size()));
                phase.depths_at_end(depths);
            }
            if (!done.empty()) {
                {
                    auto phase = view.phase(dfx::sched_phase_kind::resolve, iter, depths);
                    std::uint32_t ready = 0;
                    for (task* t : done) ready += c.complete(*t);
                    phase.processed(ready);
                    phase.depths_at_end(depths);
                }
                {
                    auto phase = view.phase(dfx::sched_phase_kind::release, iter, depths);
                    phase.processed(c.reclaim());
                }
                c.notify_progress();
            }
        }

        // Dispatch: ready blocks to idle cores of the matching type.
        bool idle_core_has_work = false;
        for (const auto& o : cores)
            idle_core_has_work |= !o.inflight && c.queue(o.core->type).size() > 0;
        if (idle_core_has_work) {
            worked = true;
            auto phase = view.phase(dfx::sched_phase_kind::dispatch, iter, depths);
            std::uint32_t hit = 0, miss = 0;
            for (auto& o : cores) {
                if (o.inflight) continue;
                task* t = nullptr;
                std::uint32_t block = 0;
                if (!c.queue(o.core->type).pop(t, block)) {
                    ++miss;
                    continue;
                }
                ++hit;
                view.before_dispatch(t->id, t->kernel_ids, t->dump_args);  // once per block, as the reference
                o.core->current = t;
                o.core->block = block;
                o.inflight = o.next_token++;
                o.stamp = view.dispatching();
                // seq_cst, not release: libstdc++'s notify_one skips the futex
                // wake when its waiter count reads 0, and on x86 a release
                // store (a plain mov) may still sit in the store buffer when
                // that count is read, so a worker entering wait() just then
                // could sleep on a token it never sees (store-load reordering).
                // A stream run once slept 15 minutes so, every thread waiting,
                // and went on the moment gdb attached (which restarts futex
                // waits, and a restarted wait sees the new token).
                o.core->doorbell.store(o.inflight, std::memory_order_seq_cst);
                o.core->doorbell.notify_one();
            }
            c.dispatches().fetch_add(hit, std::memory_order_relaxed);
            phase.processed(hit);
            phase.pops(hit, miss);
            phase.depths_at_end(depths);
        }

        if (c.drained()) {
            bool busy = false;
            for (const auto& o : cores) busy |= o.inflight != 0;
            if (!busy) return;
        }
        if (worked) {
            idle_polls = 0;
        } else if (++idle_polls < spin_polls) {
            cpu_relax();
        } else {
            c.wake(me).wait(seen, std::memory_order_acquire);
            idle_polls = 0;
        }
    }
}

template <class View>
void run_worker(chip& c, View& view, core_state& core) {
    std::uint32_t last = 0;
    for (;;) {
        std::uint32_t token = core.doorbell.load(std::memory_order_acquire);
        for (int i = 0; token == last && i < spin_polls; ++i) {
            cpu_relax();
            token = core.doorbell.load(std::memory_order_acquire);
        }
        if (token == last) {
            core.doorbell.wait(last, std::memory_order_acquire);
            continue;
        }
        if (token == doorbell_stop) return;
        last = token;
        const task& t = *core.current;
        view.received(t.id, token);
        const kernel_call call = chip::make_call(t, core.block);
        view.started();
        view.pmu_begin();
        t.kernel->run(call);
        if (static_cast<std::int32_t>(t.kernel->id) == c.options().slow_kernel) {
            const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(c.options().slow_extra_us);
            while (std::chrono::steady_clock::now() < until) cpu_relax();
        }
        view.pmu_end(t.id, static_cast<std::uint32_t>(t.kernel->id), core.type);
        view.ended();
        core.finished.store(token, std::memory_order_release);
        c.wake_scheduler(core.owner);
    }
}

}  // namespace sim
