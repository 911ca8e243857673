// A small DAG thread-pool runtime, not the simulator, instrumented through
// dfx::session: the main thread submits a layered graph (the orchestrator),
// one dispatcher hands ready tasks to idle workers and retires them, four
// workers run the task bodies. Compiled for every swimlane level, always with
// dep_gen and scope stats; the level is picked at run time.
//
//   dfx-embed-minimal LEVEL TASKS OUT_DIR      then: dfx all OUT_DIR
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "dfx/session.hpp"

namespace {

constexpr std::uint32_t worker_count = 4;
constexpr std::uint32_t idle = UINT32_MAX;
constexpr std::uint32_t done_bit = 1u << 31;  // set by the worker on the task it ran
const char* const kernel_names[] = {"load", "mix", "store"};

struct task {
    std::int32_t kernel = 0;
    std::vector<std::uint64_t> preds;
    std::vector<std::uint32_t> succs;
};

// Layers of 8 tasks; each task after the first layer waits on 1-3 tasks of the layer before.
std::vector<task> make_graph(std::uint32_t n) {
    std::vector<task> g(n);
    std::uint64_t seed = 12345;
    auto rnd = [&] { return (seed = seed * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
    for (std::uint32_t t = 0; t < n; ++t) {
        g[t].kernel = static_cast<std::int32_t>(t % 3);
        if (t < 8) continue;
        const std::uint32_t layer_start = (t / 8 - 1) * 8;
        for (std::uint64_t k = 0, deps = 1 + rnd() % 3; k < deps; ++k) {
            const std::uint32_t p = layer_start + static_cast<std::uint32_t>(rnd() % 8);
            bool seen = false;
            for (const auto q : g[t].preds) seen = seen || q == p;
            if (!seen) g[t].preds.push_back(p), g[p].succs.push_back(t);
        }
    }
    return g;
}

void body(std::uint32_t t) {
    volatile std::uint64_t x = t;
    for (int i = 0; i < 5000; ++i) x = x * 2862933555777941757ULL + 3037000493ULL;
}

template <int Level>
int run(std::uint32_t n, const std::string& out_dir) {
    using collectors = dfx::collectors<dfx::swimlane_level<Level>, dfx::dep_gen<true>, dfx::scope_stats<true>>;
    // ---- DFX glue: the session, kernel names, the ring the scope stats compare against
    dfx::session<collectors> dfx_session{{.cores = std::vector<dfx::core_type>(worker_count, dfx::core_type::aiv)},
                                         {.prefix = out_dir, .case_name = "embed_minimal"}};
    for (std::int64_t k = 0; k < 3; ++k) dfx_session.name_kernel(k, kernel_names[k]);
    dfx_session.set_ring_capacity(0, static_cast<std::int32_t>(n), std::uint64_t{n} * 1024, static_cast<std::int32_t>(4 * n));
    // ----

    const std::vector<task> graph = make_graph(n);
    std::vector<dfx::task_token> tokens(n);  // written at submit, read by the worker that runs the task
    std::array<std::atomic<std::uint32_t>, worker_count> mailbox;  // idle, a task id, or id | done_bit
    for (auto& m : mailbox) m.store(idle);
    std::atomic<std::uint32_t> submitted{0}, retired{0};
    std::atomic<bool> stop{false};

    std::vector<std::thread> workers;
    for (std::uint32_t core = 0; core < worker_count; ++core)
        workers.emplace_back([&, core] {
            auto lane = dfx_session.worker(core);
            while (!stop.load(std::memory_order_acquire)) {
                const std::uint32_t t = mailbox[core].load(std::memory_order_acquire);
                if (t == idle || (t & done_bit)) {
                    std::this_thread::yield();
                    continue;
                }
                lane.received(tokens[t], t + 1);  // reg_task_id: unique per core
                lane.started();
                body(t);
                lane.ended();
                mailbox[core].store(t | done_bit, std::memory_order_release);
            }
        });

    std::thread dispatcher([&] {
        auto lane = dfx_session.scheduler(0);
        std::vector<std::uint32_t> waiting(n), ready;
        for (std::uint32_t t = 0; t < n; ++t) waiting[t] = static_cast<std::uint32_t>(graph[t].preds.size());
        std::array<decltype(lane.dispatching()), worker_count> stamps{};
        std::uint32_t seen = 0, completed = 0;
        for (std::uint32_t iter = 0; completed < n; ++iter) {
            for (const std::uint32_t upto = submitted.load(std::memory_order_acquire); seen < upto; ++seen)
                if (waiting[seen] == 0) ready.push_back(seen);
            std::uint32_t finished = 0;
            for (std::uint32_t core = 0; core < worker_count; ++core) {
                const std::uint32_t v = mailbox[core].load(std::memory_order_acquire);
                finished += v != idle && (v & done_bit);
            }
            if (finished > 0) {
                auto phase = lane.phase(dfx::sched_phase_kind::complete, iter);
                for (std::uint32_t core = 0; core < worker_count; ++core) {
                    const std::uint32_t v = mailbox[core].load(std::memory_order_relaxed);
                    if (v == idle || !(v & done_bit)) continue;
                    const std::uint32_t t = v & ~done_bit;
                    lane.finished(core, t + 1, stamps[core]);
                    mailbox[core].store(idle, std::memory_order_relaxed);
                    for (const std::uint32_t s : graph[t].succs)
                        if (--waiting[s] == 0 && s < seen) ready.push_back(s);
                    ++completed;
                }
                retired.store(completed, std::memory_order_relaxed);
                phase.processed(finished);
            }
            std::uint32_t free_cores = 0;
            for (std::uint32_t core = 0; core < worker_count; ++core) free_cores += mailbox[core].load() == idle;
            if (!ready.empty() && free_cores > 0) {
                auto phase = lane.phase(dfx::sched_phase_kind::dispatch, iter);
                std::uint32_t dispatched = 0;
                for (std::uint32_t core = 0; core < worker_count && !ready.empty(); ++core) {
                    if (mailbox[core].load(std::memory_order_acquire) != idle) continue;
                    const std::uint32_t t = ready.back();
                    ready.pop_back();
                    stamps[core] = lane.dispatching();
                    mailbox[core].store(t, std::memory_order_release);
                    ++dispatched;
                }
                phase.processed(dispatched);
            } else if (finished == 0) {
                std::this_thread::yield();  // nothing to do this round
            }
        }
    });

    {  // the orchestrator: this thread
        auto lane = dfx_session.orchestrator();
        auto sample = [&] {
            const auto head = static_cast<std::int32_t>(submitted.load());
            return dfx::scope_sample{.task_window_tail = static_cast<std::int32_t>(retired.load()), .task_window_head = head,
                                     .heap_alloc = std::uint64_t(head) * 1024, .dep_pool_top = head * 2};
        };
        lane.scope_begin(sample);
        for (std::uint32_t t = 0; t < n; ++t) {
            auto submit = lane.submitting(t);
            tokens[t] = lane.capture_submit({.task_id = t, .kernel_ids = {-1, graph[t].kernel, -1}, .explicit_deps = graph[t].preds});
            submitted.store(t + 1, std::memory_order_release);
        }
        lane.scope_end(sample);
    }
    dispatcher.join();
    stop.store(true, std::memory_order_release);
    for (auto& w : workers) w.join();

    return dfx_session.finish().complete() ? 0 : 1;  // writes the artefacts, prints the accounting
}

}  // namespace

int main(int argc, char** argv) try {
    const int level = argc > 1 ? std::atoi(argv[1]) : 4;
    const long tasks = argc > 2 ? std::atol(argv[2]) : 200;
    const std::string out = argc > 3 ? argv[3] : "dfx_outputs";
    if (argc > 4 || tasks < 8 || tasks > 1'000'000) {
        std::fprintf(stderr, "usage: dfx-embed-minimal [LEVEL 1-4] [TASKS 8-1000000] [OUT_DIR]\n");
        return 2;
    }
    const auto n = static_cast<std::uint32_t>(tasks);
    switch (level) {
        case 1: return run<1>(n, out);
        case 2: return run<2>(n, out);
        case 3: return run<3>(n, out);
        case 4: return run<4>(n, out);
        default: std::fprintf(stderr, "dfx-embed-minimal: LEVEL must be 1, 2, 3 or 4, got %s\n", argv[1]); return 2;
    }
} catch (const std::exception& e) {
    std::fprintf(stderr, "dfx-embed-minimal: %s\n", e.what());
    return 1;
}
