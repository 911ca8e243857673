// A runtime's hot path in one translation unit: an orchestrator submitting a
// graph, a dispatcher, workers. Built as is, it is instrumented through the
// lanes of dfx_glue.hpp; with -DRUNTIME_WITHOUT_DFX every DFX line is gone,
// which is the baseline bench/compile_time/runtime_tus.sh compares against.
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#ifndef RUNTIME_WITHOUT_DFX
#include "dfx_glue.hpp"
#define DFX(...) __VA_ARGS__
#else
#define DFX(...)
#endif

namespace {

constexpr std::uint32_t idle = UINT32_MAX, done_bit = 1u << 31;

struct graph {
    std::vector<std::vector<std::uint64_t>> preds;
    std::vector<std::vector<std::uint32_t>> succs;
};

graph make_chain_of_pairs(std::uint32_t n) {
    graph g{std::vector<std::vector<std::uint64_t>>(n), std::vector<std::vector<std::uint32_t>>(n)};
    for (std::uint32_t t = 2; t < n; ++t)
        for (const std::uint32_t p : {t - 2, t - 1}) g.preds[t].push_back(p), g.succs[p].push_back(t);
    return g;
}

}  // namespace

// Runs n tasks on `workers` worker threads; returns the tasks completed.
std::uint32_t run_runtime(std::uint32_t n, std::uint32_t workers) {
    const graph g = make_chain_of_pairs(n);
    std::vector<std::atomic<std::uint32_t>> mailbox(workers);
    for (auto& m : mailbox) m.store(idle);
    std::atomic<std::uint32_t> submitted{0};
    std::atomic<bool> stop{false};
    std::vector<std::thread> pool;
    for (std::uint32_t core = 0; core < workers; ++core)
        pool.emplace_back([&, core] {
            DFX(dfx_types::worker lane{dfx_worker_channels(core)};)
            while (!stop.load(std::memory_order_acquire)) {
                const std::uint32_t t = mailbox[core].load(std::memory_order_acquire);
                if (t == idle || (t & done_bit)) {
                    std::this_thread::yield();
                    continue;
                }
                DFX(lane.received(t, t + 1); lane.started();)
                volatile std::uint32_t sink = t * 3u;
                (void)sink;
                DFX(lane.ended();)
                mailbox[core].store(t | done_bit, std::memory_order_release);
            }
        });

    std::uint32_t completed = 0;
    std::thread dispatcher([&] {
        DFX(dfx_types::scheduler lane{dfx_scheduler_channels(0)};)
        DFX(std::vector<decltype(lane.dispatching())> stamps(workers);)
        std::vector<std::uint32_t> waiting(n), ready;
        for (std::uint32_t t = 0; t < n; ++t) waiting[t] = static_cast<std::uint32_t>(g.preds[t].size());
        std::uint32_t seen = 0;
        for (std::uint32_t iter = 0; completed < n; ++iter) {
            for (const std::uint32_t upto = submitted.load(std::memory_order_acquire); seen < upto; ++seen)
                if (waiting[seen] == 0) ready.push_back(seen);
            for (std::uint32_t core = 0; core < workers; ++core) {
                const std::uint32_t v = mailbox[core].load(std::memory_order_acquire);
                if (v != idle && (v & done_bit)) {
                    DFX(auto phase = lane.phase(dfx::sched_phase_kind::complete, iter);)
                    const std::uint32_t t = v & ~done_bit;
                    DFX(lane.finished(core, t + 1, stamps[core]);)
                    mailbox[core].store(idle, std::memory_order_relaxed);
                    for (const std::uint32_t s : g.succs[t])
                        if (--waiting[s] == 0 && s < seen) ready.push_back(s);
                    ++completed;
                }
                if (mailbox[core].load(std::memory_order_relaxed) == idle && !ready.empty()) {
                    DFX(auto phase = lane.phase(dfx::sched_phase_kind::dispatch, iter);)
                    DFX(stamps[core] = lane.dispatching();)
                    mailbox[core].store(ready.back(), std::memory_order_release);
                    ready.pop_back();
                }
            }
            std::this_thread::yield();
        }
    });

    {
        DFX(dfx_types::orchestrator lane{dfx_orchestrator_channels()};)
        for (std::uint32_t t = 0; t < n; ++t) {
            DFX(auto submit = lane.submitting(t);)
            DFX(lane.capture_submit({.task_id = t, .kernel_ids = {-1, 0, -1}, .explicit_deps = g.preds[t]});)
            submitted.store(t + 1, std::memory_order_release);
        }
    }
    dispatcher.join();
    stop.store(true, std::memory_order_release);
    for (auto& w : pool) w.join();
    return completed;
}
