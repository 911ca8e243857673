// PMU end to end: AICore views with PMU on push through the transport into
// pmu_host, which writes pmu.csv and reports the counter source. Goldens are
// written by hand from the simulated source's documented counts.
#include <doctest/doctest.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "dfx/collect.hpp"
#include "dfx/output/pmu_host.hpp"
#include "dfx/output/swimlane_host.hpp"
#include "fake_perf.hpp"

namespace {

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string report_text(const dfx::pmu_summary& s) {
    char* data = nullptr;
    std::size_t size = 0;
    std::FILE* f = open_memstream(&data, &size);
    dfx::write_pmu_report(f, s);
    std::fclose(f);
    std::string text(data, size);
    std::free(data);
    return text;
}

struct run_result {
    std::string csv;
    bool csv_exists = false;
    dfx::pmu_summary summary;
    std::vector<dfx::channel_report> report;
};

// `cores` worker threads, each running `tasks` kernels through its own view
// and source; core c's task k is task id (1 << 32 | k * cores + c), kernel
// 10 + c, AIC on even cores and AIV on odd ones.
template <class Source, class MakeSource>
run_result run(const std::string& name, int event, std::vector<std::uint32_t> core_to_thread, std::uint32_t tasks,
               MakeSource make_source) {
    using set = dfx::collectors<dfx::swimlane_level<1>, dfx::dump_level<0>, dfx::pmu_event<2>>;  // timing + PMU
    using sink_type = dfx::aicore_sink<set::aicore, dfx::block<>>;
    using view_type = dfx::aicore_view<set::aicore, dfx::steady_clock_source, sink_type, Source>;
    const auto cores = static_cast<std::uint32_t>(core_to_thread.size());
    dfx::channel_registry channels;
    dfx::pmu_host<> host(event, {.core_to_thread = core_to_thread, .size = {2, 3}}, channels);
    // Timing is on too: the swimlane host owns the AICore timing channels, and
    // each core's sink carries both kinds.
    dfx::swimlane_layout lanes;
    lanes.core_types.assign(cores, dfx::core_type::aic);
    lanes.aicore = {2, 3};
    dfx::swimlane_host<> swimlane(1, lanes, channels);
    swimlane.start();
    host.start();
    std::vector<std::thread> workers;
    for (std::uint32_t c = 0; c < cores; ++c)
        workers.emplace_back([&, c] {
            Source source = make_source(c);
            CHECK(source.open(static_cast<dfx::pmu_event_id>(event)));
            auto sink = channels.sink<sink_type>(c);
            view_type view{&sink, &source};
            for (std::uint32_t k = 0; k < tasks; ++k) {
                view.received((1ULL << 32) | (k * cores + c), k + 1);
                view.started();
                view.pmu_begin();
                view.pmu_end((1ULL << 32) | (k * cores + c), 10 + c, c % 2 ? dfx::core_type::aiv : dfx::core_type::aic);
                view.ended();
            }
        });
    for (auto& w : workers) w.join();
    host.stop();
    swimlane.stop();
    for (std::uint32_t c = 0; c < cores; ++c) CHECK(swimlane.capture().aicore[c].size() == tasks);
    const auto dir = std::filesystem::temp_directory_path() / ("dfx_pmu_host_test_" + name);
    std::filesystem::remove_all(dir);
    run_result r;
    r.summary = host.summary();
    r.report = host.report();
    const auto path = host.write(dir);
    r.csv_exists = std::filesystem::exists(dir / "pmu.csv");
    if (r.csv_exists) r.csv = read_file(path);
    return r;
}

auto simulated = [](std::uint32_t core) { return dfx::simulated_pmu_source{core}; };

}  // namespace

