// The sample loops' sink: a real type with a noexcept push per record type.
// The push bodies live in another translation unit (sample_sink.cpp), so the
// optimiser compiling the loops must keep every enabled stamp and the call
// that hands its record over; a disabled stamp has nothing left to keep.
#pragma once

#include "dfx/record/dep_gen_records.hpp"
#include "dfx/record/scope_stats_records.hpp"
#include "dfx/record/swimlane_records.hpp"

struct dfx_zc_sink {
    void push(const dfx::aicore_task_record& record) noexcept;
    void push(const dfx::aicpu_task_record& record) noexcept;
    void push(const dfx::sched_phase_record& record) noexcept;
    void push(const dfx::orch_phase_record& record) noexcept;
    void push(const dfx::dep_gen_record& record) noexcept;
    void push(const dfx::scope_stats_record& record) noexcept;
};

extern dfx_zc_sink dfx_zc_the_sink;
