#!/usr/bin/env bash
# The main job: set up, build, run the simulated chip (dfx-sim) with every
# collector on, convert what it wrote with `dfx all`, and say where it is.
#
#   bash scripts/demo.sh [extra dfx-sim flags, e.g. --workload spmd --chips 2]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

dfx_install_packages
build="$DFX_ROOT/build-demo"
dfx_configure "$build" -Dtests=false -Dbuildtype=release
ninja -C "$build" >/dev/null

work="$build/work"
outputs="$work/dfx_outputs"
echo "== dfx-sim: paged-attention decode, every collector on =="
"$build/examples/sim_runtime/dfx-sim" --workload paged_attention --work-dir "$work" \
  --chip-swimlane-level 4 --enable-dep-gen --enable-scope-stats --dump-args 1 --enable-pmu 2 "$@"

dfx="$build/tools/dfx/dfx"
if "$dfx" all --help >/dev/null 2>&1; then
  echo "== dfx all: every converter over $outputs =="
  "$dfx" all "$outputs"
else
  echo "TODO: this build's dfx has no 'all' subcommand yet; convert each artefact with the commands printed above."
fi

echo "== what is under $outputs =="
find "$outputs" -type f | sort
echo "Perfetto trace: the merged_swimlane*.json file(s) above (open it in the Perfetto UI or chrome://tracing);"
echo "HTML reports: the *.html files above (open in a browser)."
