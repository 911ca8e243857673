// What an AICore worker stamps: receive / start / end of each task it runs
// (swimlane >= 1) and the PMU counters around its kernel (pmu).
//
//   view.received(token, reg_task_id);        the task arrived in the core's register (token:
//                                             what the orchestrator's capture_submit returned)
//   view.started();                           the kernel is about to run
//   view.pmu_begin();                         PMU: counters before the kernel
//   ...kernel...
//   view.pmu_end(task_id, func_id, core);     PMU: counters after it; the pmu_record is sent
//   view.ended();                             the kernel returned; the timing record is sent
//
// With PMU on, the view reads the core's counter source (policy/pmu_source.hpp):
//   dfx::aicore_view<G, Clock, Sink, dfx::host_pmu_source> view{&sink, &source};
// With a collector off its calls are empty inline functions, and with both
// off the view is an empty type, so an instrumented worker loop is the
// uninstrumented one.
#pragma once

#include <cstdint>

#include "dfx/collect/dep_gen_capture.hpp"
#include "dfx/collect/pmu_capture.hpp"
#include "dfx/collect/sink.hpp"
#include "dfx/policy/pmu_source.hpp"
#include "dfx/policy/role_guards.hpp"
#include "dfx/record/swimlane_records.hpp"

namespace dfx {

namespace detail {

template <bool On, class Clock, class Sink>
class aicore_timing {
public:
    constexpr explicit aicore_timing(Sink*) noexcept {}
    void received(std::uint64_t, std::uint32_t) noexcept {}
    void started() noexcept {}
    void ended() noexcept {}
};

template <class Clock, class Sink>
class aicore_timing<true, Clock, Sink> {
    static_assert(record_sink<Sink, aicore_task_record>,
                  "dfx::aicore_view: the sink must accept aicore_task_record with a noexcept push");

public:
    constexpr explicit aicore_timing(Sink* sink) noexcept : sink_(sink) {}

    void received(std::uint64_t task_token, std::uint32_t reg_task_id) noexcept {
        received_at_ = Clock::now();
        record_.task_token = task_token;
        record_.reg_task_id = reg_task_id;
    }
    void started() noexcept {
        record_.start = Clock::now();
        const std::uint64_t wait = record_.start - received_at_;
        record_.receive_to_start = wait > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(wait);
    }
    void ended() noexcept {
        record_.end = Clock::now();
        sink_->push(record_);
    }

private:
    Sink* sink_;
    std::uint64_t received_at_ = 0;
    aicore_task_record record_{};
};

}  // namespace detail

template <class Guards, class Clock, class Sink, class PmuSource = no_pmu_source>
class aicore_view {
public:
    using guards = Guards;
    using pmu_source = PmuSource;

    constexpr explicit aicore_view(Sink* sink, PmuSource* pmu = nullptr) noexcept : timing_(sink), pmu_(sink, pmu) {}

    // The token capture_submit() returned for this task (collect/dep_gen_capture.hpp),
    // so the slice joins its node in deps.json; or the raw id, which must equal it.
    void received(task_token token, std::uint32_t reg_task_id) noexcept { timing_.received(token.value, reg_task_id); }
    void received(std::uint64_t task_token, std::uint32_t reg_task_id) noexcept {
        timing_.received(task_token, reg_task_id);
    }
    void started() noexcept { timing_.started(); }
    void ended() noexcept { timing_.ended(); }

    void pmu_begin() noexcept { pmu_.begin(); }
    void pmu_end(std::uint64_t task_id, std::uint32_t func_id, core_type core) noexcept {
        pmu_.end(task_id, func_id, core);
    }

private:
    [[no_unique_address]] detail::aicore_timing<Guards::timing, Clock, Sink> timing_;
    [[no_unique_address]] detail::pmu_capture<Guards::pmu, PmuSource, Sink> pmu_;
};

}  // namespace dfx
