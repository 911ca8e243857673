// One run of one simulated chip with the collectors a validated run config
// asks for, the way a runtime links them:
//
//   host side      one dfx::session_host over the config's collector choice:
//                  it creates the host collectors and channels the choice
//                  needs, drains them, and writes the artefacts at finish();
//   device side    each role's loop instantiated with the guard set the
//                  config selects for that role (select_orchestrator /
//                  select_scheduler / select_aicore), stamping through a lane
//                  (view + sink) built on the thread from the host's channels;
//   artefacts      written under the prefix by finish(), after every thread
//                  has finished (the args dump streams its payload to args.bin
//                  while the run goes).
//
// PMU counts come from dfx::host_pmu_source, opened on each worker thread:
// perf_event_open where the host allows it, else deterministic simulated
// counts; the PMU report says which.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "chip.hpp"
#include "dfx/collect.hpp"
#include "dfx/config/selection.hpp"
#include "dfx/policy/perf_pmu_source.hpp"
#include "dfx/session.hpp"  // dfx::session_host: every host collector
#include "orchestrator.hpp"
#include "scheduler.hpp"
#include "workloads.hpp"

namespace sim {

#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
using clock_source = dfx::tsc_clock;  // what a device runtime stamps with: the cycle counter
#else
using clock_source = dfx::steady_clock_source;
#endif
using overflow = dfx::block<>;  // never lose a record: producers wait for the host

struct run_request {
    dfx::run_config cfg;            // the collectors of this run, validated
    std::filesystem::path prefix;   // <work_dir>/dfx_outputs, or an L3 dispatch directory
    std::string case_name;          // name_map_<case>.json; empty: name_map.json (L3)
    std::string workload;
    std::uint64_t seed = 0;
    chip_options chip;
    std::uint64_t tasks = stream_default_tasks;  // --tasks: the stream workload's size
};

struct collector_accounting {
    std::string title;
    std::vector<dfx::channel_report> reports;
};

struct run_result {
    std::uint64_t tasks_submitted = 0, tasks_completed = 0, tasks_retired = 0, dispatches = 0;
    std::uint64_t edges_inferred = 0, edges_wired = 0;
    std::chrono::nanoseconds wall{0};
    std::array<std::array<stall_stats, 3>, ring_count> stalls{};
    std::string fatal;                     // why the orchestration stopped early, if it did
    std::optional<workload::check_result> check;  // empty when the run ended early
    std::vector<collector_accounting> accounting;
    std::optional<dfx::args_dump_summary> dump;
    std::optional<dfx::pmu_summary> pmu;
    std::vector<graph_task> graph_tasks;
    std::vector<graph_edge> graph_edges;
    // Artefacts written (empty paths: not written).
    std::filesystem::path records, deps, name_map, scope_stats, args_dump, pmu_csv;
    std::string deps_refused;

