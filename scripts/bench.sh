#!/usr/bin/env bash
# Set up, build in release mode and run every benchmark; JSON results and a
# description of the machine go to build-bench/results/. Then
#   python3 scripts/bench_report.py
# rewrites docs/benchmarks.md and its plots from them.
#
#   bash scripts/bench.sh [--benchmark_filter=REGEX ...]
#   DFX_BENCH_MAX_TASKS=N   largest converter input (default 10000000; the
#                           10^7-task inputs take 20 GB of disk, generated once)
#   DFX_BENCH_REPETITIONS=N repetitions of each micro-benchmark (default 5;
#                           the report shows the median)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

dfx_install_packages
build="$DFX_ROOT/build-bench"
dfx_configure "$build" -Dtests=disabled -Dexamples=disabled -Dtools=enabled -Dbuildtype=release -Dbenchmarks=enabled
echo "building $build (release) ..."
ninja -C "$build" >/dev/null
results="$build/results"
mkdir -p "$results"

{
  echo "date:      $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu:       $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) logical CPUs"
  echo "memory:    $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "kernel:    $(uname -sr)"
  echo "os:        $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "compiler:  $(c++ --version | head -n 1)"
  echo "build:     meson release (-O3), Google Benchmark $(dpkg-query -W -f='${Version}' libbenchmark-dev 2>/dev/null)"
  echo "load avg:  $(cut -d' ' -f1-3 /proc/loadavg) (at the start of the run)"
} > "$results/machine.txt"
cat "$results/machine.txt"

reps="${DFX_BENCH_REPETITIONS:-5}"
micro=(--benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true)
for bench in transport_bench swimlane_bench orchestrator_bench args_dump_bench pmu_bench sim_bench convert_bench; do
  echo "== $bench =="
  extra=("${micro[@]}")
  # Converter runs are single whole-process runs of seconds to minutes each.
  [ "$bench" = convert_bench ] && extra=(--max_tasks="${DFX_BENCH_MAX_TASKS:-10000000}")
  "$build/bench/$bench" --benchmark_out="$results/$bench.json" --benchmark_out_format=json "${extra[@]}" "$@"
done
echo "results: $results/"
echo "report:  python3 scripts/bench_report.py   (rewrites docs/benchmarks.md and docs/benchmarks/*.svg)"
