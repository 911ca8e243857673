#!/usr/bin/env bash
# The main job: set up, build, run the simulated chip (dfx-sim) with every
# collector on, convert what it wrote with `dfx all`, and say where it is.
#
#   bash scripts/demo.sh [extra dfx-sim flags, e.g. --workload spmd --chips 2]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

dfx_install_packages
build="$DFX_ROOT/build-demo"
# -O2: g++ 12 at -O3 raises false positives inside libstdc++ (an error under -Werror), and CI
# checks -O3 only for dfx, dfx-sim and a few tests (scripts/test.sh), not the benchmarks built here.
dfx_configure "$build" -Dtests=disabled -Ddebug=false -Doptimization=2
ninja -C "$build" >/dev/null

work="$build/work"
outputs="$work/dfx_outputs"
echo "== dfx-sim: paged-attention decode, every collector on =="
"$build/examples/sim_runtime/dfx-sim" --workload paged_attention --work-dir "$work" \
  --chip-swimlane-level 4 --enable-dep-gen --enable-scope-stats --dump-args 1 --enable-pmu 2 "$@"

dfx="$build/tools/dfx/dfx"
echo "== dfx all: every converter over $outputs =="
"$dfx" all "$outputs"
if [ -f "$outputs/deps.json" ]; then
  echo "== dfx deps --format html: the dependency graph as a pan/zoom page =="
  "$dfx" deps "$outputs/deps.json" --format html --engine dot
fi

echo "== where everything is =="
find "$outputs" -type f | sort
echo "Perfetto trace: $(find "$outputs" -name 'merged_swimlane*.json' | sort | tr '\n' ' ')(open it in the Perfetto UI or chrome://tracing)"
echo "HTML reports:   $(find "$outputs" -name '*.html' | sort | tr '\n' ' ')"
