// Converter throughput and peak memory: the real `dfx` binary on generated
// inputs of 10^4 .. 10^7 tasks (bench/synthetic_capture.hpp), one child
// process per iteration, timed from spawn to exit; peak RSS is the child's
// own (wait4's ru_maxrss), so the benchmark process's memory never counts.
//
//   BM_convert_swimlane/<tasks>        dfx swimlane records (deps.json beside it) -> merged trace
//   BM_convert_swimlane_to_null/<tasks>  the same with the trace written to /dev/null: the
//                                      converter's own speed, without the disk's write-back
//   BM_convert_swimlane_perfetto/<tasks> the same trace as Perfetto protobuf (--format perfetto), to a file
//   BM_convert_sched_overhead/<tasks>  dfx sched-overhead records (deps.json beside it)
//   BM_convert_deps_text/<tasks>       dfx deps deps.json -> text report
//   BM_convert_critical_path/<tasks>   dfx critical-path over the same capture -> the report (to /dev/null)
//   BM_convert_scope_stats/<tasks>     dfx scope-stats scope_stats.jsonl -> HTML report
//
// bytes_per_second is input bytes over wall time; counters: input_MB,
// output_MB (the file written, or the bytes counted), peak_rss_MB, cpu_s (the
// child's user + system seconds per run, the measure to compare on a
// machine that is not quiet). The reference Python tools' times for 10k / 50k / 200k tasks
// are in ../shared/spec/reference-performance.md; the same sizes run here so
// docs/benchmarks.md can put the two side by side.
//
//   build-bench/bench/convert_bench [--inputs=DIR] [--max_tasks=N] [--dfx=PATH] [--smoke] [benchmark flags]
//     --inputs     where generated inputs are cached (default: <build>/bench/inputs); a 10^7-task
//                  capture is 12 GB of records and 8 GB of deps.json
//     --max_tasks  largest size to run (default 10000000)
//     --dfx        the dfx binary to time (default: this build's); two runs with
//                  two binaries give a side-by-side comparison
//     --smoke      1000 tasks only, in a temporary directory (the bench_smoke test)
// The 10^7-task JSON swimlane trace (about 88 GB, more than the disk holds)
// goes through a pipe to this process, which counts its bytes (`-o -`; the
// reading takes CPU on the same cores: BM_convert_swimlane_to_null/10000000
// is the time without it); smaller traces, and every protobuf trace (about
// 1/7 of the JSON), go to a file that is removed after each iteration. A
// conversion that fails (one that runs out of memory included) fails the
// run, and its row says why.
#include <benchmark/benchmark.h>

#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "checked_run.hpp"
#include "synthetic_capture.hpp"

