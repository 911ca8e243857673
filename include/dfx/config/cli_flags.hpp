// The run config's command-line surface, with the reference flag spellings
// (../shared/spec/run-config.md §9), parsed with CLI11:
//
//   --enable-chip-swimlane          level 4 (takes no value)
//   --chip-swimlane-level N         explicit level 0..4 (wins over the bare flag)
//   --enable-l2-swimlane            deprecated spelling of --enable-chip-swimlane
//   --dump-args [LEVEL]             bare = 1
//   --enable-pmu [EVENT]            bare = 2 (PIPE_UTILIZATION)
//   --enable-dep-gen  --enable-scope-stats
//   --ring-task-window / --ring-heap / --ring-dep-pool   N or a,b,c,d
//   --aicpu-thread-num N
//
// The two optional-valued flags only take the next token when it is an
// integer, so `--dump-args out_dir` means level 1 followed by `out_dir`
// (the reference's argparse would fail on it).
//
//   CLI::App app{"my runtime"};
//   dfx::run_config_flags flags;
//   dfx::add_run_config_flags(app, flags);
//   auto args = dfx::expand_optional_values(argc, argv);
//   app.parse(...);                       // see parse_with_run_config_flags
//   dfx::run_config cfg = dfx::validate(flags.to_input(prefix));
#pragma once

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "dfx/config/run_config.hpp"

namespace dfx {

struct run_config_flags {
    bool enable_chip_swimlane = false;
    std::optional<std::string> chip_swimlane_level;
    bool enable_l2_swimlane = false;
    std::optional<std::string> dump_args;
    std::optional<std::string> enable_pmu;
    bool enable_dep_gen = false;
    bool enable_scope_stats = false;
    std::optional<std::string> ring_task_window;
    std::optional<std::string> ring_heap;
    std::optional<std::string> ring_dep_pool;
    std::optional<std::string> aicpu_thread_num;

