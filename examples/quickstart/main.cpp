// The smallest complete runtime instrumented with dfx::session: the main
// thread submits a chain of tasks, one dispatcher thread hands each to one of
// two worker threads and waits for it. The README's library snippet is an
// excerpt of this file (tests/session/readme_excerpts.py checks it).
//
//   dfx-quickstart [OUT_DIR]      then: dfx all OUT_DIR
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <thread>
#include <vector>

#include "dfx/session.hpp"

namespace {

constexpr std::uint32_t task_count = 16;
constexpr std::uint32_t no_task = UINT32_MAX;

// One worker's register: the dispatcher writes a task, the worker clears it when done.
struct mailbox {
    std::atomic<std::uint32_t> task{no_task};
    std::atomic<bool> stop{false};
};

void busy_work(std::uint32_t task) {
    volatile std::uint64_t x = task;
    for (int i = 0; i < 20000; ++i) x = x * 6364136223846793005ULL + 1;
}

}  // namespace

int main(int argc, char** argv) try {
    // [readme: session]
    // Compile-time choice, named in any order: the dependency graph and swimlane level 2; the rest is off.
    using my_collectors = dfx::collectors<dfx::dep_gen<true>, dfx::swimlane_level<2>>;
    dfx::session<my_collectors> dfx_session{
        {.cores = {dfx::core_type::aiv, dfx::core_type::aiv}, .scheduler_threads = 1},
        {.prefix = argc > 1 ? argv[1] : "dfx_outputs", .case_name = "quickstart"}};
    dfx_session.name_kernel(0, "busy_work");
    // [/readme: session]

    std::vector<mailbox> cores(2);
    std::vector<dfx::task_token> tokens(task_count);  // submit -> run: what joins a slice to its node
    std::vector<std::thread> workers;
    for (std::uint32_t core = 0; core < 2; ++core)
        workers.emplace_back([&, core] {
            // [readme: worker]
            auto lane = dfx_session.worker(core);      // one per worker thread, on that thread
            for (;;) {
                const std::uint32_t task = cores[core].task.load(std::memory_order_acquire);
                if (task == no_task) {
                    if (cores[core].stop.load(std::memory_order_acquire)) break;
                    std::this_thread::yield();
                    continue;
                }
                lane.received(tokens[task], /*reg_task_id=*/task + 1);
                lane.started();
                busy_work(task);
                lane.ended();
                cores[core].task.store(no_task, std::memory_order_release);
            }
            // [/readme: worker]
        });

    {
        // [readme: orchestrator]
        auto lane = dfx_session.orchestrator();         // the thread that submits tasks
        for (std::uint64_t t = 0; t < task_count; ++t) {
            const std::uint64_t deps[] = {t - 1};           // a chain: each task waits for the one before
            tokens[t] = lane.capture_submit({.task_id = t, .kernel_ids = {-1, 0, -1},
                                             .explicit_deps = t == 0 ? std::span<const std::uint64_t>{} : deps});
        }
        // [/readme: orchestrator]
    }

    std::thread dispatcher([&] {
        // [readme: scheduler]
        auto lane = dfx_session.scheduler(0);           // one per dispatcher thread
        for (std::uint32_t task = 0; task < task_count; ++task) {
            const std::uint32_t core = task % 2;
            auto stamp = lane.dispatching();            // just before handing the task over
            cores[core].task.store(task, std::memory_order_release);
            while (cores[core].task.load(std::memory_order_acquire) != no_task) std::this_thread::yield();
            lane.finished(core, /*reg_task_id=*/task + 1, stamp);
        }
        // [/readme: scheduler]
    });
    dispatcher.join();
    for (auto& c : cores) c.stop.store(true, std::memory_order_release);
    for (auto& w : workers) w.join();

    // [readme: finish]
    const dfx::session_summary summary = dfx_session.finish();  // artefacts, name map, accounting
    return summary.complete() ? 0 : 1;
    // [/readme: finish]
} catch (const std::exception& e) {
    std::fprintf(stderr, "dfx-quickstart: %s\n", e.what());
    return 1;
}
