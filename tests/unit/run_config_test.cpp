#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "dfx/config/run_config.hpp"

namespace {

dfx::run_config_input with_prefix() {
    dfx::run_config_input in;
    in.output_prefix = "/tmp/work/dfx_outputs";
    return in;
}

// Runs validate and returns the config_error it raised ("" if none).
std::string error_of(const dfx::run_config_input& in, const dfx::validation_options& options = {}) {
    try {
        (void)dfx::validate(in, options);
    } catch (const dfx::config_error& e) {
        return e.what();
    }
    return "";
}

std::string field_of(const dfx::run_config_input& in) {
    try {
        (void)dfx::validate(in);
    } catch (const dfx::config_error& e) {
        return e.field();
    }
    return "";
}

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("defaults: everything off, no prefix needed") {
    const auto cfg = dfx::validate({});
    CHECK_FALSE(cfg.any_enabled());
    CHECK(cfg.collectors == dfx::collector_choice{});
    CHECK_FALSE(cfg.keep_work_dir);
    CHECK(cfg.aicpu_thread_num == 0);
    CHECK_FALSE(cfg.rings.task_window.has_value());
}

TEST_CASE("swimlane: true means level 4, false means off, ints are levels") {
    auto in = with_prefix();
    in.enable_chip_swimlane = true;
    CHECK(dfx::validate(in).collectors.swimlane_level == 4);
    in.enable_chip_swimlane = false;
    CHECK(dfx::validate(in).collectors.swimlane_level == 0);
    for (int level = 0; level <= 4; ++level) {
        in.enable_chip_swimlane = level;
        CHECK(dfx::validate(in).collectors.swimlane_level == level);
    }
}

TEST_CASE("swimlane: out-of-range levels are errors, never clamps") {
    auto in = with_prefix();
    for (int bad : {5, -1, 100}) {
        in.enable_chip_swimlane = bad;
        const std::string message = error_of(in);
        CHECK(contains(message, "enable_chip_swimlane"));
        CHECK(contains(message, "collection level in [0, 4]"));
        CHECK(contains(message, "1=AICore timing, 2=+dispatch/finish, 3=+sched phases, 4=+orch phases"));
        CHECK(contains(message, "got " + std::to_string(bad)));
    }
}

TEST_CASE("dump args: true means 1; 0..2 accepted; negatives and 3 rejected") {
    auto in = with_prefix();
    in.enable_dump_args = true;
    CHECK(dfx::validate(in).collectors.dump_level == 1);
    in.enable_dump_args = 2;
    CHECK(dfx::validate(in).collectors.dump_level == 2);
    for (int bad : {-1, 3}) {
        in.enable_dump_args = bad;
        const std::string message = error_of(in);
        CHECK(contains(message, "enable_dump_args"));
        CHECK(contains(message, "[0, 2]"));
        CHECK(contains(message, "got " + std::to_string(bad)));
    }
}

TEST_CASE("PMU: known events pass, negatives and unknown events are refused (no silent fallback to 2)") {
    auto in = with_prefix();
    for (int event : {0, 1, 2, 4, 5, 6, 7, 8}) {
        in.enable_pmu = event;
        CHECK(dfx::validate(in).collectors.pmu_event == event);
    }
    for (int bad : {-1, 3, 9, 1000}) {
        in.enable_pmu = bad;
        const std::string message = error_of(in);
        CHECK(contains(message, "enable_pmu"));
        CHECK(contains(message, "2 PIPE_UTILIZATION"));
        CHECK(contains(message, "got " + std::to_string(bad)));
    }
}

TEST_CASE("deprecated enable_l2_swimlane warns through the sink and maps to the level") {
    std::vector<std::string> warnings;
    dfx::validation_options options;
    options.warn = [&](std::string_view w) { warnings.emplace_back(w); };

    auto in = with_prefix();
    in.enable_l2_swimlane = true;
    CHECK(dfx::validate(in, options).collectors.swimlane_level == 4);
    REQUIRE(warnings.size() == 1);
    CHECK(contains(warnings[0], "enable_l2_swimlane is deprecated; use enable_chip_swimlane"));

    in.enable_l2_swimlane = 2;
    CHECK(dfx::validate(in, options).collectors.swimlane_level == 2);

    SUBCASE("its own range error names the alias") {
        in.enable_l2_swimlane = 7;
        const std::string message = error_of(in, options);
        CHECK(contains(message, "enable_l2_swimlane"));
        CHECK(contains(message, "collection level in [0, 4]"));
    }
    SUBCASE("both spellings at once is an error, after the warning") {
        warnings.clear();
        in.enable_chip_swimlane = 1;
        const std::string message = error_of(in, options);
        CHECK(contains(message, "received both enable_chip_swimlane and the deprecated enable_l2_swimlane"));
        CHECK(warnings.size() == 1);
    }
}

TEST_CASE("ring knobs: scalar broadcast, per-ring lists, 0 keeps a ring's default") {
    auto in = dfx::run_config_input{};
    in.ring_task_window = dfx::ring_knob::scalar(64);
    in.ring_heap = dfx::ring_knob::rings({0, 4096, 0, 2621440});  // heap need not be a power of 2
    in.ring_dep_pool = dfx::ring_knob::rings({4, 5, 0, 2147483647});
    const auto cfg = dfx::validate(in);
    CHECK(*cfg.rings.task_window == dfx::ring_values{64, 64, 64, 64});
    CHECK(*cfg.rings.heap == dfx::ring_values{0, 4096, 0, 2621440});
    CHECK(*cfg.rings.dep_pool == dfx::ring_values{4, 5, 0, 2147483647});
}

TEST_CASE("ring knobs: each rule names the field, the value and the range") {
    struct bad_case {
        dfx::ring_knob knob;
        int which;  // 0 task window, 1 heap, 2 dep pool
        const char* field;
        const char* expect;
    };
    const bad_case cases[] = {
        {dfx::ring_knob::scalar(48), 0, "ring_task_window", "power of 2 in [4, INT32_MAX], got 48"},
        {dfx::ring_knob::scalar(2), 0, "ring_task_window", "got 2"},
        {dfx::ring_knob::scalar(4294967296LL), 0, "ring_task_window", "got 4294967296"},
        {dfx::ring_knob::scalar(0), 0, "ring_task_window", "leave the knob unset"},
        {dfx::ring_knob::scalar(1023), 1, "ring_heap", ">= 1024 (bytes per ring), got 1023"},
        {dfx::ring_knob::scalar(3), 2, "ring_dep_pool", "in [4, INT32_MAX], got 3"},
        {dfx::ring_knob::scalar(2147483648LL), 2, "ring_dep_pool", "got 2147483648"},
        {dfx::ring_knob::rings({8, 8, 8}), 0, "ring_task_window", "exactly 4 entries (one per scope-depth ring), got 3"},
        {dfx::ring_knob::rings({8, 8, 8, 8, 8}), 1, "ring_heap", "exactly 4 entries"},
        {dfx::ring_knob::rings({8, 0, 12, 8}), 0, "ring_task_window", "(or 0 to keep default), got 12 for ring 2"},
        {dfx::ring_knob::rings({-4, 0, 0, 0}), 2, "ring_dep_pool", "got -4 for ring 0"},
    };
    for (const auto& c : cases) {
        dfx::run_config_input in;
        (c.which == 0 ? in.ring_task_window : c.which == 1 ? in.ring_heap : in.ring_dep_pool) = c.knob;
        const std::string message = error_of(in);
        CAPTURE(message);
        CHECK(message.rfind(std::string(c.field) + ": ", 0) == 0);
        CHECK(contains(message, c.expect));
    }
}

TEST_CASE("aicpu_thread_num: 0 is auto, else within the platform's range") {
    dfx::run_config_input in;
    in.aicpu_thread_num = 3;
    CHECK(dfx::validate(in).aicpu_thread_num == 3);
    in.aicpu_thread_num = 1;
    CHECK(contains(error_of(in), "aicpu_thread_num: must be 0 (auto) or in [2, 4], got 1"));
    in.aicpu_thread_num = 5;
    CHECK(contains(error_of(in), "got 5"));
    dfx::validation_options a5;
    a5.max_aicpu_threads = 5;
    CHECK(dfx::validate(in, a5).aicpu_thread_num == 5);
    in.aicpu_thread_num = -2;
    CHECK(field_of(in) == "aicpu_thread_num");
}

TEST_CASE("output prefix: required when any collector is on, checked at validation") {
    dfx::run_config_input in;
    in.enable_dep_gen = true;
    CHECK(field_of(in) == "output_prefix");
    CHECK(contains(error_of(in), "is required when any collector"));
    in.enable_dep_gen = false;
    in.enable_scope_stats = true;
    CHECK(field_of(in) == "output_prefix");
    in.output_prefix = "/w/dfx_outputs/";
    const auto cfg = dfx::validate(in);
    CHECK(cfg.output_prefix == "/w/dfx_outputs");  // no trailing slash, as the reference stores it
    in.output_prefix = std::string(1024, 'x');
    CHECK(contains(error_of(in), "at most 1023 bytes, got 1024"));
}

TEST_CASE("keep-work-dir is forced on by any collector, and any_enabled() agrees") {
    auto in = with_prefix();
    CHECK_FALSE(dfx::validate(in).keep_work_dir);
    in.keep_work_dir = true;
    CHECK(dfx::validate(in).keep_work_dir);
    in.keep_work_dir = false;

    auto check_forced = [&](auto set) {
        auto on = in;
        set(on);
        const auto cfg = dfx::validate(on);
        CHECK(cfg.any_enabled());
        CHECK(cfg.keep_work_dir);
    };
    check_forced([](auto& c) { c.enable_chip_swimlane = 1; });
    check_forced([](auto& c) { c.enable_dump_args = 1; });
    check_forced([](auto& c) { c.enable_pmu = 2; });
    check_forced([](auto& c) { c.enable_dep_gen = true; });
    check_forced([](auto& c) { c.enable_scope_stats = true; });
}

TEST_CASE("validation order follows the reference: swimlane before rings before threads before prefix") {
    dfx::run_config_input in;
    in.enable_chip_swimlane = 9;
    in.ring_heap = dfx::ring_knob::scalar(1);
    in.aicpu_thread_num = 1;
    CHECK(field_of(in) == "enable_chip_swimlane");
    in.enable_chip_swimlane = 1;
    CHECK(field_of(in) == "ring_heap");
    in.ring_heap.reset();
    CHECK(field_of(in) == "aicpu_thread_num");
    in.aicpu_thread_num = 0;
    CHECK(field_of(in) == "output_prefix");
}
