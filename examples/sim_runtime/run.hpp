// One run of one simulated chip with the collectors a validated run config
// asks for, the way a runtime links them:
//
//   host side      one host collector per enabled collector (select_host),
//                  each creating the channels its records travel on;
//   device side    each role's loop instantiated with the guard set the
//                  config selects for that role (select_orchestrator /
//                  select_scheduler / select_aicore), its view stamping into a
//                  sink built from those channels on the thread that pushes;
//   artefacts      written under the prefix after every thread has finished
//                  and the hosts have drained (the args dump streams its
//                  payload to args.bin while the run goes).
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
#include "dfx/output/args_dump_host.hpp"
#include "dfx/output/dep_gen_host.hpp"
#include "dfx/output/name_map.hpp"
#include "dfx/output/pmu_host.hpp"
#include "dfx/output/scope_stats_host.hpp"
#include "dfx/output/swimlane_host.hpp"
#include "dfx/policy/perf_pmu_source.hpp"
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

template <class P>
constexpr bool is_swimlane_policy = requires { P::aicore_timing; };
template <class P>
constexpr bool is_dump_policy = requires { P::marked_only; };
template <class P>
constexpr bool is_pmu_policy = requires { P::id; };

inline dfx::swimlane_layout layout_of(const chip& c) {
    dfx::swimlane_layout layout;
    for (std::uint32_t i = 0; i < c.core_count(); ++i) layout.core_types.push_back(c.options().aic_cores > i ? dfx::core_type::aic : dfx::core_type::aiv);
    layout.scheduler_threads = c.options().scheduler_threads;
    layout.scheduler_pools = 4;  // the a2a3 platform's AICPU thread count
    layout.orchestrator_lanes = 1;
    layout.clock_freq_hz = clock_source::frequency_hz();
    return layout;
}

}  // namespace detail

