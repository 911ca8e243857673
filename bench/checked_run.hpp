// Benchmarks here check what they measured (records delivered, rows written,
// bytes in the file, kernel results) and count a failed check instead of
// aborting the run; the program then exits 1, so the bench_smoke tests catch
// a benchmark that stopped measuring what it claims.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>

namespace bench {

inline int failed_checks = 0;

// benchmark::Initialize must have run. Returns main's exit status.
inline int run_checked(const char* program) {
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    if (failed_checks == 0) return 0;
    std::fprintf(stderr, "%s: %d benchmark(s) failed their check\n", program, failed_checks);
    return 1;
}

}  // namespace bench