    bool kernel_ok() const { return check && check->ok; }
    bool balanced() const {
        for (const auto& a : accounting)
            if (!dfx::totals(a.reports).balanced()) return false;
        return true;
    }
    bool ok() const {
        return fatal.empty() && kernel_ok() && balanced() && deps_refused.empty() && (!dump || dump->write_error.empty());
    }
};

namespace detail {

inline dfx::session_layout layout_of(const chip& c) {
    dfx::session_layout layout;
    for (std::uint32_t i = 0; i < c.core_count(); ++i)
        layout.cores.push_back(c.options().aic_cores > i ? dfx::core_type::aic : dfx::core_type::aiv);
    layout.scheduler_threads = c.options().scheduler_threads;
    layout.orchestrators = 1;
    layout.core_to_thread = c.core_to_thread();
    return layout;
}

}  // namespace detail

// Throws dfx::output_error when an artefact cannot be written.
inline run_result run_one(const run_request& rq) {
    run_result result;
    chip c(rq.chip);
    const auto work = make_workload(rq.workload, rq.seed, rq.tasks);
    work->prepare(c);

    // The host side: only the collectors the config enables, sized from the chip.
    dfx::session_host dfx_host(rq.cfg.collectors, clock_source::frequency_hz(), detail::layout_of(c),
                               {.prefix = rq.prefix,
                                .case_name = rq.case_name,
                                .log = nullptr,  // main.cpp prints the accounting itself
                                .scheduler_pools = 4,  // the a2a3 platform's AICPU thread count
                                // 8 MiB of payload per scheduler thread: plenty for these workloads.
                                .dump_sizes = {.records = {8, 8}, .payload = {8, 256}}});
    for (const auto& [func_id, name] : name_table().kernels) dfx_host.name_kernel(func_id, name);
    for (int r = 0; r < ring_count; ++r) {
        const ring_capacity& cap = c.ring_at(r).capacity();
        dfx_host.set_ring_capacity(r, static_cast<std::int32_t>(cap.task_window), cap.heap_bytes,
                                   static_cast<std::int32_t>(cap.dep_pool));
    }
    dfx_host.set_tensormap_capacity(rq.chip.tensormap_capacity);

    // Each role's loop, compiled for the guard sets its role can be handed;
    // the config picks one per role, and its lane is built on the thread.
    const auto orchestrator_body = dfx::select_orchestrator(rq.cfg, [&](auto g) -> std::function<void(workload&)> {
        using lane_type = dfx::orchestrator_lane<decltype(g), clock_source, overflow>;
        return [&](workload& w) {
            lane_type lane{dfx_host.channels<typename lane_type::sink_type>(0)};
            orchestrator<typename lane_type::view_type>(c, lane.view()).run(w);
        };
    });
    // [readme: run-time-flags]
    const auto scheduler_body = dfx::select_scheduler(rq.cfg, [&](auto g) -> std::function<void(unsigned)> {
        using lane_type = dfx::scheduler_lane<decltype(g), clock_source, overflow>;
        return [&](unsigned thread) {
            lane_type lane{dfx_host.channels<typename lane_type::sink_type>(thread)};
            run_scheduler(c, lane.view(), thread);
        };
    });
    // [/readme: run-time-flags]
    const auto worker_body = dfx::select_aicore(rq.cfg, [&](auto g) -> std::function<void(std::uint32_t)> {
        using G = decltype(g);
        return [&](std::uint32_t core) {
            if constexpr (G::pmu) {
                // Opened here: perf events count the thread that opens them.
                dfx::host_pmu_source source{core};
                source.open(static_cast<dfx::pmu_event_id>(rq.cfg.collectors.pmu_event));
                using lane_type = dfx::worker_lane<G, clock_source, overflow, dfx::host_pmu_source>;
                lane_type lane{dfx_host.channels<typename lane_type::sink_type>(core), &source};
                run_worker(c, lane.view(), c.core(core));
            } else {
                using lane_type = dfx::worker_lane<G, clock_source, overflow>;
                lane_type lane{dfx_host.channels<typename lane_type::sink_type>(core)};
                run_worker(c, lane.view(), c.core(core));
            }
        };
    });

    const auto start = std::chrono::steady_clock::now();
    {
        std::vector<std::thread> workers, schedulers;
        for (std::uint32_t i = 0; i < c.core_count(); ++i) workers.emplace_back(worker_body, i);
        for (unsigned t = 0; t < rq.chip.scheduler_threads; ++t) schedulers.emplace_back(scheduler_body, t);
        std::thread orchestrator_thread(orchestrator_body, std::ref(*work));
        orchestrator_thread.join();
        for (auto& s : schedulers) s.join();  // they return once every submitted task has completed
        for (std::uint32_t i = 0; i < c.core_count(); ++i) {
            c.core(i).doorbell.store(doorbell_stop, std::memory_order_seq_cst);  // as the dispatch's (scheduler.hpp)
            c.core(i).doorbell.notify_one();
        }
        for (auto& w : workers) w.join();
    }
    result.wall = std::chrono::steady_clock::now() - start;

    result.tasks_submitted = c.submitted_count();
    result.tasks_completed = c.completed_count();
    result.tasks_retired = c.retired_count();
    result.dispatches = c.dispatches().load();
    result.edges_inferred = c.graph_edges.size();
    result.edges_wired = c.wired_edges;
    result.stalls = c.stalls;
    result.fatal = c.fatal_message;
    result.graph_tasks = std::move(c.graph_tasks);
    result.graph_edges = std::move(c.graph_edges);
    if (result.fatal.empty()) result.check = work->check();

    const dfx::session_summary summary = dfx_host.finish();
    if (auto& h = dfx_host.swimlane()) result.accounting.push_back({"chip swimlane", h->report()});
    if (auto& h = dfx_host.dep_gen()) result.accounting.push_back({"dep_gen", h->report()});
    if (auto& h = dfx_host.scope_stats()) result.accounting.push_back({"scope stats", h->report()});
    if (auto& h = dfx_host.args_dump()) {
        result.accounting.push_back({"args dump", h->report()});
        result.dump = h->summary();
    }
    if (auto& h = dfx_host.pmu()) {
        result.accounting.push_back({"PMU", h->report()});
        result.pmu = h->summary();
    }
    auto file = [&](std::string_view collector) -> std::filesystem::path {
        const dfx::collector_outcome* o = summary.find(collector);
        return o && !o->files.empty() ? o->files.front() : std::filesystem::path{};
    };
    result.records = file("chip swimlane");
    result.deps = file("dep_gen");
    result.scope_stats = file("scope stats");
    result.pmu_csv = file("PMU");
    if (const auto json = file("args dump"); !json.empty()) result.args_dump = json.parent_path();
    if (const dfx::collector_outcome* o = summary.find("dep_gen")) result.deps_refused = o->not_written;
    result.name_map = summary.name_map;
    return result;
}

}  // namespace sim
