#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "dfx/collect.hpp"
#include "dfx/policy.hpp"

namespace {

// A clock that advances by 10 on every read, so each stamp is predictable.
struct ticking_clock {
    static inline std::uint64_t ticks = 0;
    static std::uint64_t now() noexcept { return ticks += 10; }
    static std::uint64_t frequency_hz() noexcept { return 1'000'000'000ULL; }
};

struct recording_sink {
    std::vector<dfx::aicore_task_record> aicore;
    std::vector<dfx::aicpu_task_record> aicpu;
    std::vector<dfx::sched_phase_record> phases;
    std::vector<dfx::orch_phase_record> orchestrator;
    // Test-only: vector growth may throw, which a real sink must never do.
    void push(const dfx::aicore_task_record& r) noexcept { aicore.push_back(r); }
    void push(const dfx::aicpu_task_record& r) noexcept { aicpu.push_back(r); }
    void push(const dfx::sched_phase_record& r) noexcept { phases.push_back(r); }
    void push(const dfx::orch_phase_record& r) noexcept { orchestrator.push_back(r); }
};

template <int Level>
using set_at = dfx::collector_set<dfx::collectors<dfx::swimlane_level<Level>>, ticking_clock, recording_sink>;

// One task through all three roles, the way a runtime's threads would stamp it.
template <class Set>
void run_one_task(const Set& set) {
    auto orchestrator = set.orchestrator();
    auto scheduler = set.scheduler();
    auto worker = set.aicore();
    {
        auto submit = orchestrator.submitting(0x1'0000'0007ULL);
        (void)submit;
    }
    typename Set::scheduler_view::stamp stamp;
    {
        auto phase = scheduler.phase(dfx::sched_phase_kind::dispatch, 5, {2, 1, 0});
        stamp = scheduler.dispatching();
        phase.processed(1);
        phase.pops(3, 4);
        phase.depths_at_end({1, 1, 0});
    }
    worker.received(0x1'0000'0007ULL, 11);
    worker.started();
    worker.ended();
    scheduler.finished(3, 11, stamp);
}

// Jumps 2^33 ticks per read: more than a u32 wait can hold.
struct jumping_clock {
    static inline std::uint64_t ticks = 0;
    static std::uint64_t now() noexcept { return ticks += (1ULL << 33); }
    static std::uint64_t frequency_hz() noexcept { return 1; }
};

}  // namespace

TEST_CASE("level 0 records nothing") {
    recording_sink sink;
    run_one_task(set_at<0>{&sink});
    CHECK(sink.aicore.empty());
    CHECK(sink.aicpu.empty());
    CHECK(sink.phases.empty());
    CHECK(sink.orchestrator.empty());
}

TEST_CASE("level 1 records AICore timing only") {
    recording_sink sink;
    ticking_clock::ticks = 0;
    run_one_task(set_at<1>{&sink});
    REQUIRE(sink.aicore.size() == 1);
    const auto& r = sink.aicore[0];
    CHECK(r.task_token == 0x1'0000'0007ULL);
    CHECK(r.reg_task_id == 11);
    // receive at 10, start at 20, end at 30: nothing else reads the clock at level 1
    CHECK(r.start == 20);
    CHECK(r.end == 30);
    CHECK(r.receive_to_start == 10);
    CHECK(sink.aicpu.empty());
    CHECK(sink.phases.empty());
    CHECK(sink.orchestrator.empty());
}

TEST_CASE("level 2 adds dispatch/finish joined on (core, reg_task_id)") {
    recording_sink sink;
    ticking_clock::ticks = 0;
    run_one_task(set_at<2>{&sink});
    REQUIRE(sink.aicpu.size() == 1);
    CHECK(sink.aicpu[0].core == 3);
    CHECK(sink.aicpu[0].reg_task_id == 11);
    CHECK(sink.aicpu[0].dispatch == 10);
    CHECK(sink.aicpu[0].finish == 50);
    REQUIRE(sink.aicore.size() == 1);
    CHECK(sink.aicore[0].start == 30);
    CHECK(sink.phases.empty());
    CHECK(sink.orchestrator.empty());
}

TEST_CASE("level 3 adds scheduler phases with queue depths") {
    recording_sink sink;
    ticking_clock::ticks = 0;
    run_one_task(set_at<3>{&sink});
    REQUIRE(sink.phases.size() == 1);
    const auto& p = sink.phases[0];
    CHECK(p.kind == dfx::sched_phase_kind::dispatch);
    CHECK(p.loop_iter == 5);
    CHECK(p.start == 10);
    CHECK(p.end == 30);  // the dispatch stamp read the clock in between
    CHECK(p.tasks_processed == 1);
    CHECK(p.pop_hit == 3);
    CHECK(p.pop_miss == 4);
    CHECK(p.depth_at_start.aic == 2);
    CHECK(p.depth_at_start.aiv == 1);
    CHECK(p.depth_at_end.aic == 1);
    CHECK(sink.aicpu.size() == 1);
    CHECK(sink.orchestrator.empty());
}

// A phase's depths through samplers: each is called only when phases record.
template <class Set>
int sampled_phase(const Set& set) {
    int calls = 0;
    auto scheduler = set.scheduler();
    {
        auto phase = scheduler.phase(dfx::sched_phase_kind::complete, 9, [&] {
            ++calls;
            return dfx::queue_depths{4, 5, 6};
        });
        phase.depths_at_end([&] {
            ++calls;
            return dfx::queue_depths{1, 2, 3};
        });
    }
    return calls;
}

TEST_CASE("a phase's queue depths come from samplers, called only when phases are on") {
    recording_sink sink;
    CHECK(sampled_phase(set_at<2>{&sink}) == 0);
    CHECK(sink.phases.empty());
    CHECK(sampled_phase(set_at<0>{&sink}) == 0);

    CHECK(sampled_phase(set_at<3>{&sink}) == 2);
    REQUIRE(sink.phases.size() == 1);
    const auto& p = sink.phases[0];
    CHECK(p.kind == dfx::sched_phase_kind::complete);
    CHECK(p.loop_iter == 9);
    CHECK((p.depth_at_start.aic == 4 && p.depth_at_start.aiv == 5 && p.depth_at_start.mix == 6));
    CHECK((p.depth_at_end.aic == 1 && p.depth_at_end.aiv == 2 && p.depth_at_end.mix == 3));
}

TEST_CASE("level 4 adds one orchestrator record per submit, numbered in order") {
    recording_sink sink;
    set_at<4> set{&sink};
    auto orchestrator = set.orchestrator();
    for (std::uint64_t id : {7u, 8u, 9u}) {
        auto submit = orchestrator.submitting(id);
        (void)submit;
    }
    REQUIRE(sink.orchestrator.size() == 3);
    for (std::uint32_t i = 0; i < 3; ++i) {
        CHECK(sink.orchestrator[i].submit_idx == i);
        CHECK(sink.orchestrator[i].task_id == 7 + i);
        CHECK(sink.orchestrator[i].end > sink.orchestrator[i].start);
    }
}

TEST_CASE("receive_to_start saturates instead of wrapping") {
    recording_sink sink;
    dfx::aicore_view<dfx::aicore_guards<true, false>, jumping_clock, recording_sink> worker{&sink};
    worker.received(1, 1);
    worker.started();
    worker.ended();
    REQUIRE(sink.aicore.size() == 1);
    CHECK(sink.aicore[0].receive_to_start == UINT32_MAX);
}
