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
// The restart costs about 5 ms here (loading the program twice), so only
// the commands that build big tables take it: those that read the records
// file or deps.json. pmu, dump and scope-stats read small artefacts (a
// restarted scope-stats took 1.06-1.19x the time up to 10^5 tasks), and
// --help or --version should stay instant.
//
// DFX_HUGE_PAGES=0 in the environment turns it off (for example to compare,
// or under a debugger, where the restart is in the way); so does a
// GLIBC_TUNABLES that already says anything about glibc.malloc.hugetlb.
// A sanitizer build never restarts: ASan and TSan replace malloc with their
// own, which does not read the tunable, so a restart would only pay their
// start-up twice (0.12-0.17 s per dfx process under ASan+UBSan here).
#pragma once

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>

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

inline void use_huge_page_heap(int argc, char** argv) {
#if defined(__linux__) && defined(__GLIBC__) && !defined(DFX_CLI_MALLOC_REPLACED)
    if (argc < 2 || !builds_big_tables(argv[1])) return;
    if (const char* off = std::getenv("DFX_HUGE_PAGES"); off != nullptr && std::strcmp(off, "0") == 0) return;
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
