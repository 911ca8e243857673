#!/usr/bin/env bash
# Set up and run every test:
#   * g++ with AddressSanitizer + UndefinedBehaviorSanitizer, all suites
#   * clang++ (warnings are errors there too), all suites
# and finish with one plain line "N passed, N failed" over both builds.
#
#   bash scripts/test.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
set +e

dfx_install_packages || exit 1
jobs="$(nproc 2>/dev/null || echo 2)"

declare -a builds=()
run_build() {  # name, CXX, meson options...
  local name="$1" compiler="$2"
  shift 2
  local dir="$DFX_ROOT/build-test-$name"
  echo "== $name: configure and build =="
  if ! CXX="$compiler" dfx_configure "$dir" "$@" || ! ninja -C "$dir" -j "$jobs" >"$dir.build.log" 2>&1; then
    tail -n 60 "$dir.build.log" 2>/dev/null
    echo "$name: build FAILED"
    failed_builds=$((failed_builds + 1))
    return
  fi
  echo "== $name: test =="
  meson test -C "$dir" --num-processes "$jobs" --print-errorlogs 2>&1 | grep -vE '^\s*$' | tail -n 200
  builds+=("$dir")
}

failed_builds=0
run_build gcc-asan-ubsan g++ -Dsanitizers=address,undefined -Dbuildtype=debugoptimized
run_build clang clang++ -Dbuildtype=debugoptimized

python3 "$DFX_ROOT/scripts/count_results.py" "$failed_builds" "${builds[@]}"
