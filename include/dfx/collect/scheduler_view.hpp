// What an AICPU scheduler thread stamps.
//
// Level >= 2, per dispatch:
//   auto stamp = view.dispatching();                  just before writing the core's register
//   view.finished(core, reg_task_id, stamp);          when the completion is observed
// The stamp is an empty type below level 2, so a runtime that keeps it in its
// per-core state ([[no_unique_address]]) pays nothing for it.
//
// Level >= 3, per non-idle scheduler-loop phase (RAII):
//   { auto phase = view.phase(sched_phase_kind::dispatch, loop_iter, [&] { return depths(); });
//     ...; phase.processed(n); phase.pops(hit, miss); phase.depths_at_end([&] { return depths(); }); }
// The queue depths are given by a sampler (a callable returning
// dfx::queue_depths), called only when phases are on, so reading the queues
// costs nothing below level 3; a plain dfx::queue_depths value works too.
// docs/swimlane.md says what each sched_phase_kind means.
//
// Dump level >= 1, per task (collect/args_dump_capture.hpp):
//   view.before_dispatch(task_id, kernel_ids, args);   before writing the core's register
//   view.after_completion(task_id, kernel_ids, args);  once the completion is observed
#pragma once

#include <array>
#include <concepts>
#include <cstdint>

#include "dfx/collect/args_dump_capture.hpp"
#include "dfx/collect/sink.hpp"
#include "dfx/policy/role_guards.hpp"
#include "dfx/record/swimlane_records.hpp"

namespace dfx {

struct no_dispatch_stamp {};

struct dispatch_stamp {
    std::uint64_t at = 0;
};

// A callable that samples the ready-queue depths when, and only when, a phase records them.
template <class F>
concept depths_sampler = requires(F& f) {
    { f() } -> std::convertible_to<queue_depths>;
};

namespace detail {

template <bool On, class Clock, class Sink>
class dispatch_finish {
public:
    using stamp = no_dispatch_stamp;
    constexpr explicit dispatch_finish(Sink*) noexcept {}
    stamp dispatching() noexcept { return {}; }
    void finished(std::uint32_t, std::uint32_t, stamp) noexcept {}
};

template <class Clock, class Sink>
class dispatch_finish<true, Clock, Sink> {
    static_assert(record_sink<Sink, aicpu_task_record>,
                  "dfx::scheduler_view: the sink must accept aicpu_task_record with a noexcept push");

public:
    using stamp = dispatch_stamp;
    constexpr explicit dispatch_finish(Sink* sink) noexcept : sink_(sink) {}

    stamp dispatching() noexcept { return {Clock::now()}; }
    void finished(std::uint32_t core, std::uint32_t reg_task_id, stamp dispatched) noexcept {
        sink_->push(aicpu_task_record{dispatched.at, Clock::now(), core, reg_task_id});
    }

private:
    Sink* sink_;
};

class no_phase {
public:
    ~no_phase() {}  // reads as a used RAII object, like phase_scope
    void processed(std::uint32_t) noexcept {}
    void pops(std::uint32_t, std::uint32_t) noexcept {}
    void task(std::uint64_t) noexcept {}
    void depths_at_end(queue_depths) noexcept {}
    template <depths_sampler Sampler>
    void depths_at_end(Sampler&&) noexcept {}
};

template <class Clock, class Sink>
class phase_scope {
public:
    phase_scope(Sink* sink, sched_phase_kind kind, std::uint32_t loop_iter, queue_depths at_start) noexcept
        : sink_(sink) {
        record_.kind = kind;
        record_.loop_iter = loop_iter;
        record_.depth_at_start = at_start;
        record_.start = Clock::now();
    }
    phase_scope(const phase_scope&) = delete;
    phase_scope& operator=(const phase_scope&) = delete;
    ~phase_scope() {
        record_.end = Clock::now();
        sink_->push(record_);
    }

    void processed(std::uint32_t tasks) noexcept { record_.tasks_processed = tasks; }
    void pops(std::uint32_t hit, std::uint32_t miss) noexcept {
        record_.pop_hit = hit;
        record_.pop_miss = miss;
    }
    void task(std::uint64_t task_id) noexcept { record_.task_id = task_id; }
    void depths_at_end(queue_depths at_end) noexcept { record_.depth_at_end = at_end; }
    template <depths_sampler Sampler>
    void depths_at_end(Sampler&& sample) noexcept {
        record_.depth_at_end = sample();
    }

private:
    Sink* sink_;
    sched_phase_record record_{};
};

template <bool On, class Clock, class Sink>
class phases {
public:
    constexpr explicit phases(Sink*) noexcept {}
    no_phase phase(sched_phase_kind, std::uint32_t, queue_depths = {}) noexcept { return {}; }
    template <depths_sampler Sampler>
    no_phase phase(sched_phase_kind, std::uint32_t, Sampler&&) noexcept {
        return {};
    }
};

template <class Clock, class Sink>
class phases<true, Clock, Sink> {
    static_assert(record_sink<Sink, sched_phase_record>,
                  "dfx::scheduler_view: the sink must accept sched_phase_record with a noexcept push");

public:
    constexpr explicit phases(Sink* sink) noexcept : sink_(sink) {}
    phase_scope<Clock, Sink> phase(sched_phase_kind kind, std::uint32_t loop_iter,
                                   queue_depths at_start = {}) noexcept {
        return {sink_, kind, loop_iter, at_start};
    }
    template <depths_sampler Sampler>
    phase_scope<Clock, Sink> phase(sched_phase_kind kind, std::uint32_t loop_iter, Sampler&& sample) noexcept {
        return {sink_, kind, loop_iter, sample()};
    }

private:
    Sink* sink_;
};

}  // namespace detail

template <class Guards, class Clock, class Sink>
class scheduler_view {
    using dispatch_part = detail::dispatch_finish<Guards::dispatch_finish, Clock, Sink>;
    using phase_part = detail::phases<Guards::phases, Clock, Sink>;

public:
    using guards = Guards;
    using stamp = typename dispatch_part::stamp;

    constexpr explicit scheduler_view(Sink* sink) noexcept : dispatch_(sink), phases_(sink), dump_(sink) {}

    stamp dispatching() noexcept { return dispatch_.dispatching(); }
    void finished(std::uint32_t core, std::uint32_t reg_task_id, stamp dispatched) noexcept {
        dispatch_.finished(core, reg_task_id, dispatched);
    }
    auto phase(sched_phase_kind kind, std::uint32_t loop_iter, queue_depths at_start = {}) noexcept {
        return phases_.phase(kind, loop_iter, at_start);
    }
    template <depths_sampler Sampler>
    auto phase(sched_phase_kind kind, std::uint32_t loop_iter, Sampler&& depths_at_start) noexcept {
        return phases_.phase(kind, loop_iter, static_cast<Sampler&&>(depths_at_start));
    }

    template <class Args>
    void before_dispatch(std::uint64_t task_id, const std::array<std::int32_t, 3>& kernel_ids, const Args& args) noexcept {
        dump_.before_dispatch(task_id, kernel_ids, args);
    }
    template <class Args>
    void after_completion(std::uint64_t task_id, const std::array<std::int32_t, 3>& kernel_ids, const Args& args) noexcept {
        dump_.after_completion(task_id, kernel_ids, args);
    }

private:
    [[no_unique_address]] dispatch_part dispatch_;
    [[no_unique_address]] phase_part phases_;
    [[no_unique_address]] detail::args_dump_capture<Guards::dump_level, Sink> dump_;
};

}  // namespace dfx
