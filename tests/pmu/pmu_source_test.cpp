// Counter sources: the simulated one's fixed counts, the perf source's
// column mapping / scaling / missing counters through a stand-in kernel, the
// fallback when perf_event_open is refused, and the real source on this host.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdint>
#include <vector>

#include "dfx/collect/aicore_view.hpp"
#include "dfx/policy/clock.hpp"
#include "dfx/policy/perf_pmu_source.hpp"
#include "fake_perf.hpp"

using pmu_test::fake_kernel;
using dfx::perf_counter;

namespace {

struct recording_sink {
    std::vector<dfx::pmu_record> rows;
    void push(const dfx::pmu_record& r) noexcept { rows.push_back(r); }  // test-only: may throw on growth
};

// One kernel through an AICore view with PMU on: the counts change by `during` while it runs.
template <class Source, class During>
dfx::pmu_record one_kernel(Source& source, During during) {
    recording_sink sink;
    dfx::aicore_view<dfx::aicore_guards<false, true>, dfx::steady_clock_source, recording_sink, Source> view{&sink, &source};
    view.pmu_begin();
    during();
    view.pmu_end(0x100000003ULL, 7, dfx::core_type::aiv);
    REQUIRE(sink.rows.size() == 1);
    return sink.rows[0];
}

}  // namespace

TEST_CASE("the simulated source: each kernel counts 1000 + seed cycles and 100 * (slot + 1) + seed per named slot") {
    dfx::simulated_pmu_source source{3};
    REQUIRE(source.open(dfx::pmu_event_id::resource_conflict));  // 3 named slots
    for (int k = 0; k < 3; ++k) {
        const auto r = one_kernel(source, [] {});
        CHECK(r.total_cycles == 1003);
        CHECK(r.counters[0] == 103);
        CHECK(r.counters[1] == 203);
        CHECK(r.counters[2] == 303);
        CHECK(r.counters[3] == 0);  // unused slot
        CHECK(r.source == dfx::pmu_source_kind::simulated);
        CHECK(r.refused_errno == 0);
        CHECK(r.task_id == 0x100000003ULL);
        CHECK(r.func_id == 7);
        CHECK(r.core == dfx::core_type::aiv);
    }
}

TEST_CASE("perf source: each column is its counter's delta over the kernel; hits are accesses minus misses") {
    fake_kernel::reset();
    pmu_test::fake_perf_source source;
    REQUIRE(source.open(dfx::pmu_event_id::l2_cache));
    CHECK(source.status().kind == dfx::pmu_source_kind::perf_event);
    CHECK(source.status().unavailable_columns == 0);
    fake_kernel::counts = {{perf_counter::cycles, 1000}, {perf_counter::ll_write_access, 5}};
    const auto r = one_kernel(source, [] {
        fake_kernel::counts = {{perf_counter::cycles, 6000},         {perf_counter::ll_write_access, 55},
                               {perf_counter::ll_write_miss, 20},    {perf_counter::ll_read_access, 300},
                               {perf_counter::ll_read_miss, 100},    {perf_counter::cache_references, 1000},
                               {perf_counter::cache_misses, 250}};
    });
    CHECK(r.total_cycles == 5000);
    CHECK(r.counters[0] == 30);   // write_cache_hit = (55 - 5) write accesses - 20 write misses
    CHECK(r.counters[1] == 20);   // write_cache_miss_allocate
    CHECK(r.counters[2] == 200);  // r0_read_cache_hit
    CHECK(r.counters[3] == 100);  // r0_read_cache_miss_allocate
    CHECK(r.counters[4] == 750);  // r1_read_cache_hit
    CHECK(r.counters[5] == 250);  // r1_read_cache_miss_allocate
    CHECK(r.source == dfx::pmu_source_kind::perf_event);
}

