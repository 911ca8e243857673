// PMU on the AICore worker: the counter source read around each kernel, one
// pmu_record per kernel execution with the differences.
//
//   view.pmu_begin();                              just before the kernel runs
//   view.pmu_end(task_id, func_id, core_type);     just after it returns; the record is sent
//
// The counter source (policy/pmu_source.hpp) belongs to the core and is
// opened for the run's event type before the loop starts; the view only
// reads it. With PMU off both calls are empty and the source is never read.
#pragma once

#include <cstdint>

#include "dfx/collect/sink.hpp"
#include "dfx/policy/pmu_source.hpp"
#include "dfx/record/pmu_record.hpp"

namespace dfx {

namespace detail {

template <bool On, class Source, class Sink>
class pmu_capture {
public:
    constexpr pmu_capture(Sink*, Source*) noexcept {}
    void begin() noexcept {}
    void end(std::uint64_t, std::uint32_t, core_type) noexcept {}
};

template <class Source, class Sink>
class pmu_capture<true, Source, Sink> {
public:
    constexpr pmu_capture(Sink* sink, Source* source) noexcept : sink_(sink), source_(source) {}

    // The checks live in the calls, not on the class, so a worker loop that
    // never stamps PMU (a view instantiated for timing only) needs neither a
    // counter source nor a sink for PMU records.
    void begin() noexcept {
        static_assert(pmu_counter_source<Source>,
                      "dfx::aicore_view: PMU is on: give the view a counter source "
                      "(dfx::host_pmu_source, dfx::simulated_pmu_source or the device's own): "
                      "aicore_view<Guards, Clock, Sink, Source>{&sink, &source}");
        if (source_) source_->read(at_begin_);
    }

    void end(std::uint64_t task_id, std::uint32_t func_id, core_type core) noexcept {
        static_assert(pmu_counter_source<Source>,
                      "dfx::aicore_view: PMU is on: give the view a counter source "
                      "(dfx::host_pmu_source, dfx::simulated_pmu_source or the device's own): "
                      "aicore_view<Guards, Clock, Sink, Source>{&sink, &source}");
        static_assert(record_sink<Sink, pmu_record>,
                      "dfx::aicore_view: the sink must accept pmu_record with a noexcept push");
        pmu_record r;
        r.task_id = task_id;
        r.func_id = func_id;
        r.core = core;
        // Without a source the row still goes out, marked `none`, so a
        // wiring mistake shows in the report instead of as missing rows.
        if (source_) {
            pmu_sample now;
            source_->read(now);
            r.total_cycles = difference(now.total_cycles, at_begin_.total_cycles);
            for (int i = 0; i < pmu_counter_slots; ++i) {
                const std::uint64_t d = difference(now.counters[i], at_begin_.counters[i]);
                r.counters[i] = d > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(d);  // the columns are u32
            }
            const pmu_source_status s = source_->status();
            r.source = s.kind;
            r.unavailable_columns = s.unavailable_columns;
            r.refused_errno = s.refused_errno;
        }
        sink_->push(r);
    }

private:
    // A scaled (multiplexed) perf count can step back by a little: never wrap.
    static std::uint64_t difference(std::uint64_t now, std::uint64_t before) noexcept {
        return now > before ? now - before : 0;
    }

    Sink* sink_;
    Source* source_;
    pmu_sample at_begin_{};
};

}  // namespace detail
}  // namespace dfx
