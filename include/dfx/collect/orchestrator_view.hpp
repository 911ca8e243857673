// What the orchestrator stamps.
//
// Swimlane level 4, one record per submit_task() / alloc_tensors() (RAII):
//   { auto submit = view.submitting(task_id); ...build and publish the task... }
// dep_gen, per submit (collect/dep_gen_capture.hpp):
//   view.capture_submit({.task_id = id, .kernel_ids = ..., .args = args, .explicit_deps = deps});
// Scope stats, per scope boundary (collect/scope_stats_capture.hpp):
//   view.scope_begin(sampler);  ...  view.scope_end(sampler);
#pragma once

#include <cstdint>

#include "dfx/collect/dep_gen_capture.hpp"
#include "dfx/collect/scope_stats_capture.hpp"
#include "dfx/collect/sink.hpp"
#include "dfx/policy/role_guards.hpp"
#include "dfx/record/swimlane_records.hpp"

namespace dfx {

namespace detail {

// A user-written destructor, like the real scope's, so `auto submit = ...`
// reads as a used RAII object (no unused-variable warning) at every level.
struct no_submit_scope {
    ~no_submit_scope() {}
};

template <class Clock, class Sink>
class submit_scope {
public:
    submit_scope(Sink* sink, std::uint64_t task_id, std::uint32_t submit_idx) noexcept : sink_(sink) {
        record_.task_id = task_id;
        record_.submit_idx = submit_idx;
        record_.start = Clock::now();
    }
    submit_scope(const submit_scope&) = delete;
    submit_scope& operator=(const submit_scope&) = delete;
    ~submit_scope() {
        record_.end = Clock::now();
        sink_->push(record_);
    }

private:
    Sink* sink_;
    orch_phase_record record_{};
};

template <bool On, class Clock, class Sink>
class orch_phases {
public:
    constexpr explicit orch_phases(Sink*) noexcept {}
    no_submit_scope submitting(std::uint64_t) noexcept { return {}; }
};

template <class Clock, class Sink>
class orch_phases<true, Clock, Sink> {
    static_assert(record_sink<Sink, orch_phase_record>,
                  "dfx::orchestrator_view: the sink must accept orch_phase_record with a noexcept push");

public:
    constexpr explicit orch_phases(Sink* sink) noexcept : sink_(sink) {}
    submit_scope<Clock, Sink> submitting(std::uint64_t task_id) noexcept {
        return {sink_, task_id, next_submit_idx_++};
    }

private:
    Sink* sink_;
    std::uint32_t next_submit_idx_ = 0;
};

}  // namespace detail

template <class Guards, class Clock, class Sink>
class orchestrator_view {
public:
    using guards = Guards;

    constexpr explicit orchestrator_view(Sink* sink) noexcept : phases_(sink), deps_(sink), scopes_(sink) {}

    [[nodiscard]] auto submitting(std::uint64_t task_id) noexcept { return phases_.submitting(task_id); }

    // Returns the task's token, for the worker's received().
    task_token capture_submit(const submit_capture& submit) noexcept { return deps_.capture_submit(submit); }

    void set_heap_capacity(int ring, std::uint64_t bytes) noexcept { scopes_.set_heap_capacity(ring, bytes); }
    template <class Sampler>
    void scope_begin(Sampler&& sample, const char* file = __builtin_FILE(), int line = __builtin_LINE()) noexcept {
        scopes_.scope_begin(static_cast<Sampler&&>(sample), file, line);
    }
    template <class Sampler>
    void scope_end(Sampler&& sample) noexcept {
        scopes_.scope_end(static_cast<Sampler&&>(sample));
    }
    void heap_wrapped(heap_side side) noexcept { scopes_.heap_wrapped(side); }
    void fatal() noexcept { scopes_.fatal(); }

private:
    [[no_unique_address]] detail::orch_phases<Guards::phases, Clock, Sink> phases_;
    [[no_unique_address]] detail::dep_gen_capture<Guards::dep_gen, Sink> deps_;
    [[no_unique_address]] detail::scope_stats_capture<Guards::scope_stats, Sink> scopes_;
};

}  // namespace dfx