TEST_CASE("perf source: the pipe-utilization mapping, a counter this CPU lacks, and multiplexed scaling") {
    fake_kernel::reset();
    fake_kernel::missing = {perf_counter::l1i_read_access};  // as on many x86 parts
    fake_kernel::time_enabled = 2000;                         // counted half the time: scaled by 2
    fake_kernel::time_running = 1000;
    pmu_test::fake_perf_source source;
    REQUIRE(source.open(dfx::pmu_event_id::pipe_utilization));
    // No CPU analog (vec, cube, mte1, mte3) and not on this CPU (icache_req): all read 0 and are flagged.
    CHECK(source.status().unavailable_columns == ((1u << 0) | (1u << 1) | (1u << 3) | (1u << 5) | (1u << 7)));
    const auto r = one_kernel(source, [] {
        fake_kernel::counts = {{perf_counter::cycles, 400}, {perf_counter::stalled_cycles_backend, 30},
                               {perf_counter::l1i_read_miss, 4}};
    });
    CHECK(r.total_cycles == 800);
    CHECK(r.counters[0] == 0);    // vec_busy_cycles: no CPU analog
    CHECK(r.counters[1] == 0);    // cube_busy_cycles: no CPU analog
    CHECK(r.counters[2] == 800);  // scalar_busy_cycles <- cycles
    CHECK(r.counters[4] == 60);   // mte2_busy_cycles <- stalled-cycles-backend
    CHECK(r.counters[6] == 8);    // icache_miss <- L1I read misses
    CHECK(r.counters[7] == 0);    // icache_req: not on this CPU, flagged
    CHECK(r.unavailable_columns == source.status().unavailable_columns);
}

TEST_CASE("perf_event_open refused: open fails with the errno, and the fallback source counts and says why") {
    fake_kernel::reset();
    fake_kernel::refuse_cycles_errno = EACCES;  // perf_event_paranoid too strict for this user
    pmu_test::fake_perf_source perf;
    CHECK_FALSE(perf.open(dfx::pmu_event_id::memory));
    CHECK(perf.status().kind == dfx::pmu_source_kind::none);
    CHECK(perf.status().refused_errno == EACCES);
    CHECK(fake_kernel::open_fds.empty());

    pmu_test::fake_host_source source{2u};
    REQUIRE(source.open(dfx::pmu_event_id::memory));
    CHECK(source.using_fallback());
    const auto r = one_kernel(source, [] {});
    CHECK(r.source == dfx::pmu_source_kind::simulated);
    CHECK(r.refused_errno == EACCES);
    CHECK(r.total_cycles == 1002);
    CHECK(r.counters[7] == 802);

    fake_kernel::reset();  // granted: the same type uses perf
    pmu_test::fake_host_source granted{2u};
    REQUIRE(granted.open(dfx::pmu_event_id::memory));
    CHECK_FALSE(granted.using_fallback());
    CHECK(granted.status().kind == dfx::pmu_source_kind::perf_event);
}

TEST_CASE("perf source closes what it opened, on reopen and at the end") {
    fake_kernel::reset();
    {
        pmu_test::fake_perf_source source;
        REQUIRE(source.open(dfx::pmu_event_id::memory));
        CHECK(fake_kernel::open_fds.size() == 7);  // cycles + L1D read/write + LL read/write access/miss
        CHECK(source.status().unavailable_columns == ((1u << 2) | (1u << 3)));  // l1_read_req, l1_write_req: no analog
        REQUIRE(source.open(dfx::pmu_event_id::resource_conflict));
        CHECK(fake_kernel::open_fds.size() == 3);  // cycles + frontend + backend stalls
    }
    CHECK(fake_kernel::open_fds.empty());
}

TEST_CASE("the real host source on this machine: perf_event_open if the kernel allows it, else simulated with the reason") {
    dfx::host_pmu_source source{0u};
    REQUIRE(source.open(dfx::pmu_event_id::pipe_utilization));
    const auto status = source.status();
    volatile double sink = 0;
    const auto r = one_kernel(source, [&] {
        for (int i = 0; i < 200000; ++i) sink = sink + i * 0.5;
    });
    if (status.kind == dfx::pmu_source_kind::perf_event) {
        MESSAGE("perf_event_open is available here");
        CHECK(r.total_cycles > 0);
        CHECK(r.refused_errno == 0);
    } else {
        MESSAGE("perf_event_open refused here (errno " << status.refused_errno << "): simulated counts");
        CHECK(status.kind == dfx::pmu_source_kind::simulated);
        CHECK(status.refused_errno != 0);
        CHECK(r.total_cycles == 1000);
    }
}
