#!/usr/bin/env bash
# Set up and run every test:
#   * g++ with AddressSanitizer + UndefinedBehaviorSanitizer, all suites
#   * clang++ at -O0 (warnings are errors there too), all suites, benchmarks' smoke tests included
#   * g++ with ThreadSanitizer, the transport suite
#   * clang++ with libFuzzer + ASan + UBSan, the fuzz suite (a bounded run per reader)
# and finish with one plain line "N passed, N failed" over all builds.
#
#   bash scripts/test.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
set +e

dfx_install_packages "${DFX_TEST_PACKAGES[@]}" || exit 1
jobs="$(nproc 2>/dev/null || echo 2)"

declare -a builds=()
run_build() {  # name, CXX, suite ("" for all), meson options...
  local name="$1" compiler="$2" suite="$3"
  shift 3
  local dir="$DFX_ROOT/build-test-$name"
  local targets=() suite_args=()
  if [ -n "$suite" ]; then
    # A suite's tests are one executable; the fuzz build configures nothing
    # but its targets (-Dfuzzers=true, the rest off), so it builds everything.
    [ "$suite" != fuzz ] && targets=("tests/$suite/${suite}_tests")
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
# One libFuzzer target per input reader, 20 s each, two at a time (fuzz/, docs/testing.md);
# about 4 minutes with the build on 2 cores. Longer runs by hand: bash scripts/fuzz.sh.
run_build clang-fuzz clang++ fuzz -Dsanitizers=address,undefined -Dfuzzers=true -Ddebug=true -Doptimization=1 \
  -Dtests=false -Dbenchmarks=false -Dexamples=false -Dtools=false

python3 "$DFX_ROOT/scripts/count_results.py" "$failed_builds" "${builds[@]}"
