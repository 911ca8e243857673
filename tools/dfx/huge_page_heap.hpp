// huge_page_heap: run dfx with glibc's heap on transparent huge pages, so a
// converter's big tables fault in 2 MiB at a time instead of 4 KiB.
//
//   int main(int argc, char** argv) {
//       dfx::cli::use_huge_page_heap(argc, argv);   // first: it may restart the process
//       ...
//
// Why: a converter builds tables of hundreds of MB (the records, the trace's
// slices), and every fresh 4 KiB page costs a page fault (~2.5 us here, with
// the zeroing and the memory cgroup's charge). `dfx swimlane --format
// perfetto` at 10^5 tasks took 80,000 minor faults, 15 % of its samples in
// perf; with the heap on huge pages 10,000-12,000, and from 10^4 to 2x10^5
// tasks 0.60-0.72x the wall time (the JSON trace 0.71-0.74x), for 1.02-1.10x
// the peak RSS from 5x10^4 tasks on (docs/converters.md).
//
// How: glibc (2.35 and later) reads the tunable glibc.malloc.hugetlb=1 once,
// at start-up, from GLIBC_TUNABLES: then malloc asks for huge pages
// (madvise MADV_HUGEPAGE) on its mappings and aligns its heap's growth. A
// program cannot set it for itself after start-up, so dfx adds it to the
// environment and executes itself again, once (the restarted process finds
// it set). Nothing changes where it cannot apply: an older glibc ignores the
// tunable, a kernel with transparent huge pages `never` refuses the advice,
// and a failed exec leaves this process running as it was.
//
// When: the restart costs about 5 ms here (loading the program twice), and
// the 2 MiB granules cost a few MB of peak memory whatever the input's size
// (+3 MB for `dfx swimlane` and +5 MB for `dfx deps` at 10^4 tasks, 28 MB
// of input, where the faults it saves are worth tens of ms). So only the
// commands that build big tables take it (those that read the records file
// or deps.json: pmu, dump and scope-stats read small artefacts, and --help or
// --version should stay instant), and only when the paths on their command
// line (files, and the files under directories, outputs left out) add up to
// at least `huge_page_input_bytes`.
//
// DFX_HUGE_PAGES=0 in the environment turns it off (for example to compare,
// or under a debugger, where the restart is in the way), DFX_HUGE_PAGES=1
// turns it on whatever the input's size; a GLIBC_TUNABLES that already says
// anything about glibc.malloc.hugetlb is left as it is.
// Nor does dfx under valgrind (see under_valgrind).
// A sanitizer build never restarts: ASan and TSan replace malloc with their
// own, which does not read the tunable, so a restart would only pay their
// start-up twice (0.12-0.17 s per dfx process under ASan+UBSan here).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <system_error>

#if defined(__linux__) && defined(__GLIBC__)
#include <unistd.h>
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DFX_CLI_MALLOC_REPLACED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define DFX_CLI_MALLOC_REPLACED 1
#endif
#endif

namespace dfx::cli {

inline bool builds_big_tables(const char* command) {
    for (const char* big : {"swimlane", "sched-overhead", "deps", "critical-path", "all", "report", "compare"})
        if (std::strcmp(command, big) == 0) return true;
    return false;
}

// Inputs below this take the heap as it is (see "When" above): 10^4 tasks are
// 28 MB of records and deps.json, 5x10^4 tasks 141 MB.
inline constexpr std::uintmax_t huge_page_input_bytes = std::uintmax_t{64} << 20;

// The bytes of the regular files named on the command line, or under the
// directories named there (three levels down at most: a dfx_outputs tree),
// counted up to `enough`. The value of an output option is not an input.
// Nothing is opened: a FIFO or a device is not a regular file, and a path
// that cannot be read counts 0 (the command itself reports it).
inline std::uintmax_t command_line_input_bytes(int argc, char** argv, std::uintmax_t enough) {
    namespace fs = std::filesystem;
    std::uintmax_t total = 0;
    auto add = [&](const fs::path& p) {
        std::error_code ec;
        const std::uintmax_t size = fs::file_size(p, ec);
        if (!ec) total += size;
    };
    for (int i = 2; i < argc && total < enough; ++i) {
        const char* arg = argv[i];
        bool output = false;
        for (const char* o : {"-o", "--output", "--report", "--stats-output", "--out-dir"}) output = output || std::strcmp(arg, o) == 0;
        if (output) {
            ++i;
            continue;
        }
        std::error_code ec;
        const fs::file_status st = fs::status(arg, ec);
        if (ec) continue;
        if (fs::is_regular_file(st)) add(arg);
        if (!fs::is_directory(st)) continue;
        fs::recursive_directory_iterator it(arg, fs::directory_options::skip_permission_denied, ec), end;
        for (; !ec && it != end && total < enough; it.increment(ec)) {
            if (it.depth() >= 3) it.disable_recursion_pending();
            std::error_code entry_ec;  // a dangling symlink is skipped, not the end of the walk
            if (it->is_regular_file(entry_ec)) add(it->path());
        }
    }
    return total;
}

// Under valgrind (its preload libraries in LD_PRELOAD) /proc/self/exe is
// valgrind's tool, not dfx: executing it again fails ("You cannot run ...
// directly"), and whoever runs dfx under valgrind wants this process.
inline bool under_valgrind() {
    const char* preload = std::getenv("LD_PRELOAD");
    return preload != nullptr && std::strstr(preload, "vgpreload") != nullptr;
}

inline void use_huge_page_heap(int argc, char** argv) {
#if defined(__linux__) && defined(__GLIBC__) && !defined(DFX_CLI_MALLOC_REPLACED)
    if (argc < 2 || !builds_big_tables(argv[1]) || under_valgrind()) return;
    const char* forced = std::getenv("DFX_HUGE_PAGES");
    if (forced != nullptr && std::strcmp(forced, "0") == 0) return;
    const bool always = forced != nullptr && std::strcmp(forced, "1") == 0;
    if (!always && command_line_input_bytes(argc, argv, huge_page_input_bytes) < huge_page_input_bytes) return;
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.hugetlb") != nullptr) return;
    std::string value = "glibc.malloc.hugetlb=1";
    if (tunables != nullptr && *tunables != '\0') value = std::string(tunables) + ":" + value;
    if (::setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
    ::execv("/proc/self/exe", argv);
    // Not restarted (no /proc, say): go on as we are. The variable stays set,
    // so a dfx this one starts does not try again.
#else
    (void)argc;
    (void)argv;
#endif
}

}  // namespace dfx::cli