    // Throws config_error naming the field when a value is not an integer.
    run_config_input to_input(std::string output_prefix = {}) const;
};

namespace detail {

inline std::optional<long long> parse_integer(std::string_view text) {
    long long v = 0;
    const char* first = text.data();
    const char* last = first + text.size();
    if (first != last && *first == '+') ++first;
    auto [end, ec] = std::from_chars(first, last, v);
    if (first == last || ec != std::errc{} || end != last) return std::nullopt;
    return v;
}

inline long long integer_flag(const std::string& text, const char* field) {
    if (auto v = parse_integer(text)) return *v;
    throw config_error(field, "expected an integer, got '" + text + "'");
}

inline ring_knob ring_flag(const std::string& text, const char* field) {
    if (text.find(',') == std::string::npos) return ring_knob::scalar(integer_flag(text, field));
    std::vector<long long> values;
    std::size_t begin = 0;
    for (;;) {
        const std::size_t comma = text.find(',', begin);
        const std::string item = text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
        if (auto v = parse_integer(item))
            values.push_back(*v);
        else
            throw config_error(field, "expected N or four comma-separated integers a,b,c,d, got '" + text + "'");
        if (comma == std::string::npos) break;
        begin = comma + 1;
    }
    return ring_knob::rings(std::move(values));
}

}  // namespace detail

inline run_config_input run_config_flags::to_input(std::string output_prefix) const {
    run_config_input in;
    if (chip_swimlane_level)
        in.enable_chip_swimlane = level_arg{detail::integer_flag(*chip_swimlane_level, "enable_chip_swimlane")};
    else if (enable_chip_swimlane)
        in.enable_chip_swimlane = level_arg{true};
    if (enable_l2_swimlane) in.enable_l2_swimlane = level_arg{true};
    if (dump_args) in.enable_dump_args = level_arg{detail::integer_flag(*dump_args, "enable_dump_args")};
    if (enable_pmu) in.enable_pmu = detail::integer_flag(*enable_pmu, "enable_pmu");
    in.enable_dep_gen = enable_dep_gen;
    in.enable_scope_stats = enable_scope_stats;
    if (ring_task_window) in.ring_task_window = detail::ring_flag(*ring_task_window, "ring_task_window");
    if (ring_heap) in.ring_heap = detail::ring_flag(*ring_heap, "ring_heap");
    if (ring_dep_pool) in.ring_dep_pool = detail::ring_flag(*ring_dep_pool, "ring_dep_pool");
    if (aicpu_thread_num) in.aicpu_thread_num = detail::integer_flag(*aicpu_thread_num, "aicpu_thread_num");
    in.output_prefix = std::move(output_prefix);
    return in;
}

inline void add_run_config_flags(CLI::App& app, run_config_flags& flags) {
    const char* group = "Runtime DFX collectors";
    app.add_flag("--enable-chip-swimlane", flags.enable_chip_swimlane,
                 "Chip swimlane at full level (4); use --chip-swimlane-level for 1..3")
        ->disable_flag_override()  // "--enable-chip-swimlane=5" is an error, not level 4
        ->group(group);
    app.add_option("--chip-swimlane-level", flags.chip_swimlane_level,
                   "Swimlane collection level: 0=off, 1=AICore timing, 2=+dispatch/finish, "
                   "3=+sched phases, 4=+orch phases")
        ->type_name("LEVEL")
        ->group(group);
    app.add_flag("--enable-l2-swimlane", flags.enable_l2_swimlane,
                 "Deprecated spelling of --enable-chip-swimlane")
        ->disable_flag_override()
        ->group(group);
    app.add_option("--dump-args", flags.dump_args,
                   "Args dump: 1 = marked arguments only (the bare flag), 2 = every argument")
        ->type_name("[LEVEL]")
        ->group(group);
    app.add_option("--enable-pmu", flags.enable_pmu,
                   "PMU event type: 1 ARITHMETIC_UTILIZATION, 2 PIPE_UTILIZATION (the bare flag), "
                   "4 MEMORY, 5 MEMORY_L0, 6 RESOURCE_CONFLICT, 7 MEMORY_UB, 8 L2_CACHE")
        ->type_name("[EVENT]")
        ->group(group);
    app.add_flag("--enable-dep-gen", flags.enable_dep_gen, "Capture the task dependency graph (deps.json)")
        ->disable_flag_override()
        ->group(group);
    app.add_flag("--enable-scope-stats", flags.enable_scope_stats,
                 "Record ring fill per scope (scope_stats/scope_stats.jsonl)")
        ->disable_flag_override()
        ->group(group);
    app.add_option("--ring-task-window", flags.ring_task_window,
                   "Task window per ring: N or a,b,c,d (power of 2 in [4, INT32_MAX]; 0 keeps a ring's default)")
        ->type_name("N|a,b,c,d")
        ->group(group);
    app.add_option("--ring-heap", flags.ring_heap, "Heap bytes per ring: N or a,b,c,d (>= 1024; 0 keeps default)")
        ->type_name("N|a,b,c,d")
        ->group(group);
    app.add_option("--ring-dep-pool", flags.ring_dep_pool,
                   "Dep pool per ring: N or a,b,c,d (in [4, INT32_MAX]; 0 keeps default)")
        ->type_name("N|a,b,c,d")
        ->group(group);
    app.add_option("--aicpu-thread-num", flags.aicpu_thread_num, "AICPU scheduler threads: 0 = auto")
        ->type_name("N")
        ->group(group);
}

// Rewrites the bare optional-valued flags into explicit `--flag=value` form:
// the next token is taken as the value only when it is an integer.
inline std::vector<std::string> expand_optional_values(int argc, const char* const* argv) {
    static constexpr std::pair<std::string_view, std::string_view> bare_values[] = {
        {"--dump-args", "1"},
        {"--enable-pmu", "2"},
    };
    // Flags that take no value: "--enable-chip-swimlane=5" would otherwise
    // pass as "on" (level 4), whatever the number said.
    static constexpr std::string_view no_value[] = {"--enable-chip-swimlane", "--enable-l2-swimlane",
                                                    "--enable-dep-gen", "--enable-scope-stats"};
    std::vector<std::string> out;
    for (int i = 0; i < argc; ++i) {
        const std::string_view arg = argv[i];
        for (const std::string_view flag : no_value)
            if (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag && arg[flag.size()] == '=')
                throw CLI::ArgumentMismatch(std::string(flag) + ": takes no value (got '" +
                                            std::string(arg.substr(flag.size() + 1)) + "')" +
                                            (flag == "--enable-chip-swimlane" ? "; for a level use --chip-swimlane-level N" : ""));
        bool expanded = false;
        for (const auto& [flag, bare] : bare_values) {
            if (arg != flag) continue;
            const bool next_is_value = i + 1 < argc && detail::parse_integer(argv[i + 1]).has_value();
            out.push_back(std::string(flag) + "=" + (next_is_value ? std::string(argv[++i]) : std::string(bare)));
            expanded = true;
        }
        if (!expanded) out.emplace_back(arg);
    }
    return out;
}

// Parses argv (argv[0] included) into `app`, expanding the bare optional
// values first. CLI11 errors propagate as CLI::ParseError, as from app.parse
// (a value given to a flag that takes none is one too).
inline void parse_with_run_config_flags(CLI::App& app, int argc, const char* const* argv) {
    const std::vector<std::string> args = expand_optional_values(argc, argv);
    std::vector<const char*> pointers;
    pointers.reserve(args.size());
    for (const auto& a : args) pointers.push_back(a.c_str());
    app.parse(static_cast<int>(pointers.size()), pointers.data());
}

}  // namespace dfx
