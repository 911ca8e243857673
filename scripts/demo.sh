#!/usr/bin/env bash
# The main job: set up, build, and run the runtime with collectors on.
# (Until the simulated chip lands, the main job is the flag-selection
# example: run-time flags mapped onto the compiled collector choices.)
#
#   bash scripts/demo.sh [extra flags for the runtime]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

dfx_install_packages
build="$DFX_ROOT/build-demo"
dfx_configure "$build" -Dtests=false -Dbuildtype=release
ninja -C "$build" >/dev/null

echo "== dfx-flag-selection: every collector on =="
"$build/examples/flag_selection/dfx-flag-selection" \
  --chip-swimlane-level 4 --dump-args 1 --enable-pmu 2 --enable-dep-gen --enable-scope-stats \
  --tasks 100000 --output-prefix "$build/work/dfx_outputs" "$@"
