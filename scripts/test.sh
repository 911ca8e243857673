#!/usr/bin/env bash
# Set up and run every test:
#   * g++ with AddressSanitizer + UndefinedBehaviorSanitizer, all suites but zero_cost
#     (which compiles with both g++ and clang++ itself: it runs in the clang build)
#   * clang++ at -O0 (warnings are errors there too), all suites but the mutation
#     corpus and the dfx CLI scripts (suite cli), benchmarks' smoke tests included
#   * g++ with ThreadSanitizer, the suites with threads: the transport, the
#     session (its lanes' threads and its one drain thread) and the converters'
#     readers (scan-ahead / pipelined parsing, the trace writer thread)
#   * g++ at buildtype=release (-O3): dfx, dfx-sim and the tests g++ 12 warned in at -O3,
#     and the mutation corpus's default sample
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
run_build() {  # name, CXX, what to test ("" for everything), meson options...
  # What to test: space-separated words, each "suite:<name>" (a whole suite,
  # built by the default target: the fuzz build configures nothing else),
  # "!suite:<name>" (every suite but that one, all built by the default
  # target) or "<ninja target>:<test name>" (one test executable, built alone).
  local name="$1" compiler="$2" selection="$3"
  shift 3
  local dir="$DFX_ROOT/build-test-$name"
  local targets=() test_args=() word
  for word in $selection; do
    case "$word" in
      suite:*) test_args+=(--suite "${word#suite:}") ;;
      '!suite:'*) test_args+=(--no-suite "${word#!suite:}") ;;
      *) targets+=("${word%%:*}"); test_args+=("${word#*:}") ;;
    esac
  done
  [ -n "$selection" ] && test_args=(--no-rebuild "${test_args[@]}")
  echo "== $name: configure and build =="
  local started=$SECONDS
  if ! CXX="$compiler" dfx_configure "$dir" "$@" || ! ninja -C "$dir" -j "$jobs" "${targets[@]}" >"$dir.build.log" 2>&1; then
    tail -n 60 "$dir.build.log" 2>/dev/null
    echo "$name: build FAILED"
    failed_builds=$((failed_builds + 1))
    return
  fi
  local built=$SECONDS
  echo "== $name: test (built in $((built - started)) s) =="
  meson test -C "$dir" --num-processes "$jobs" --print-errorlogs "${test_args[@]}" 2>&1 | grep -vE '^\s*$' | tail -n 200
  echo "== $name: tested in $((SECONDS - built)) s =="
  builds+=("$dir")
}

failed_builds=0
# Debug info is line tables only (-g1): a sanitizer's report and a failing
# test's backtrace keep file:line, and g++ skips variable tracking, which at
# -O1 under ASan is about half of the compile (cmd_deps.cpp: 210-225 s of CPU
# with -g, 109-130 s with -g1). A full -g is one meson option away when a
# failure needs a debugger.
line_tables=(-Ddebug=false -Dcpp_args=-g1)
# g++ at -Og: its flow-sensitive warnings (maybe-uninitialized and the like)
# need optimisation, and -Og runs them at a fraction of -O1's compile time
# under ASan+UBSan (cmd_deps.cpp: 62 s of CPU against 164 s at -O1; the whole
# build 977 s of CPU); the tests run a little slower (mutation_corpus is the
# longest); -O2 under ASan makes the converters take minutes each;
# the benchmarks' smoke tests run in the clang build, which compiles at -O0,
# to keep CI well inside its time.
# dfx and the converters' unit-test program each as one translation unit
# (-Dconverters_one_unit, tools/dfx/meson.build): their sources share most of
# their code, which compiled once takes a third of the CPU under ASan+UBSan
# (dfx: 179 s against about 546 s for its eleven objects) and less than half
# at -O3 (123 s against about 280 s). The clang build compiles each source on
# its own (cheap at -O0), so each is still seen to compile alone.
# Linked -no-pie: each of the thousands of dfx processes the tests start
# then skips about 397 k relative relocations (9.5 MB of .rela.dyn, each a
# page touched at start-up): `dfx --version` 0.09-0.12 s and 38 MB resident
# instead of 0.12-0.17 s and 50 MB (docs/testing.md).
# The zero_cost suite compiles its sample loops with g++ and with clang++
# whatever this build's compiler (tests/zero_cost/meson.build), so it runs
# once, in the clang build below, not in both (about 70 s of test time).
run_build gcc-asan-ubsan g++ "!suite:zero_cost" -Dsanitizers=address,undefined "${line_tables[@]}" -Doptimization=g -Dbenchmarks=disabled \
  -Dconverters_one_unit=true -Dcpp_link_args=-no-pie
# The mutation corpus's default sample runs in the release build below,
# where dfx is fastest (its ~2,800 runs in 30-48 s against 49 s at -O0; the
# FIFO mutants' 10 s waits set its floor); the sanitizer build runs its own
# smaller sample. Nor does this build run the suite `cli`: the Python scripts
# that drive dfx through its error paths and process behaviour (malformed
# and endless inputs, signals, terminals, browsers; about 150 s of test time
# here). They test dfx's code paths, which the ASan+UBSan build runs all of;
# this one still builds everything with clang's warnings as errors and runs
# every test program, the swimlane conformance goldens, the sim, session,
# consumer, compile-fail, zero-cost, header and benchmark-smoke tests.
run_build clang clang++ "!suite:mutation !suite:cli" -Doptimization=0 "${line_tables[@]}"
run_build gcc-tsan g++ "tests/transport/transport_tests:transport tests/session/session_tests:session tests/convert_swimlane/convert_swimlane_tests:swimlane_unit
  tests/convert_deps/convert_deps_units:convert_deps_units" -Dsanitizers=thread -Doptimization=2 "${line_tables[@]}" -Dexamples=disabled \
  -Dconverters_one_unit=true
# A user's plain release build (buildtype=release: -O3), warnings as errors,
# because some g++ 12 warnings appear only at -O3. Only the two programs and
# the tests g++ 12 warned in at -O3, not the whole project: about 2 minutes
# here (dfx as one unit) instead of 8; the builds above compile everything
# at -O0/-Og/-O2. Also the mutation corpus's default sample (needs only dfx
# and dfx-sim), and the huge-page restart's test: the one build here whose dfx
# valgrind 3.19 can read (it gives up on clang 14's DWARF 5; the sanitizer
# builds never restart), for its check that dfx runs under valgrind.
run_build gcc-release g++ "tools/dfx/dfx:swimlane_golden_l4_deps examples/sim_runtime/dfx-sim:sim_chain tools/dfx/dfx:mutation_corpus
  tests/sim/sim_e2e_tests:sim_two_pass tests/convert_deps/convert_deps_units:convert_deps_units tools/dfx/dfx:convert_deps_huge_page_heap" \
  -Dbuildtype=release -Dbenchmarks=disabled -Dconverters_one_unit=true
# One libFuzzer target per input reader, 20 s each, two at a time (fuzz/, docs/testing.md);
# about 3 minutes with the build on 2 cores. Longer runs by hand: bash scripts/fuzz.sh.
run_build clang-fuzz clang++ suite:fuzz -Dsanitizers=address,undefined -Dfuzzers=true "${line_tables[@]}" -Doptimization=1 \
  -Dtests=disabled -Dbenchmarks=disabled -Dexamples=disabled -Dtools=disabled

python3 "$DFX_ROOT/scripts/count_results.py" "$failed_builds" "${builds[@]}"
