#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "dfx/config/cli_flags.hpp"

namespace {

struct parsed {
    dfx::run_config cfg;
    std::vector<std::string> positionals;
};

// Parses the given flags (argv[0] added) with a positional catch-all, as a
// runtime's CLI with positional arguments would have.
parsed parse(std::initializer_list<const char*> args, const dfx::validation_options& options = {}) {
    CLI::App app{"test"};
    dfx::run_config_flags flags;
    dfx::add_run_config_flags(app, flags);
    parsed out;
    app.add_option("paths", out.positionals);
    std::vector<const char*> argv{"prog"};
    argv.insert(argv.end(), args);
    dfx::parse_with_run_config_flags(app, static_cast<int>(argv.size()), argv.data());
    out.cfg = dfx::validate(flags.to_input("/tmp/dfx_outputs"), options);
    return out;
}

std::string config_error_of(std::initializer_list<const char*> args) {
    try {
        (void)parse(args);
    } catch (const dfx::config_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("no flags: everything off") {
    CHECK(parse({}).cfg.collectors == dfx::collector_choice{});
}

TEST_CASE("--enable-chip-swimlane is bare level 4 and never takes a value") {
    const auto p = parse({"--enable-chip-swimlane", "tests/st/runtime/"});
    CHECK(p.cfg.collectors.swimlane_level == 4);
    CHECK(p.positionals == std::vector<std::string>{"tests/st/runtime/"});
}

TEST_CASE("--chip-swimlane-level N wins over the bare flag, including 0") {
    CHECK(parse({"--chip-swimlane-level", "2"}).cfg.collectors.swimlane_level == 2);
    CHECK(parse({"--enable-chip-swimlane", "--chip-swimlane-level", "1"}).cfg.collectors.swimlane_level == 1);
    CHECK(parse({"--enable-chip-swimlane", "--chip-swimlane-level=0"}).cfg.collectors.swimlane_level == 0);
    const std::string message = config_error_of({"--chip-swimlane-level", "5"});
    CHECK(message.find("collection level in [0, 4]") != std::string::npos);
    CHECK(config_error_of({"--chip-swimlane-level", "two"}) ==
          "enable_chip_swimlane: expected an integer, got 'two'");
}

TEST_CASE("--enable-l2-swimlane is deprecated: warns, maps to 4, conflicts with the new spelling") {
    std::vector<std::string> warnings;
    dfx::validation_options options;
    options.warn = [&](std::string_view w) { warnings.emplace_back(w); };
    CHECK(parse({"--enable-l2-swimlane"}, options).cfg.collectors.swimlane_level == 4);
    CHECK(warnings.size() == 1);
    CHECK_THROWS_AS(parse({"--enable-l2-swimlane", "--chip-swimlane-level", "2"}, options), dfx::config_error);
}

TEST_CASE("--dump-args [LEVEL]: bare is 1 and a following non-integer stays a positional") {
    CHECK(parse({"--dump-args"}).cfg.collectors.dump_level == 1);
    CHECK(parse({"--dump-args", "2"}).cfg.collectors.dump_level == 2);
    CHECK(parse({"--dump-args=2"}).cfg.collectors.dump_level == 2);
    const auto p = parse({"--dump-args", "out_dir"});
    CHECK(p.cfg.collectors.dump_level == 1);
    CHECK(p.positionals == std::vector<std::string>{"out_dir"});
    const auto q = parse({"--dump-args", "--enable-dep-gen"});
    CHECK(q.cfg.collectors.dump_level == 1);
    CHECK(q.cfg.collectors.dep_gen);
    CHECK(config_error_of({"--dump-args", "-1"}).rfind("enable_dump_args:", 0) == 0);
    CHECK(config_error_of({"--dump-args", "3"}).rfind("enable_dump_args:", 0) == 0);
}

TEST_CASE("--enable-pmu [EVENT]: bare is 2 (PIPE_UTILIZATION), unknown events refused") {
    CHECK(parse({"--enable-pmu"}).cfg.collectors.pmu_event == 2);
    CHECK(parse({"--enable-pmu", "4"}).cfg.collectors.pmu_event == 4);
    const auto p = parse({"--enable-pmu", "case_dir", "--enable-scope-stats"});
    CHECK(p.cfg.collectors.pmu_event == 2);
    CHECK(p.cfg.collectors.scope_stats);
    CHECK(p.positionals == std::vector<std::string>{"case_dir"});
    CHECK(config_error_of({"--enable-pmu", "3"}).rfind("enable_pmu:", 0) == 0);
    CHECK(config_error_of({"--enable-pmu=x"}) == "enable_pmu: expected an integer, got 'x'");
}

TEST_CASE("the two boolean collectors") {
    const auto cfg = parse({"--enable-dep-gen", "--enable-scope-stats"}).cfg;
    CHECK(cfg.collectors.dep_gen);
    CHECK(cfg.collectors.scope_stats);
    CHECK(cfg.keep_work_dir);
}

TEST_CASE("ring knobs take N or a,b,c,d") {
    const auto cfg = parse({"--ring-task-window", "128", "--ring-heap", "0,65536,0,0", "--ring-dep-pool=16"}).cfg;
    CHECK(*cfg.rings.task_window == dfx::ring_values{128, 128, 128, 128});
    CHECK(*cfg.rings.heap == dfx::ring_values{0, 65536, 0, 0});
    CHECK(*cfg.rings.dep_pool == dfx::ring_values{16, 16, 16, 16});
    CHECK(config_error_of({"--ring-heap", "1,2"}).find("exactly 4 entries") != std::string::npos);
    CHECK(config_error_of({"--ring-heap", "1,,2,3"}).rfind("ring_heap: expected N or four", 0) == 0);
    CHECK(config_error_of({"--ring-task-window", "12"}).rfind("ring_task_window:", 0) == 0);
}

TEST_CASE("--aicpu-thread-num") {
    CHECK(parse({"--aicpu-thread-num", "4"}).cfg.aicpu_thread_num == 4);
    CHECK(config_error_of({"--aicpu-thread-num", "1"}).rfind("aicpu_thread_num:", 0) == 0);
}

TEST_CASE("unknown flags are CLI11 parse errors") {
    CLI::App app{"strict"};
    dfx::run_config_flags flags;
    dfx::add_run_config_flags(app, flags);
    const char* argv[] = {"prog", "--enable-swimlane"};
    CHECK_THROWS_AS(dfx::parse_with_run_config_flags(app, 2, argv), CLI::ParseError);
}
