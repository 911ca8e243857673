#!/usr/bin/env bash
# Run every libFuzzer target (fuzz/) for longer than CI does, by hand:
#
#   bash scripts/fuzz.sh [SECONDS]      # per target, default 600
#
# Builds build-fuzz (clang++, ASan + UBSan, -Dfuzzers=true, nothing else),
# then runs the `fuzz` suite two targets at a time. The corpus of each target
# is kept in build-fuzz/fuzz-corpus/<target> and grows from run to run;
# findings land in build-fuzz/fuzz/artifacts/<target>/ (replay one with
# build-fuzz/fuzz/<target>_fuzz FILE). Ends with meson's summary; exits
# non-zero when a target found something.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
set +e

seconds="${1:-600}"
case "$seconds" in
  ''|*[!0-9]*) echo "usage: bash scripts/fuzz.sh [SECONDS per target]" >&2; exit 2 ;;
esac
dfx_install_packages || exit 1
dir="$DFX_ROOT/build-fuzz"
CXX=clang++ dfx_configure "$dir" -Dsanitizers=address,undefined -Dfuzzers=true -Doptimization=1 -Ddebug=true \
  -Dtests=disabled -Dbenchmarks=disabled -Dexamples=disabled -Dtools=disabled || exit 1
ninja -C "$dir" -j 2 || exit 1
mkdir -p "$dir/fuzz-corpus"
DFX_FUZZ_SECONDS="$seconds" DFX_FUZZ_CORPUS_DIR="$dir/fuzz-corpus" \
  meson test -C "$dir" --no-rebuild --suite fuzz --num-processes 2 --timeout-multiplier 0 --print-errorlogs
