// The collectors of one runtime, fixed at compile time, and the role views
// handed to its threads:
//
//   using set = dfx::collector_set<dfx::collectors<dfx::swimlane_level<2>>, dfx::tsc_clock, my_sink>;
//   set collectors{&sink};
//   auto worker = collectors.aicore();          // one per AICore worker thread
//   auto worker = collectors.aicore(&source);   // ...with PMU on: the core's counter source
//   auto scheduler = collectors.scheduler();    // one per AICPU scheduler thread
//   auto orchestrator = collectors.orchestrator();
//
// With every collector off the set and every view are empty types.
#pragma once

#include "dfx/collect/aicore_view.hpp"
#include "dfx/collect/orchestrator_view.hpp"
#include "dfx/collect/scheduler_view.hpp"
#include "dfx/policy/collectors.hpp"

namespace dfx {

namespace detail {

template <bool Any, class Sink>
struct sink_ref {
    constexpr explicit sink_ref(Sink*) noexcept {}
    constexpr Sink* get() const noexcept { return nullptr; }
};

template <class Sink>
struct sink_ref<true, Sink> {
    constexpr explicit sink_ref(Sink* sink) noexcept : sink_(sink) {}
    constexpr Sink* get() const noexcept { return sink_; }
    Sink* sink_;
};

}  // namespace detail

template <class Collectors, class Clock, class Sink>
class collector_set {
public:
    using collectors = Collectors;
    using aicore_view = dfx::aicore_view<typename Collectors::aicore, Clock, Sink>;
    using scheduler_view = dfx::scheduler_view<typename Collectors::scheduler, Clock, Sink>;
    using orchestrator_view = dfx::orchestrator_view<typename Collectors::orchestrator, Clock, Sink>;

    constexpr explicit collector_set(Sink* sink) noexcept : sink_(sink) {}

    constexpr aicore_view aicore() const noexcept { return aicore_view{sink_.get()}; }
    template <class PmuSource>
    constexpr dfx::aicore_view<typename Collectors::aicore, Clock, Sink, PmuSource> aicore(PmuSource* source) const noexcept {
        return dfx::aicore_view<typename Collectors::aicore, Clock, Sink, PmuSource>{sink_.get(), source};
    }
    constexpr scheduler_view scheduler() const noexcept { return scheduler_view{sink_.get()}; }
    constexpr orchestrator_view orchestrator() const noexcept { return orchestrator_view{sink_.get()}; }

private:
    [[no_unique_address]] detail::sink_ref<Collectors::any_enabled, Sink> sink_;
};

}  // namespace dfx
