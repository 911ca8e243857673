// A thread's attachment to a capture: the producers its role's records travel
// on and the role view that stamps into them, in one object that lives on the
// thread's stack.
//
//   // on an AICore worker thread (session: dfx::capture_session, session.hpp)
//   auto lane = session.worker(core);
//   lane.received(task_token, reg_task_id);
//   lane.started(); kernel(); lane.ended();
//   // leaving the scope (or lane.finish()) publishes the last records and
//   // tells the host this thread is done
//
// A lane is the view (it derives from it, so every stamp of the role is a
// member call) plus the sink the view points at. It can be neither copied nor
// moved: the view holds the sink's address, and a moved-from copy would
// leave a second producer on the same channel. With every collector of the
// role off it holds nothing and its calls are empty.
//
// Device side: this header includes no host containers, threads or writers,
// so a runtime's hot-path translation units can name lanes
// (session_types<...>::worker) and build them from channel handles
// (lane{channels}) that one host translation unit hands out.
#pragma once

#include <cstdint>
#include <tuple>
#include <utility>

#include "dfx/collect/aicore_view.hpp"
#include "dfx/collect/orchestrator_view.hpp"
#include "dfx/collect/producers.hpp"
#include "dfx/collect/role_sinks.hpp"
#include "dfx/collect/scheduler_view.hpp"
#include "dfx/policy/overflow.hpp"

namespace dfx {

namespace detail {

// Built before the view (a base initialised first), so the view can take its address.
template <class Sink>
struct lane_sink {
    explicit lane_sink(const sink_channels_t<Sink>& channels) noexcept : sink(std::make_from_tuple<Sink>(channels)) {}
    Sink sink;
};

}  // namespace detail

template <class View, class Sink>
class lane : private detail::lane_sink<Sink>, public View {
public:
    using view_type = View;
    using sink_type = Sink;
    using channels = sink_channels_t<Sink>;

    // Extra: what else the view needs, such as a worker's PMU counter source.
    template <class... Extra>
    explicit lane(const channels& c, Extra*... extra) noexcept
        : detail::lane_sink<Sink>(c), View(&this->sink, extra...) {}
    lane(const lane&) = delete;
    lane& operator=(const lane&) = delete;

    // Publishes the last records and marks this thread done, before the lane
    // goes out of scope; nothing may be stamped after it. Idempotent.
    void finish() noexcept { this->sink.finish(); }

    View& view() noexcept { return *this; }
};

template <class Guards, class Clock, class Overflow = block<>, class PmuSource = no_pmu_source>
using worker_lane =
    lane<aicore_view<Guards, Clock, aicore_sink<Guards, Overflow>, PmuSource>, aicore_sink<Guards, Overflow>>;
template <class Guards, class Clock, class Overflow = block<>>
using scheduler_lane = lane<scheduler_view<Guards, Clock, scheduler_sink<Guards, Overflow>>, scheduler_sink<Guards, Overflow>>;
template <class Guards, class Clock, class Overflow = block<>>
using orchestrator_lane =
    lane<orchestrator_view<Guards, Clock, orchestrator_sink<Guards, Overflow>>, orchestrator_sink<Guards, Overflow>>;

// The lane types of one compile-time collector choice, for code that must
// name them (a worker loop in its own translation unit).
template <class Collectors, class Clock, class Overflow = block<>>
struct session_types {
    using collectors = Collectors;
    using clock = Clock;
    using worker = worker_lane<typename Collectors::aicore, Clock, Overflow>;
    template <class PmuSource>
    using worker_with_pmu = worker_lane<typename Collectors::aicore, Clock, Overflow, PmuSource>;
    using scheduler = scheduler_lane<typename Collectors::scheduler, Clock, Overflow>;
    using orchestrator = orchestrator_lane<typename Collectors::orchestrator, Clock, Overflow>;
};

}  // namespace dfx
