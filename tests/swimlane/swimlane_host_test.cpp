// The swimlane collector end to end: role views stamp through their sinks,
// the transport carries the records, the host regroups and writes them.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "dfx/collect.hpp"
#include "dfx/output/swimlane_host.hpp"

namespace {

// A device counter far above 2^53, so every timestamp tests exact u64 output.
constexpr std::uint64_t counter_base = (1ULL << 60) + 12345;
std::atomic<std::uint64_t> counter{counter_base};
std::uint64_t read_counter() noexcept { return counter.fetch_add(7, std::memory_order_relaxed); }
using clock_source = dfx::device_counter<read_counter, 50'000'000>;

constexpr std::uint32_t cores = 4;
constexpr std::uint32_t scheduler_threads = 2;
constexpr std::uint32_t tasks_per_core = 150;

dfx::swimlane_layout small_layout() {
    dfx::swimlane_layout layout;
    layout.core_types = {dfx::core_type::aic, dfx::core_type::aic, dfx::core_type::aiv, dfx::core_type::aiv};
    layout.scheduler_threads = scheduler_threads;
    layout.scheduler_pools = 4;
    layout.clock_freq_hz = clock_source::frequency_hz();
    // Tiny buffers, so every channel switches buffers many times.
    layout.aicore = layout.aicpu = layout.sched_phases = layout.orch_phases = {2, 16};
    return layout;
}

template <int Level>
struct run_result {
    dfx::swimlane_capture capture;
    std::vector<dfx::channel_report> report;
    std::size_t channels;
    std::filesystem::path file;
    std::filesystem::path from_capture;  // the same capture written through swimlane_capture
};

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Scheduler thread t owns cores t and t + 2; it dispatches, "runs" the task
// on the core (stamping the AICore view with that core's sink) and observes
// the finish, as a runtime's threads would, one producer per thread.
template <int Level>
run_result<Level> run() {
    using set = dfx::collectors<dfx::swimlane_level<Level>>;
    using overflow = dfx::block<>;
    using aicore_sink = dfx::aicore_sink<typename set::aicore, overflow>;
    using scheduler_sink = dfx::scheduler_sink<typename set::scheduler, overflow>;
    using orchestrator_sink = dfx::orchestrator_sink<typename set::orchestrator, overflow>;

    dfx::channel_registry channels;
    dfx::swimlane_host<> host(Level, small_layout(), channels);
    host.set_core_to_thread({0, 1, 0, 1});
    run_result<Level> result;
    result.channels = host.channel_count();
    host.start();
    {
        std::thread orchestrator([&] {
            auto sink = channels.template sink<orchestrator_sink>(0);
            dfx::orchestrator_view<typename set::orchestrator, clock_source, orchestrator_sink> view{&sink};
            for (std::uint64_t id = 0; id < cores * tasks_per_core; ++id) {
                auto submit = view.submitting((1ULL << 32) | id);
            }
        });
        std::vector<std::thread> schedulers;
        for (std::uint32_t t = 0; t < scheduler_threads; ++t)
            schedulers.emplace_back([&, t] {
                auto sink = channels.template sink<scheduler_sink>(t);
                dfx::scheduler_view<typename set::scheduler, clock_source, scheduler_sink> view{&sink};
                auto core_a = channels.template sink<aicore_sink>(t);
                auto core_b = channels.template sink<aicore_sink>(t + 2);
                dfx::aicore_view<typename set::aicore, clock_source, aicore_sink> worker_a{&core_a}, worker_b{&core_b};
                for (std::uint32_t i = 0; i < tasks_per_core; ++i) {
                    for (auto [core, worker] : {std::pair{t, &worker_a}, std::pair{t + 2, &worker_b}}) {
                        typename decltype(view)::stamp stamp;
                        {
                            auto phase = view.phase(dfx::sched_phase_kind::dispatch, i, {1, 0, 0});
                            stamp = view.dispatching();
                            phase.processed(1);
                            phase.pops(1, i % 3);
                        }
                        worker->received((std::uint64_t{core} << 32) | i, i + 1);
                        worker->started();
                        worker->ended();
                        view.finished(core, i + 1, stamp);
                    }
                }
            });
        orchestrator.join();
        for (auto& s : schedulers) s.join();
    }
    host.stop();
    result.report = host.report();
    result.capture = host.capture();
    const auto dir = std::filesystem::temp_directory_path() / ("dfx_swimlane_host_test_" + std::to_string(Level));
    std::filesystem::remove_all(dir);
    result.file = host.write(dir);
    result.from_capture = dfx::write_chip_swimlane_records(dir / "from_capture", result.capture);
    return result;
}

template <int Level>
void check_level() {
    CAPTURE(Level);
    const auto r = run<Level>();

    // Only the channels the level needs exist.
    const std::size_t expected_channels =
        cores + (Level >= 2 ? scheduler_threads : 0) + (Level >= 3 ? scheduler_threads : 0) + (Level >= 4 ? 1 : 0);
    CHECK(r.channels == expected_channels);
    for (const auto& c : r.report) {
        CAPTURE(c.name);
        CHECK(c.state == dfx::producer_state::exited);
        CHECK(c.dropped == 0);
        CHECK(c.balanced());
    }

    const auto& c = r.capture;
    for (std::uint32_t core = 0; core < cores; ++core) {
        CHECK(c.aicore[core].size() == tasks_per_core);
        CHECK(c.aicpu[core].size() == (Level >= 2 ? tasks_per_core : 0));
        // Production order within a core, and the join key present on both sides.
        for (std::uint32_t i = 0; i < c.aicore[core].size(); ++i) {
            CHECK(c.aicore[core][i].reg_task_id == i + 1);
            CHECK(c.aicore[core][i].end > c.aicore[core][i].start);
            CHECK(c.aicore[core][i].start > counter_base);
            if (Level >= 2) {
                CHECK(c.aicpu[core][i].reg_task_id == i + 1);
                CHECK(c.aicpu[core][i].core == core);
                CHECK(c.aicpu[core][i].dispatch < c.aicore[core][i].start);
                CHECK(c.aicpu[core][i].finish > c.aicore[core][i].end);
            }
        }
    }
    std::size_t phases = 0;
    for (const auto& pool : c.scheduler_phases) phases += pool.size();
    CHECK(phases == (Level >= 3 ? cores * tasks_per_core : 0));
    CHECK(c.scheduler_phases.size() == (Level >= 3 ? 4u : 0u));
    std::size_t submits = 0;
    for (const auto& lane : c.orchestrator_phases) submits += lane.size();
    CHECK(submits == (Level >= 4 ? cores * tasks_per_core : 0));

    // The host writes from its channels' bytes (scheduler threads' AICPU rows
    // regrouped by core as they are written); the result is byte for byte
    // what the capture, regrouped first, writes.
    REQUIRE(!r.file.empty());
    CHECK(read_file(r.file) == read_file(r.from_capture));

    // The file reads back with the level's keys and exact u64 values.
    simdjson::dom::parser parser;
    simdjson::dom::object doc = parser.load(r.file.string());
    std::vector<std::string_view> keys;
    for (auto field : doc) keys.push_back(field.key);
    std::vector<std::string_view> expected_keys = {"chip_swimlane_level", "metadata", "aicore_tasks", "aicpu_tasks"};
    if (Level >= 3) expected_keys.push_back("aicpu_scheduler_phases");
    if (Level >= 4) expected_keys.push_back("aicpu_orchestrator_phases");
    CHECK(keys == expected_keys);
    CHECK(std::int64_t(doc["chip_swimlane_level"]) == Level);
    simdjson::dom::array metadata_map;
    CHECK((doc["metadata"]["core_to_thread"].get(metadata_map) == simdjson::SUCCESS) == (Level >= 3));
    simdjson::dom::array first_row = doc["aicore_tasks"].at(0);
    CHECK(std::uint64_t(first_row.at(3)) == c.aicore[0][0].start);
    CHECK(doc["aicore_tasks"].get_array().size() == cores * tasks_per_core);
    CHECK(doc["aicpu_tasks"].get_array().size() == (Level >= 2 ? cores * tasks_per_core : 0u));
}

}  // namespace

