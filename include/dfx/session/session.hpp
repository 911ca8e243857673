// One capture of one run, typed by the compile-time collector choice and the
// clock: the whole DFX glue of a runtime.
//
//   using dfx_collectors = dfx::collectors<dfx::swimlane_level<2>, dfx::dep_gen<true>>;
//   dfx::session<dfx_collectors, dfx::tsc_clock> dfx_session{
//       {.cores = {dfx::core_type::aiv, dfx::core_type::aiv}, .scheduler_threads = 1}, {.prefix = "dfx_outputs"}};
//   dfx_session.name_kernel(0, "gemm");
//
//   // on each thread, for as long as it stamps:
//   auto lane = dfx_session.worker(core);          // .received() .started() .ended()
//   auto lane = dfx_session.scheduler(thread);     // .dispatching() .finished(...) .phase(...)
//   auto lane = dfx_session.orchestrator();        // .submit(...) .scope_begin(...) ...
//
//   // after the threads are done:
//   dfx::session_summary summary = dfx_session.finish();   // artefacts, name map, accounting
//
// The levels come from the type and the clock frequency from the clock, so
// they cannot disagree with what the lanes stamp. Only the channels the
// collectors need exist, sized from the layout. Lanes are the role views
// (collect/lanes.hpp); see session_host.hpp for what finish() guarantees.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

#include "dfx/output/output_error.hpp"
#include "dfx/policy/clock.hpp"
#include "dfx/policy/collectors.hpp"
#include "dfx/policy/overflow.hpp"
#include "dfx/collect/lanes.hpp"
#include "dfx/session/session_host.hpp"

namespace dfx {

template <class Collectors, class Clock = tsc_clock, class Overflow = block<>>
class session {
public:
    using types = session_types<Collectors, Clock, Overflow>;
    using worker_lane = typename types::worker;
    using scheduler_lane = typename types::scheduler;
    using orchestrator_lane = typename types::orchestrator;

    explicit session(session_layout layout, session_options options = {})
        : host_(Collectors::choice, Clock::frequency_hz(), std::move(layout), std::move(options)) {}

    // A worker (AICore) thread's lane; with PMU on, the core's counter
    // source comes too (policy/pmu_source.hpp), opened on that thread.
    worker_lane worker(std::uint32_t core) const {
        static_assert(!Collectors::aicore::pmu,
                      "dfx::session::worker: PMU is on, pass the core's counter source: worker(core, &source)");
        return worker_lane{worker_channels(core)};
    }
    template <class PmuSource>
    typename types::template worker_with_pmu<PmuSource> worker(std::uint32_t core, PmuSource* source) const {
        return typename types::template worker_with_pmu<PmuSource>{worker_channels(core), source};
    }
    scheduler_lane scheduler(std::uint32_t thread) const { return scheduler_lane{scheduler_channels(thread)}; }
    orchestrator_lane orchestrator(std::uint32_t lane = 0) const { return orchestrator_lane{orchestrator_channels(lane)}; }

    // The handles a lane is built from, for a thread whose code lives in a
    // hot-path translation unit that includes only collect/lanes.hpp:
    //   types::worker lane{channels};   (docs/embedding.md, "One host translation unit")
    typename worker_lane::channels worker_channels(std::uint32_t core) const {
        return host_.template channels<typename worker_lane::sink_type>(check(core, cores(), "worker"));
    }
    typename scheduler_lane::channels scheduler_channels(std::uint32_t thread) const {
        return host_.template channels<typename scheduler_lane::sink_type>(
            check(thread, host_.layout().scheduler_threads, "scheduler"));
    }
    typename orchestrator_lane::channels orchestrator_channels(std::uint32_t lane = 0) const {
        return host_.template channels<typename orchestrator_lane::sink_type>(
            check(lane, host_.layout().orchestrators, "orchestrator"));
    }

    void name_kernel(std::int64_t func_id, std::string name) { host_.name_kernel(func_id, std::move(name)); }
    void set_ring_capacity(int ring, std::int32_t task_window, std::uint64_t heap_bytes, std::int32_t dep_pool) {
        host_.set_ring_capacity(ring, task_window, heap_bytes, dep_pool);
    }
    void set_tensormap_capacity(std::int32_t entries) { host_.set_tensormap_capacity(entries); }

    session_summary finish() { return host_.finish(); }

    basic_session_host<hosts_of<Collectors>>& host() noexcept { return host_; }

private:
    std::uint32_t cores() const noexcept { return static_cast<std::uint32_t>(host_.layout().cores.size()); }
    static std::uint32_t check(std::uint32_t index, std::uint32_t count, const char* role) {
        if (index >= count)
            detail::throw_output_error({"dfx session: ", role, "(", index, "): the layout has ", count});
        return index;
    }

    basic_session_host<hosts_of<Collectors>> host_;
};

}  // namespace dfx