TEST_CASE("pmu.csv end to end (event 2): one row per kernel per core, grouped by thread then core") {
    const auto r = run<dfx::simulated_pmu_source>("event2", 2, {0, 1, 0, 1}, 2, simulated);
    CHECK(r.csv ==
          "thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,vec_busy_cycles,cube_busy_cycles,scalar_busy_cycles,mte1_busy_cycles,mte2_busy_cycles,mte3_busy_cycles,icache_miss,icache_req,event_type\n"
          "0,0,0x0000000100000000,10,0,1000,100,200,300,400,500,600,700,800,2\n"
          "0,0,0x0000000100000004,10,0,1000,100,200,300,400,500,600,700,800,2\n"
          "0,2,0x0000000100000002,12,0,1002,102,202,302,402,502,602,702,802,2\n"
          "0,2,0x0000000100000006,12,0,1002,102,202,302,402,502,602,702,802,2\n"
          "1,1,0x0000000100000001,11,1,1001,101,201,301,401,501,601,701,801,2\n"
          "1,1,0x0000000100000005,11,1,1001,101,201,301,401,501,601,701,801,2\n"
          "1,3,0x0000000100000003,13,1,1003,103,203,303,403,503,603,703,803,2\n"
          "1,3,0x0000000100000007,13,1,1003,103,203,303,403,503,603,703,803,2\n");
    CHECK(r.summary.rows == 8);
    CHECK(r.summary.rows_by_source[static_cast<std::size_t>(dfx::pmu_source_kind::simulated)] == 8);
    CHECK(r.summary.cores_by_source[static_cast<std::size_t>(dfx::pmu_source_kind::simulated)] == 4);
    for (const auto& c : r.report) CHECK(c.balanced());
}

TEST_CASE("pmu.csv rows for every event type: the named slots only, in slot order") {
    struct expectation {
        int event;
        const char* row;
    };
    // Core 0, seed 0: total 1000, slot i = 100 * (i + 1); unused slots have no column.
    const expectation cases[] = {
        {1, "0,0,0x0000000100000000,10,0,1000,100,200,300,400,500,600,700,1\n"},
        {2, "0,0,0x0000000100000000,10,0,1000,100,200,300,400,500,600,700,800,2\n"},
        {4, "0,0,0x0000000100000000,10,0,1000,100,200,300,400,500,600,700,800,4\n"},
        {5, "0,0,0x0000000100000000,10,0,1000,100,200,300,400,500,600,5\n"},
        {6, "0,0,0x0000000100000000,10,0,1000,100,200,300,6\n"},
        {7, "0,0,0x0000000100000000,10,0,1000,100,200,300,400,500,600,700,800,7\n"},
        {8, "0,0,0x0000000100000000,10,0,1000,100,200,300,400,500,600,8\n"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.event);
        const auto r = run<dfx::simulated_pmu_source>("event" + std::to_string(c.event), c.event, {0}, 1, simulated);
        CHECK(r.csv == dfx::pmu_csv_header(static_cast<dfx::pmu_event_id>(c.event)) + "\n" + c.row);
    }
}

TEST_CASE("perf_event_open refused on every core: the simulated fallback counts, and the run says so and why") {
    pmu_test::fake_kernel::reset();
    pmu_test::fake_kernel::refuse_cycles_errno = EACCES;
    const auto r = run<pmu_test::fake_host_source>("refused", 2, {0, 0}, 2,
                                                   [](std::uint32_t core) { return pmu_test::fake_host_source{core}; });
    CHECK(r.summary.rows == 4);
    CHECK(r.summary.rows_by_source[static_cast<std::size_t>(dfx::pmu_source_kind::simulated)] == 4);
    CHECK(r.summary.rows_by_source[static_cast<std::size_t>(dfx::pmu_source_kind::perf_event)] == 0);
    CHECK(r.summary.refused_errno == EACCES);
    const std::string text = report_text(r.summary);
    CHECK(text.find("PMU (event 2 PIPE_UTILIZATION): 4 rows, 0 dropped\n") == 0);
    CHECK(text.find("counter source: simulated (deterministic counts, not measurements): 4 rows on 2 cores\n") !=
          std::string::npos);
    CHECK(text.find("perf_event_open was refused (errno 13: Permission denied), so the fallback source counted\n") !=
          std::string::npos);
    CHECK(text.find("perf_event_open: ") == std::string::npos);  // no row came from perf
    // The counts are the simulated ones: deterministic, as documented.
    CHECK(r.csv.find("0,1,0x0000000100000001,11,1,1001,101,201,301,401,501,601,701,801,2\n") != std::string::npos);
}