TEST_CASE("level 1: AICore channels only, no AICPU rows") { check_level<1>(); }
TEST_CASE("level 2: + AICPU dispatch/finish, joined on (core, reg_task_id), no phases") { check_level<2>(); }
TEST_CASE("level 3: + scheduler phases and the core-to-thread map, no orchestrator phases") { check_level<3>(); }
TEST_CASE("level 4: + orchestrator phases") { check_level<4>(); }

TEST_CASE("sinks carry only what their guards stamp") {
    using off = dfx::collectors<dfx::swimlane_level<1>>;
    static_assert(std::is_empty_v<dfx::scheduler_sink<off::scheduler, dfx::block<>>>);
    static_assert(std::is_empty_v<dfx::orchestrator_sink<off::orchestrator, dfx::block<>>>);
    dfx::channel_registry channels;
    dfx::swimlane_host<> host(2, small_layout(), channels);
    CHECK(channels.count<dfx::aicpu_task_record>() == scheduler_threads);
    CHECK(channels.count<dfx::sched_phase_record>() == 0);
    CHECK_THROWS_WITH_AS(channels.get<dfx::sched_phase_record>(0),
                         "no scheduler phase channel 0 was created (is that collector on, at that level?)",
                         dfx::output_error);
    CHECK_THROWS_WITH_AS(dfx::swimlane_host<>(5, small_layout(), channels),
                         "chip swimlane: collection level in [1, 4] expected, got 5", dfx::output_error);
}
