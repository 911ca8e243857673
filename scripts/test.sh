#!/usr/bin/env bash
# Set up and run every test:
#   * g++ with AddressSanitizer + UndefinedBehaviorSanitizer, all suites
#   * clang++ at -O0 (warnings are errors there too), all suites, benchmarks' smoke tests included
#   * g++ with ThreadSanitizer, the transport suite
# and finish with one plain line "N passed, N failed" over all builds.
#
#   bash scripts/test.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
set +e

dfx_install_packages || exit 1
jobs="$(nproc 2>/dev/null || echo 2)"

declare -a builds=()
run_build() {  # name, CXX, suite ("" for all), meson options...
  local name="$1" compiler="$2" suite="$3"
  shift 3
  local dir="$DFX_ROOT/build-test-$name"
  local targets=() suite_args=()
  if [ -n "$suite" ]; then
    targets=("tests/$suite/${suite}_tests")
    suite_args=(--no-rebuild --suite "$suite")
  fi
  echo "== $name: configure and build =="
  if ! CXX="$compiler" dfx_configure "$dir" "$@" || ! ninja -C "$dir" -j "$jobs" "${targets[@]}" >"$dir.build.log" 2>&1; then
    tail -n 60 "$dir.build.log" 2>/dev/null
    echo "$name: build FAILED"
    failed_builds=$((failed_builds + 1))
    return
  fi
  echo "== $name: test =="
  meson test -C "$dir" --num-processes "$jobs" --print-errorlogs "${suite_args[@]}" 2>&1 | grep -vE '^\s*$' | tail -n 200
  builds+=("$dir")
}

failed_builds=0
# g++ at -O1 (its flow-sensitive warnings, maybe-uninitialized and the like,
# need optimisation; -O2 under ASan makes the converters take minutes each);
# the benchmarks' smoke tests run in the clang build, which compiles at -O0,
# to keep CI well inside its time.
run_build gcc-asan-ubsan g++ "" -Dsanitizers=address,undefined -Ddebug=true -Doptimization=1 -Dbenchmarks=false
run_build clang clang++ "" -Dbuildtype=debug
run_build gcc-tsan g++ transport -Dsanitizers=thread -Dbuildtype=debugoptimized -Dexamples=false

python3 "$DFX_ROOT/scripts/count_results.py" "$failed_builds" "${builds[@]}"