// Throws dfx::output_error when an artefact cannot be written.
inline run_result run_one(const run_request& rq) {
    run_result result;
    chip c(rq.chip);
    const auto work = make_workload(rq.workload, rq.seed);
    work->prepare(c);

    // The prefix exists before the run (the args dump writes into it as it goes).
    if (rq.cfg.any_enabled()) std::filesystem::create_directories(rq.prefix);

    // Host collectors, one per enabled collector; each registers its channels.
    dfx::channel_registry channels;
    std::optional<dfx::swimlane_host<>> swimlane;
    std::optional<dfx::dep_gen_host<>> deps;
    std::optional<dfx::scope_stats_host<>> scopes;
    std::optional<dfx::args_dump_host<>> dump;
    std::optional<dfx::pmu_host<>> pmu;
    dfx::select_host(rq.cfg, [&](auto policy) {
        using P = decltype(policy);
        if constexpr (detail::is_swimlane_policy<P>) {
            swimlane.emplace(P::value, detail::layout_of(c), channels);
            swimlane->set_core_to_thread(c.core_to_thread());
        } else if constexpr (std::is_same_v<P, dfx::dep_gen<true>>) {
            deps.emplace(channels);
        } else if constexpr (std::is_same_v<P, dfx::scope_stats<true>>) {
            scopes.emplace(channels);
            for (int r = 0; r < ring_count; ++r) {
                const ring_capacity& cap = c.ring_at(r).capacity();
                scopes->set_ring_capacity(r, static_cast<std::int32_t>(cap.task_window), cap.heap_bytes,
                                          static_cast<std::int32_t>(cap.dep_pool));
            }
            scopes->set_tensormap_capacity(rq.chip.tensormap_capacity);
        } else if constexpr (detail::is_dump_policy<P>) {
            // 8 MiB of payload per scheduler thread: plenty for these workloads.
            dump.emplace(P::value, rq.prefix,
                         dfx::args_dump_layout{.scheduler_threads = rq.chip.scheduler_threads, .records = {8, 256},
                                               .payload = {8, 256}},
                         channels);
        } else if constexpr (detail::is_pmu_policy<P>) {
            std::vector<std::uint32_t> owners;
            for (const int t : c.core_to_thread()) owners.push_back(static_cast<std::uint32_t>(t));
            pmu.emplace(P::value, dfx::pmu_layout{.core_to_thread = owners}, channels);
        }
    });

    // Each role's loop, compiled for the guard sets its role can be handed;
    // the config picks one per role.
    const auto orchestrator_body = dfx::select_orchestrator(rq.cfg, [&](auto g) -> std::function<void(workload&)> {
        using G = decltype(g);
        return [&](workload& w) {
            using sink_type = dfx::orchestrator_sink<G, overflow>;
            auto sink = channels.sink<sink_type>(0);
            dfx::orchestrator_view<G, clock_source, sink_type> view{&sink};
            orchestrator<decltype(view)>(c, view).run(w);
        };
    });
    const auto scheduler_body = dfx::select_scheduler(rq.cfg, [&](auto g) -> std::function<void(unsigned)> {
        using G = decltype(g);
        return [&](unsigned thread) {
            using sink_type = dfx::scheduler_sink<G, overflow>;
            auto sink = channels.sink<sink_type>(thread);
            dfx::scheduler_view<G, clock_source, sink_type> view{&sink};
            run_scheduler(c, view, thread);
        };
    });
    const auto worker_body = dfx::select_aicore(rq.cfg, [&](auto g) -> std::function<void(std::uint32_t)> {
        using G = decltype(g);
        return [&](std::uint32_t core) {
            using sink_type = dfx::aicore_sink<G, overflow>;
            auto sink = channels.sink<sink_type>(core);
            if constexpr (G::pmu) {
                // Opened here: perf events count the thread that opens them.
                dfx::host_pmu_source source{core};
                source.open(static_cast<dfx::pmu_event_id>(rq.cfg.collectors.pmu_event));
                dfx::aicore_view<G, clock_source, sink_type, dfx::host_pmu_source> view{&sink, &source};
                run_worker(c, view, c.core(core));
            } else {
                dfx::aicore_view<G, clock_source, sink_type> view{&sink};
                run_worker(c, view, c.core(core));
            }
        };
    });

    if (swimlane) swimlane->start();
    if (deps) deps->start();
    if (scopes) scopes->start();
    if (dump) dump->start();
    if (pmu) pmu->start();

    const auto start = std::chrono::steady_clock::now();
    {
        std::vector<std::thread> workers, schedulers;
        for (std::uint32_t i = 0; i < c.core_count(); ++i) workers.emplace_back(worker_body, i);
        for (unsigned t = 0; t < rq.chip.scheduler_threads; ++t) schedulers.emplace_back(scheduler_body, t);
        std::thread orchestrator_thread(orchestrator_body, std::ref(*work));
        orchestrator_thread.join();
        for (auto& s : schedulers) s.join();  // they return once every submitted task has completed
        for (std::uint32_t i = 0; i < c.core_count(); ++i) {
            c.core(i).doorbell.store(doorbell_stop, std::memory_order_release);
            c.core(i).doorbell.notify_one();
        }
        for (auto& w : workers) w.join();
    }
    result.wall = std::chrono::steady_clock::now() - start;

    if (swimlane) swimlane->stop();
    if (deps) deps->stop();
    if (scopes) scopes->stop();
    if (dump) dump->stop();
    if (pmu) pmu->stop();

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

    if (swimlane) result.accounting.push_back({"chip swimlane", swimlane->report()});
    if (deps) result.accounting.push_back({"dep_gen", deps->report()});
    if (scopes) result.accounting.push_back({"scope stats", scopes->report()});
    if (dump) {
        result.accounting.push_back({"args dump", dump->report()});
        result.dump = dump->summary();
    }
    if (pmu) {
        result.accounting.push_back({"PMU", pmu->report()});
        result.pmu = pmu->summary();
    }

    if (rq.cfg.any_enabled()) {
        if (swimlane) result.records = swimlane->write(rq.prefix);
        if (dump) {
            const std::filesystem::path json = dump->write();
            if (!json.empty()) result.args_dump = json.parent_path();
        }
        if (pmu) result.pmu_csv = pmu->write(rq.prefix);
        if (deps) {
            const dfx::deps_written written = deps->write(rq.prefix);
            result.deps = written.path;
            result.deps_refused = written.refused;
        }
        if (scopes) result.scope_stats = scopes->write(rq.prefix);
        if (swimlane || deps) result.name_map = dfx::write_name_map(rq.prefix, rq.case_name, name_table());
    }
    return result;
}

}  // namespace sim
