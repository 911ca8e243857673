#!/usr/bin/env bash
# Set up, build in release mode and run the benchmarks; JSON results go to
# build-bench/results/<name>.json.
#
#   bash scripts/bench.sh [--benchmark_filter=REGEX ...]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

dfx_install_packages
build="$DFX_ROOT/build-bench"
dfx_configure "$build" -Dtests=false -Dexamples=false -Dtools=true -Dbuildtype=release -Dbenchmarks=true
ninja -C "$build" >/dev/null
mkdir -p "$build/results"
for bench in transport_bench swimlane_bench orchestrator_bench args_dump_bench pmu_bench sim_bench convert_bench; do
  echo "== $bench =="
  "$build/bench/$bench" --benchmark_out="$build/results/$bench.json" --benchmark_out_format=json "$@"
done
echo "results: $build/results/"