TEST_CASE("perf_event_open granted: rows say perf_event, and columns with no counter are reported") {
    pmu_test::fake_kernel::reset();
    pmu_test::fake_kernel::missing = {dfx::perf_counter::l1i_read_access};
    const auto r = run<pmu_test::fake_host_source>("granted", 2, {0}, 3,
                                                   [](std::uint32_t core) { return pmu_test::fake_host_source{core}; });
    CHECK(r.summary.rows_by_source[static_cast<std::size_t>(dfx::pmu_source_kind::perf_event)] == 3);
    CHECK(r.summary.refused_errno == 0);
    const std::string text = report_text(r.summary);
    CHECK(text.find("counter source: perf_event_open: 3 rows on 1 cores\n") != std::string::npos);
    CHECK(text.find("no counter on this host for: vec_busy_cycles cube_busy_cycles mte1_busy_cycles "
                    "mte3_busy_cycles icache_req (written as 0)\n") != std::string::npos);
    CHECK(text.find("refused") == std::string::npos);
}

TEST_CASE("a view given no counter source still sends its rows, marked, and the report says so") {
    using set = dfx::collectors<dfx::swimlane_level<0>, dfx::dump_level<0>, dfx::pmu_event<6>>;
    using sink_type = dfx::aicore_sink<set::aicore, dfx::block<>>;
    dfx::channel_registry channels;
    dfx::pmu_host<> host(6, {.core_to_thread = {0}}, channels);
    host.start();
    {
        auto sink = channels.sink<sink_type>(0);
        dfx::aicore_view<set::aicore, dfx::steady_clock_source, sink_type, dfx::simulated_pmu_source> view{&sink};
        view.pmu_begin();
        view.pmu_end(5, 1, dfx::core_type::aic);
    }
    host.stop();
    const auto s = host.summary();
    CHECK(s.rows_by_source[static_cast<std::size_t>(dfx::pmu_source_kind::none)] == 1);
    CHECK(report_text(s).find("counter source: none (the AICore view was given no counter source: zeros): 1 rows") !=
          std::string::npos);
}

TEST_CASE("no kernel ran: no pmu.csv") {
    const auto r = run<dfx::simulated_pmu_source>("no_rows", 2, {0, 0}, 0, simulated);
    CHECK_FALSE(r.csv_exists);
    CHECK(r.summary.rows == 0);
}

TEST_CASE("the PMU host refuses an event type that is not one") {
    dfx::channel_registry channels;
    CHECK_THROWS_WITH_AS(dfx::pmu_host<>(3, {.core_to_thread = {0}}, channels),
                         "PMU: event type 1, 2, 4, 5, 6, 7 or 8 expected, got 3", dfx::output_error);
}

namespace {

// A sink that knows nothing about PMU, like one written before PMU existed.
struct timing_only_sink {
    void push(const dfx::aicore_task_record&) noexcept {}
};

struct any_sink {
    template <class R>
    void push(const R&) noexcept {}
};

}  // namespace

TEST_CASE("zero cost: PMU off adds nothing to the view; PMU on costs only the loops that stamp it") {
    using off = dfx::aicore_view<dfx::aicore_guards<false, false>, dfx::tsc_clock, any_sink>;
    using timing = dfx::aicore_view<dfx::aicore_guards<true, false>, dfx::tsc_clock, any_sink>;
    static_assert(std::is_empty_v<off>);
    static_assert(sizeof(timing) == sizeof(dfx::detail::aicore_timing<true, dfx::tsc_clock, any_sink>));
    // PMU on, but this loop stamps timing only: the view compiles with a sink
    // and a source that know nothing of PMU (the flag_selection example's case).
    timing_only_sink sink;
    dfx::aicore_view<dfx::aicore_guards<true, true>, dfx::steady_clock_source, timing_only_sink> view{&sink};
    view.received(1, 1);
    view.started();
    view.ended();
    // With PMU off, pmu_begin/pmu_end compile to nothing for any sink and source.
    dfx::aicore_view<dfx::aicore_guards<true, false>, dfx::steady_clock_source, timing_only_sink> plain{&sink};
    plain.pmu_begin();
    plain.pmu_end(1, 1, dfx::core_type::aic);
    CHECK(true);
}

TEST_CASE("the host can be built from the policy type selection hands out") {
    dfx::channel_registry channels;
    dfx::pmu_host<> host(dfx::pmu_event<4>{}, {.core_to_thread = {0, 0}}, channels);
    CHECK(host.event() == 4);
    CHECK(channels.count<dfx::pmu_record>() == 2);
}
