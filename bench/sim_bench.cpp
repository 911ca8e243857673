// End-to-end collector overhead on dfx-sim: each workload run with no
// collector, then with each collector on alone, then with all of them, side
// by side in one run. An iteration is one whole chip run (orchestrator,
// AICPU schedulers and AICore workers from first submit to last completion,
// host collectors draining live); the time is the chip's own wall time, so
// creating the chip and writing the artefacts afterwards are not counted.
//
//   BM_sim/<workload>/<collectors>   items_per_second = tasks per second
//     collectors: off, swimlane_1..swimlane_4, dep_gen, scope_stats, dump_1, dump_2, pmu, all
//
// A run whose kernel check fails, or that loses a record, fails the
// benchmark (and the program's exit status). Artefacts go to a temporary
// directory, removed at exit.
//
//   build-bench/bench/sim_bench [benchmark flags]
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "checked_run.hpp"
#include "run.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path scratch = fs::temp_directory_path() / ("dfx_sim_bench_" + std::to_string(::getpid()));

dfx::run_config config_of(const dfx::collector_choice& collectors) {
    dfx::run_config cfg;
    cfg.collectors = collectors;
    return cfg;
}

void BM_sim(benchmark::State& state, std::string workload, dfx::collector_choice collectors) {
    sim::run_request rq;
    rq.cfg = config_of(collectors);
    rq.prefix = scratch / "dfx_outputs";
    rq.case_name = workload;
    rq.workload = std::move(workload);
    rq.seed = 1;
    rq.chip.scheduler_threads = 2;
    std::uint64_t tasks = 0;
    for (auto _ : state) {
        const sim::run_result r = sim::run_one(rq);
        if (!r.ok()) {
            ++bench::failed_checks;
            state.SkipWithError(r.fatal.empty() ? "the run failed its kernel check or lost records" : r.fatal.c_str());
            return;
        }
        state.SetIterationTime(std::chrono::duration<double>(r.wall).count());
        tasks += r.tasks_completed;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(tasks));
}

void register_all() {
    const std::pair<const char*, dfx::collector_choice> configs[] = {
        {"off", {}},
        {"swimlane_1", {.swimlane_level = 1}},
        {"swimlane_2", {.swimlane_level = 2}},
        {"swimlane_3", {.swimlane_level = 3}},
        {"swimlane_4", {.swimlane_level = 4}},
        {"dep_gen", {.dep_gen = true}},
        {"scope_stats", {.scope_stats = true}},
        {"dump_1", {.dump_level = 1}},
        {"dump_2", {.dump_level = 2}},
        {"pmu", {.pmu_event = 2}},
        {"all", {.swimlane_level = 4, .dump_level = 1, .pmu_event = 2, .dep_gen = true, .scope_stats = true}},
    };
    for (const char* workload : {"chain", "fanout", "spmd", "paged_attention"})
        for (const auto& [name, collectors] : configs)
            benchmark::RegisterBenchmark((std::string("BM_sim/") + workload + "/" + name).c_str(), BM_sim,
                                         std::string(workload), collectors)
                ->UseManualTime()
                ->Unit(benchmark::kMicrosecond);
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    register_all();
    const int status = bench::run_checked("sim_bench");
    std::error_code ec;
    fs::remove_all(scratch, ec);
    return status;
}