namespace {

namespace fs = std::filesystem;

std::string dfx_exe = DFX_EXE;
fs::path inputs_dir = DFX_BENCH_INPUTS;
std::uint64_t max_tasks = 10'000'000;
bool smoke = false;

struct child_run {
    int status = 0;
    double seconds = 0;
    double cpu_seconds = 0;  // the child's user + system time: steadier than wall time on a shared machine
    long peak_rss_kb = 0;
    std::uint64_t stdout_bytes = 0;  // with count_stdout: what it wrote to its stdout
};

// Runs argv with stdout and stderr to /dev/null and waits for it. fork, not
// posix_spawn: a vfork-style child reports the parent's peak RSS as its own
// (Linux folds the old address space's high-water mark into ru_maxrss at
// exec), while a forked child starts from the parent's current RSS, which
// the caller keeps small (malloc_trim after generating inputs) and reports.
// `count_stdout`: its stdout is a pipe instead, read here and counted as it
// comes (a trace too big to keep on the disk: the JSON of 10^7 tasks).
child_run run_child(const std::vector<std::string>& args, bool count_stdout = false) {
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    child_run r;
    int out[2] = {-1, -1};
    if (count_stdout && ::pipe(out) != 0) {
        r.status = -1;
        return r;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        const int null = open("/dev/null", O_WRONLY);
        dup2(count_stdout ? out[1] : null, 1);
        dup2(null, 2);
        if (count_stdout) {
            close(out[0]);
            close(out[1]);
        }
        execv(argv[0], argv.data());
        _exit(127);
    }
    if (count_stdout) {
        close(out[1]);  // the child's is the only write end left: EOF when it exits
        if (pid > 0) {
            std::vector<char> buf(std::size_t{1} << 20);
            for (;;) {
                const ssize_t n = read(out[0], buf.data(), buf.size());
                if (n > 0) r.stdout_bytes += static_cast<std::uint64_t>(n);
                else if (n == 0 || errno != EINTR) break;
            }
        }
        close(out[0]);
    }
    if (pid < 0) {
        r.status = -1;
        return r;
    }
    rusage usage{};
    wait4(pid, &r.status, 0, &usage);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.peak_rss_kb = usage.ru_maxrss;
    r.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                    static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    return r;
}

// This process's resident set now, in kB: the floor under a child's peak.
long own_rss_kb() {
    long pages = 0, resident = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

std::uint64_t size_of(const std::vector<fs::path>& files) {
    std::uint64_t n = 0;
    for (const auto& f : files) n += fs::file_size(f);
    return n;
}

// Generates into a temporary directory renamed into place, so an interrupted
// run never leaves a half-written input in the cache.
template <class Generate>
fs::path cached(const std::string& name, Generate&& generate) {
    const fs::path dir = inputs_dir / name;
    if (fs::exists(dir)) return dir;
    const fs::path tmp = inputs_dir / (name + ".partial");
    fs::remove_all(tmp);
    std::fprintf(stderr, "generating %s ...\n", dir.c_str());
    generate(tmp);
    malloc_trim(0);  // give the generator's memory back: children start from our RSS
    fs::rename(tmp, dir);
    return dir;
}

fs::path swimlane_capture(std::uint64_t tasks) {
    return cached("swimlane-v1-" + std::to_string(tasks),
                  [&](const fs::path& d) { bench_inputs::write_swimlane_capture(d, tasks); });
}

// dfx critical-path looks for a run directory holding the records, deps.json
// and a name map: the capture's two files linked into a directory of their
// own, with a name map of the generator's kernel ids (0-12). (Not beside
// the capture: the swimlane benchmarks must not find a name map there.) The
// directory is named after the capture it links, and its links are relative
// (../<capture>/<file>), so they follow the inputs directory wherever it is
// and a new capture version gets a directory of its own.
fs::path critical_path_capture(std::uint64_t tasks) {
    const fs::path capture = swimlane_capture(tasks);
    return cached("critical-path-of-" + capture.filename().string(), [&](const fs::path& d) {
        fs::create_directories(d);
        for (const char* f : {"chip_swimlane_records.json", "deps.json"})
            fs::create_symlink(fs::path("..") / capture.filename() / f, d / f);
        std::FILE* map = std::fopen((d / "name_map.json").c_str(), "w");
        if (map == nullptr) throw std::runtime_error("cannot write " + (d / "name_map.json").string());
        std::fputs("{\"callable_id_to_name\": {", map);
        for (int id = 0; id <= 12; ++id) std::fprintf(map, "%s\"%d\": \"kernel_%d\"", id ? ", " : "", id, id);
        std::fputs("}}\n", map);
        if (std::fclose(map) != 0) throw std::runtime_error("cannot write " + (d / "name_map.json").string());
    });
}

fs::path scope_stats_capture(std::uint64_t tasks) {
    return cached("scope-stats-v1-" + std::to_string(tasks),
                  [&](const fs::path& d) { bench_inputs::write_scope_stats(d / "scope_stats.jsonl", tasks); });
}

enum class tool { swimlane, swimlane_to_null, swimlane_perfetto, sched_overhead, deps_text, critical_path, scope_stats };

// A child's wait status in words, for a failed run's message.
std::string status_text(int status) {
    if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        return "killed by signal " + std::to_string(sig) + (sig == SIGKILL ? " (SIGKILL: out of memory?)" : "");
    }
    return "wait status " + std::to_string(status);
}

// Reads the files once, so the timed runs find them in the page cache.
// Without it the order of the runs decides: the 10^7-task inputs (20 GB)
// evict the small ones, and a small size run after them times the disk.
void warm_page_cache(const std::vector<fs::path>& files) {
    std::vector<char> buf(std::size_t{1} << 20);
    for (const auto& f : files) {
        std::FILE* in = std::fopen(f.c_str(), "rb");
        if (in == nullptr) continue;  // the conversion reports it
        while (std::fread(buf.data(), 1, buf.size(), in) == buf.size()) {
        }
        std::fclose(in);
    }
}

void BM_convert(benchmark::State& state, tool t, std::uint64_t tasks) {
    fs::path dir;
    std::vector<fs::path> inputs;
    std::vector<fs::path> read_too;  // files the conversion reads that input_MB leaves out
    std::vector<std::string> args;
    fs::path output;
    bool counted = false;  // the trace's bytes counted on their way through stdout
    switch (t) {
        case tool::swimlane:
        case tool::swimlane_to_null:
            dir = swimlane_capture(tasks);
            inputs = {dir / "chip_swimlane_records.json", dir / "deps.json"};
            // At 10^7 tasks the JSON trace (about 88 GB) does not fit the
            // disk: it goes through a pipe to this process, which counts it.
            counted = t == tool::swimlane && tasks >= 10'000'000;
            output = t == tool::swimlane_to_null ? fs::path("/dev/null") : counted ? fs::path("-") : dir / "merged_swimlane.json";
            args = {dfx_exe, "swimlane", inputs[0].string(), "-o", output.string()};
            state.SetLabel(output == "/dev/null" ? "trace to /dev/null"
                           : counted              ? "trace through a pipe, counted, not kept"
                                                  : "trace to a file");
            break;
        case tool::swimlane_perfetto:
            dir = swimlane_capture(tasks);
            inputs = {dir / "chip_swimlane_records.json", dir / "deps.json"};
            output = dir / "merged_swimlane.pftrace";
            args = {dfx_exe, "swimlane", inputs[0].string(), "--format", "perfetto", "-o", output.string()};
            state.SetLabel("protobuf trace to a file");
            break;
        case tool::sched_overhead:
            dir = swimlane_capture(tasks);
            inputs = {dir / "chip_swimlane_records.json", dir / "deps.json"};
            args = {dfx_exe, "sched-overhead", inputs[0].string()};
            break;
        case tool::deps_text:
            dir = swimlane_capture(tasks);
            inputs = {dir / "deps.json"};
            read_too = {dir / "chip_swimlane_records.json"};  // the perf sidecar beside it
            output = dir / "deps_viewer.txt";
            args = {dfx_exe, "deps", inputs[0].string(), "-o", output.string()};
            break;
        case tool::critical_path:
            dir = critical_path_capture(tasks);
            inputs = {dir / "chip_swimlane_records.json", dir / "deps.json"};
            // The report to stdout (the child's is /dev/null): no report
            // file is left in the cached directory.
            args = {dfx_exe, "critical-path", dir.string(), "-o", "-"};
            break;
        case tool::scope_stats:
            dir = scope_stats_capture(tasks);
            inputs = {dir / "scope_stats.jsonl"};
            output = dir / "scope_stats.html";
            args = {dfx_exe, "scope-stats", inputs[0].string()};
            break;
    }
    const std::uint64_t bytes = size_of(inputs);
    // The sizes timed three times are measured from the page cache; at 10^6
    // tasks and up (one run, gigabytes) reading the disk is part of the run.
    if (tasks < 1'000'000) {
        read_too.insert(read_too.end(), inputs.begin(), inputs.end());
        warm_page_cache(read_too);
    }
    const long spawner_kb = own_rss_kb();
    long peak_kb = 0;
    double cpu_seconds = 0;
    std::uint64_t output_bytes = 0;
    const bool output_file = !output.empty() && output != "/dev/null" && !counted;
    for (auto _ : state) {
        const child_run r = run_child(args, counted);
        std::error_code ignored;
        if (output_file && r.status == 0) output_bytes = fs::file_size(output);
        if (counted) output_bytes = r.stdout_bytes;
        if (output_file) fs::remove(output, ignored);
        if (r.status != 0) {
            ++bench::failed_checks;  // a failed conversion fails the run (and the smoke test)
            state.SkipWithError(("dfx " + args[1] + " failed on " + inputs[0].string() + ": " + status_text(r.status) +
                                 ", peak RSS " + std::to_string(r.peak_rss_kb / 1024) + " MB")
                                    .c_str());
            return;
        }
        state.SetIterationTime(r.seconds);
        peak_kb = std::max(peak_kb, r.peak_rss_kb);
        cpu_seconds += r.cpu_seconds;
    }
    // The smoke run checks the counting the 10^7-task trace relies on: the
    // same trace through the pipe must count the bytes of the file.
    if (smoke && t == tool::swimlane && !counted) {
        std::vector<std::string> piped = args;
        piped.back() = "-";
        const child_run r = run_child(piped, true);
        if (r.status != 0 || r.stdout_bytes != output_bytes) {
            ++bench::failed_checks;
            state.SkipWithError(("dfx swimlane -o -: " + std::to_string(r.stdout_bytes) + " bytes counted through the pipe, " +
                                 std::to_string(output_bytes) + " in the file (" + status_text(r.status) + ")")
                                    .c_str());
            return;
        }
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
    state.counters["input_MB"] = static_cast<double>(bytes) / 1e6;
    if (output_file || counted) state.counters["output_MB"] = static_cast<double>(output_bytes) / 1e6;
    state.counters["peak_rss_MB"] = static_cast<double>(peak_kb) / 1024.0;
    state.counters["cpu_s"] = benchmark::Counter(cpu_seconds, benchmark::Counter::kAvgIterations);
    state.counters["spawner_rss_MB"] = static_cast<double>(spawner_kb) / 1024.0;  // peak_rss_MB includes up to this
}

void register_all() {
    const std::vector<std::uint64_t> sizes =
        smoke ? std::vector<std::uint64_t>{1000}
              : std::vector<std::uint64_t>{10'000, 50'000, 100'000, 200'000, 1'000'000, 10'000'000};
    const std::pair<const char*, tool> tools[] = {{"BM_convert_swimlane", tool::swimlane},
                                                  {"BM_convert_swimlane_to_null", tool::swimlane_to_null},
                                                  {"BM_convert_swimlane_perfetto", tool::swimlane_perfetto},
                                                  {"BM_convert_sched_overhead", tool::sched_overhead},
                                                  {"BM_convert_deps_text", tool::deps_text},
                                                  {"BM_convert_critical_path", tool::critical_path},
                                                  {"BM_convert_scope_stats", tool::scope_stats}};
    for (const auto& [name, t] : tools)
        for (const std::uint64_t n : sizes) {
            if (n > max_tasks) continue;
            benchmark::RegisterBenchmark((std::string(name) + "/" + std::to_string(n)).c_str(), BM_convert, t, n)
                ->UseManualTime()
                ->Iterations(n >= 1'000'000 ? 1 : 3)
                ->Unit(benchmark::kMillisecond);
        }
}

bool flag(std::string_view arg, std::string_view name, std::string& value) {
    if (arg.substr(0, name.size()) != name) return false;
    value = std::string(arg.substr(name.size()));
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    std::string value;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--smoke") {
            smoke = true;
        } else if (flag(arg, "--inputs=", value)) {
            inputs_dir = value;
        } else if (flag(arg, "--dfx=", value)) {
            dfx_exe = value;
        } else if (flag(arg, "--max_tasks=", value)) {
            char* end = nullptr;
            max_tasks = std::strtoull(value.c_str(), &end, 10);
            if (value.empty() || *end != '\0') {
                std::fprintf(stderr, "convert_bench: --max_tasks: not a number: %s\n", value.c_str());
                return 2;
            }
        } else {
            std::fprintf(stderr, "convert_bench: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (!fs::exists(dfx_exe)) {
        std::fprintf(stderr, "convert_bench: %s not found (build the dfx tool)\n", dfx_exe.c_str());
        return 2;
    }
    fs::path scratch;
    if (smoke) {
        scratch = fs::temp_directory_path() / ("dfx_convert_bench_" + std::to_string(::getpid()));
        inputs_dir = scratch;
    }
    int rc = 0;
    try {
        fs::create_directories(inputs_dir);
        register_all();
        rc = bench::run_checked("convert_bench");
    } catch (const std::exception& e) {  // an input that cannot be generated
        std::fprintf(stderr, "convert_bench: %s\n", e.what());
        rc = 1;
    }
    if (!scratch.empty()) fs::remove_all(scratch);
    return rc;
}
