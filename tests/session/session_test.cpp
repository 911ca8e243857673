// dfx::session, used as a runtime author would: a layout, lanes per thread,
// finish(); then what finish() promises when a lane outlives it.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "dfx/session.hpp"

namespace {

std::filesystem::path fresh_dir(const char* name) {
    const auto dir = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(dir);
    return dir;
}

std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// What a session wrote to its log.
struct captured_log {
    std::FILE* file = std::tmpfile();
    ~captured_log() { std::fclose(file); }
    std::string text() const {
        std::fflush(file);
        std::rewind(file);
        std::string out;
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, file)) > 0;) out.append(buf, n);
        return out;
    }
};

using level4_deps_scopes = dfx::collectors<dfx::scope_stats<true>, dfx::dep_gen<true>, dfx::swimlane_level<4>>;
using deps_only = dfx::collectors<dfx::dep_gen<true>>;

const dfx::tensor_view buffer{.addr = 0x1000, .size = 64, .ndims = 1, .shape = {16}, .strides = {1}};

}  // namespace

TEST_CASE("a runtime's whole glue: layout, lanes, finish; every artefact written and the counts add up") {
    const auto dir = fresh_dir("dfx_session_happy");
    captured_log log;
    dfx::session<level4_deps_scopes, dfx::steady_clock_source> s{
        {.cores = {dfx::core_type::aic, dfx::core_type::aiv}, .scheduler_threads = 1},
        {.prefix = dir, .case_name = "tiny", .log = log.file}};
    s.name_kernel(0, "gemm");
    s.name_kernel(1, "relu");
    constexpr int tasks = 6;
    constexpr std::uint64_t first_id = 100;  // ids that are not the loop index: the token must carry them
    std::vector<dfx::task_token> tokens(tasks);

    std::thread orchestrator([&] {
        auto lane = s.orchestrator();
        const dfx::submit_arg args[] = {{dfx::arg_type::inout, &buffer}};
        for (std::uint64_t t = 0; t < tasks; ++t) {
            auto submit = lane.submitting(first_id + t);
            tokens[t] = lane.capture_submit(
                {.task_id = first_id + t, .kernel_ids = {t % 2 == 0 ? 0 : -1, t % 2 == 1 ? 1 : -1, -1}, .args = args});
        }
    });
    orchestrator.join();
    std::vector<std::thread> workers;
    for (std::uint32_t core = 0; core < 2; ++core)
        workers.emplace_back([&, core] {
            auto lane = s.worker(core);
            for (std::uint32_t t = core; t < tasks; t += 2) {
                lane.received(tokens[t], t + 1);
                lane.started();
                lane.ended();
            }
        });
    for (auto& w : workers) w.join();
    {
        auto lane = s.scheduler(0);
        for (std::uint32_t t = 0; t < tasks; ++t) {
            auto stamp = lane.dispatching();
            lane.finished(t % 2, t + 1, stamp);
        }
    }

    const dfx::session_summary summary = s.finish();
    CHECK(summary.complete());
    REQUIRE(summary.collectors.size() == 3);
    const auto* swimlane = summary.find("chip swimlane");
    REQUIRE(swimlane);
    CHECK(swimlane->counts.collected == swimlane->counts.produced);
    CHECK(swimlane->counts.produced == tasks /*aicore*/ + tasks /*aicpu*/ + tasks /*orch phases*/);
    REQUIRE(swimlane->files.size() == 1);
    CHECK(swimlane->files[0] == dir / "chip_swimlane_records.json");
    const std::string records = read_text(swimlane->files[0]);
    CHECK(records.find("\"chip_swimlane_level\": 4") != std::string::npos);
    // The worker rows carry the submitted ids through the tokens: [core, token, reg, ...].
    for (std::uint64_t t = 0; t < tasks; ++t)
        CHECK(records.find("[" + std::to_string(t % 2) + ", " + std::to_string(first_id + t) + ", " + std::to_string(t + 1) + ",") !=
              std::string::npos);
    // One dispatcher: one phase array, not the a2a3 platform's four.
    CHECK(records.find("\"aicpu_scheduler_phases\": [\n    []\n  ]") != std::string::npos);
    const auto* deps = summary.find("dep_gen");
    REQUIRE(deps);
    REQUIRE(deps->files.size() == 1);
    CHECK(read_text(deps->files[0]).find("\"edges\"") != std::string::npos);
    CHECK(summary.find("scope stats"));
    CHECK(summary.name_map == dir / "name_map_tiny.json");
    CHECK(read_text(summary.name_map).find("\"gemm\"") != std::string::npos);
    CHECK(log.text().find("dep_gen: 6 records produced, 6 collected, 0 dropped\n") != std::string::npos);  // one per submit
}

