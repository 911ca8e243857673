// dep_gen end to end: submits captured through the orchestrator view, carried
// by the transport, replayed by dep_gen_host into deps.json.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "dep_gen_test_support.hpp"
#include "dfx/collect.hpp"
#include "dfx/output/dep_gen_host.hpp"

using namespace dg;

namespace {

using set = dfx::collectors<dfx::swimlane_level<0>, dfx::dump_level<0>, dfx::pmu_event<0>, dfx::dep_gen<true>>;
using sink_type = dfx::orchestrator_sink<set::orchestrator, dfx::block<>>;
using view_type = dfx::orchestrator_view<set::orchestrator, dfx::steady_clock_source, sink_type>;

std::filesystem::path fresh_dir(const char* name) {
    const auto dir = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(dir);
    return dir;
}

}  // namespace

TEST_CASE("the spec's example captured through the orchestrator view gives the spec's deps.json") {
    const auto a = view(0x10000, 64, dtype::float32, {16}, {1});
    const auto c = owned_by(view(0x30000, 64, dtype::float32, {16}, {1}), 0);
    const auto x = view(0x40000, 64, dtype::float32, {4, 4}, {4, 1});
    const auto x_top = view(0x40000, 64, dtype::float32, {2, 4}, {4, 1});

    dfx::channel_registry channels;
    dfx::dep_gen_host<> host(channels, {2, 2});  // the smallest buffers: two 4 KiB slots
    host.start();
    {
        auto sink = channels.sink<sink_type>(0);
        view_type view{&sink};
        const dfx::submit_arg t0[] = {{dfx::arg_type::input, &a}, {dfx::arg_type::output, nullptr}};
        const dfx::submit_arg t1[] = {{dfx::arg_type::input, &c}, {dfx::arg_type::inout, &x}};
        const dfx::submit_arg t2[] = {{dfx::arg_type::input, &x_top}};
        const std::uint64_t t2_deps[] = {0};
        view.capture_submit({.task_id = 0, .kernel_ids = {-1, 0, -1}, .args = t0});
        view.capture_submit({.task_id = 1, .kernel_ids = {-1, 1, -1}, .args = t1});
        view.capture_submit({.task_id = 2, .kernel_ids = {2, -1, -1}, .block_num = 4, .args = t2, .explicit_deps = t2_deps});
    }
    host.stop();
    CHECK(host.report().front().balanced());
    const auto dir = fresh_dir("dfx_dep_gen_capture_test");
    const auto written = host.write(dir);
    CHECK(written.refused.empty());
    REQUIRE(!written.path.empty());
    CHECK(read_text(written.path.string()) == golden("spec_example.json"));
}

TEST_CASE("more explicit deps than one record holds are all kept, in order") {
    std::vector<std::uint64_t> deps;  // 1,100: a submit record and two deps records
    for (std::uint64_t d = 0; d < 1100; ++d) deps.push_back(d % 70);
    dfx::channel_registry channels;
    dfx::dep_gen_host<> host(channels);
    host.start();
    {
        auto sink = channels.sink<sink_type>(0);
        view_type view{&sink};
        for (std::uint64_t d = 0; d < 70; ++d) view.capture_submit({.task_id = d});
        view.capture_submit({.task_id = 100, .explicit_deps = deps});
    }
    host.stop();
    const auto written = host.write(fresh_dir("dfx_dep_gen_many_test"));
    REQUIRE(!written.path.empty());
    const std::string text = read_text(written.path.string());
    std::size_t edges = 0;
    for (std::size_t at = text.find("\"succ\":\"100\""); at != std::string::npos; at = text.find("\"succ\":\"100\"", at + 1))
        ++edges;
    CHECK(edges == 70);  // duplicates once
    CHECK(host.report().front().collected == 70 + 3);
    CHECK(text.find("{\"pred\":\"69\",\"succ\":\"100\",\"arg\":-1,\"source\":\"explicit\"") != std::string::npos);
}

TEST_CASE("after any loss, no deps.json, and the reason says how many records were lost") {
    dfx::channel_registry channels;
    dfx::dep_gen_host<> host(channels, {1, 2});  // one buffer of 8 KiB: 128 records of 64 bytes
    // Not started: nobody drains, so a drop-policy producer loses records.
    using lossy_sink = dfx::producers<dfx::drop, dfx::dep_gen_record>;
    {
        auto sink = channels.sink<lossy_sink>(0);
        dfx::orchestrator_view<set::orchestrator, dfx::steady_clock_source, lossy_sink> view{&sink};
        for (std::uint64_t t = 0; t < 200; ++t) view.capture_submit({.task_id = t});
    }
    host.start();
    host.stop();
    const auto dir = fresh_dir("dfx_dep_gen_lossy_test");
    const auto written = host.write(dir);
    CHECK(written.path.empty());
    CHECK(written.refused == "deps.json not written: 72 of 200 dep_gen records were lost, and a graph with missing "
                             "tasks or edges would mislead");
    CHECK_FALSE(std::filesystem::exists(dir / "deps.json"));
}

TEST_CASE("a sink still alive when collection stops: counted as lost, shown, and no deps.json") {
    const auto a = view(0x10000, 64, dtype::float32, {16}, {1});
    dfx::channel_registry channels;
    dfx::transport_options quick;
    quick.stop_timeout = std::chrono::milliseconds{50};
    dfx::dep_gen_host<> host(channels, {4, 1024}, quick);
    host.start();
    auto sink = channels.sink<sink_type>(0);  // outlives stop(): the misuse
    view_type v{&sink};
    const dfx::submit_arg args[] = {{dfx::arg_type::input, &a}};
    v.capture_submit({.task_id = 0, .kernel_ids = {-1, 0, -1}, .args = args});
    v.capture_submit({.task_id = 1, .kernel_ids = {-1, 0, -1}, .args = args});
    host.stop();

    const auto r = host.report().front();
    CHECK(r.unfinished());
    CHECK(r.produced == 2);  // two submits, a record each, both in the sink's hands
    CHECK(r.lost() == 2);
    std::FILE* log = std::tmpfile();
    CHECK_FALSE(dfx::write_accounting(log, "dep_gen", host.report()));
    std::rewind(log);
    char text[512] = {};
    const std::size_t n = std::fread(text, 1, sizeof text - 1, log);
    std::fclose(log);
    CHECK(std::string(text, n).find("dep_gen: 2 records produced, 0 collected, 0 dropped, 2 lost") != std::string::npos);
    CHECK(std::string(text, n).find("LOST 2 records in dep_gen (producer 0): the producer never finished") != std::string::npos);

    const auto dir = fresh_dir("dfx_dep_gen_unfinished_test");
    const auto written = host.write(dir);
    CHECK(written.path.empty());
    CHECK(written.refused.find("never finished") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "deps.json"));
    sink.finish();
}

TEST_CASE("a sink alive at stop that pushed nothing still refuses deps.json: no graph is known to be whole") {
    dfx::channel_registry channels;
    dfx::transport_options quick;
    quick.stop_timeout = std::chrono::milliseconds{20};
    dfx::dep_gen_host<> host(channels, {4, 1024}, quick);
    host.start();
    auto sink = channels.sink<sink_type>(0);
    host.stop();
    CHECK(host.report().front().unfinished());
    const auto dir = fresh_dir("dfx_dep_gen_unfinished_empty_test");
    CHECK(host.write(dir).path.empty());
    CHECK_FALSE(std::filesystem::exists(dir / "deps.json"));
    sink.finish();
}