TEST_CASE("a lane still attached at finish is named while the session waits, its records are lost, its artefact absent") {
    const auto dir = fresh_dir("dfx_session_unfinished");
    captured_log log;
    dfx::session<deps_only, dfx::steady_clock_source> s{
        {.cores = {}, .scheduler_threads = 1},
        {.prefix = dir, .stop_timeout = std::chrono::milliseconds{300}, .name_waiting_after = std::chrono::milliseconds{20},
         .log = log.file}};
    auto lane = s.orchestrator();  // kept alive past finish(): the misuse
    const dfx::submit_arg args[] = {{dfx::arg_type::input, &buffer}};
    lane.capture_submit({.task_id = 0, .kernel_ids = {-1, 0, -1}, .args = args});

    const auto started = std::chrono::steady_clock::now();
    const dfx::session_summary summary = s.finish();
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds{5});  // the timeout, not forever
    CHECK_FALSE(summary.complete());
    const auto* deps = summary.find("dep_gen");
    REQUIRE(deps);
    CHECK(deps->counts.unfinished_channels == 1);
    CHECK(deps->counts.lost == 1);  // the submit's one record, still in the lane's buffer
    CHECK(deps->files.empty());
    CHECK(deps->not_written.find("never finished") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "deps.json"));
    const std::string text = log.text();
    CHECK(text.find("dfx session: waiting for dep_gen: the lane of dep_gen 0 is still attached") != std::string::npos);
    CHECK(text.find("LOST 1 records in dep_gen (producer 0)") != std::string::npos);
    CHECK(text.find("dep_gen: not written: 1 lane(s) never finished") != std::string::npos);
    lane.finish();
}

TEST_CASE("a lane that finishes while the session waits is collected whole") {
    const auto dir = fresh_dir("dfx_session_late");
    captured_log log;
    dfx::session<deps_only, dfx::steady_clock_source> s{
        {.scheduler_threads = 1}, {.prefix = dir, .name_waiting_after = std::chrono::milliseconds{10}, .log = log.file}};
    std::thread late([&] {
        auto lane = s.orchestrator();
        const dfx::submit_arg args[] = {{dfx::arg_type::output, nullptr}};
        lane.capture_submit({.task_id = 0, .kernel_ids = {-1, 0, -1}, .args = args});
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
    });
    std::this_thread::sleep_for(std::chrono::milliseconds{20});  // the lane exists before finish()
    const dfx::session_summary summary = s.finish();
    late.join();
    CHECK(summary.complete());
    CHECK(std::filesystem::exists(dir / "deps.json"));
    CHECK(log.text().find("waiting for dep_gen") != std::string::npos);
}

TEST_CASE("an index outside the layout is an error naming the role; nothing is created for collectors that are off") {
    const auto dir = fresh_dir("dfx_session_bad_index");
    dfx::session<deps_only, dfx::steady_clock_source> s{{.scheduler_threads = 2}, {.prefix = dir, .log = nullptr}};
    CHECK_THROWS_WITH_AS(s.orchestrator(1), "dfx session: orchestrator(1): the layout has 1", dfx::output_error);
    CHECK_THROWS_WITH_AS(s.scheduler(2), "dfx session: scheduler(2): the layout has 2", dfx::output_error);
    { [[maybe_unused]] auto lane = s.scheduler(1); }  // dep_gen only: the scheduler's lane holds no channel
    CHECK(s.finish().complete());

    const auto off_dir = fresh_dir("dfx_session_all_off");
    dfx::session<dfx::all_off, dfx::steady_clock_source> off{{.cores = {dfx::core_type::aiv}}, {.prefix = off_dir}};
    { auto lane = off.worker(0); lane.received(1, 1); lane.started(); lane.ended(); }
    CHECK(off.finish().collectors.empty());
    CHECK_FALSE(std::filesystem::exists(off_dir));
}

namespace {
// Threads of this process, from /proc/self/task (one directory per thread).
std::size_t thread_count() {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++n;
    return n;
}
// Whether the count becomes `n` within 2 s: a joined thread can still be
// listed for a moment after pthread_join returns.
bool thread_count_becomes(std::size_t n) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{2};
    while (thread_count() != n) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds{1});
    }
    return true;
}
// The count once threads joined earlier have left the list (the same for 20 ms).
std::size_t settled_thread_count() {
    std::size_t last = thread_count();
    for (int same = 0, rounds = 0; same < 4 && rounds < 400; ++rounds) {
        std::this_thread::sleep_for(std::chrono::milliseconds{5});
        const std::size_t now = thread_count();
        same = now == last ? same + 1 : 0;
        last = now;
    }
    return last;
}
}  // namespace

TEST_CASE("a session drains all of its collectors with one thread, or one each when asked; none is left after finish") {
    if (!std::filesystem::exists("/proc/self/task")) {
        MESSAGE("no /proc/self/task: threads not counted");
        return;
    }
    // A thread started and joined first, so that whatever a first thread
    // brings (ThreadSanitizer's background thread) is there before counting.
    std::thread([] {}).join();
    for (const bool one_drain_thread : {true, false}) {
        CAPTURE(one_drain_thread);
        const auto dir = fresh_dir("dfx_session_one_drain");
        const std::size_t before = settled_thread_count();
        {
            dfx::session<level4_deps_scopes, dfx::steady_clock_source> s{
                {.cores = {dfx::core_type::aic, dfx::core_type::aiv}, .scheduler_threads = 1},
                {.prefix = dir, .log = nullptr, .one_drain_thread = one_drain_thread}};
            CHECK(thread_count() == before + (one_drain_thread ? 1 : 3));  // three collectors
            {
                auto lane = s.worker(0);
                lane.received(1, 1);
                lane.started();
                lane.ended();
            }
            CHECK(s.finish().complete());
            CHECK(thread_count_becomes(before));
        }
        CHECK(thread_count_becomes(before));
    }
}
