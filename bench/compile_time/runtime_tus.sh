#!/usr/bin/env bash
# Compile CPU seconds of a runtime's translation units (docs/embedding.md,
# "One host translation unit"): the hot-path TU without DFX, the same TU
# instrumented at swimlane level 4 + dep_gen through dfx_glue.hpp, and the one
# host TU holding the session. g++ -O2 by default; each compile timed
# REPEAT times (user + sys CPU; the median printed, the minimum beside it:
# on a shared machine the minimum is the steadier of the two).
#   bash bench/compile_time/runtime_tus.sh [compiler] [repeat]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
inc="$here/../../include"
src="$here/runtime"
cxx="${1:-g++}"
repeat="${2:-5}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cpu() {  # file, extra flags...: "median min" CPU seconds of compiling it
  local file="$1"; shift
  for _ in $(seq "$repeat"); do
    /usr/bin/time -f '%U %S' -o "$tmp/t" "$cxx" -std=c++20 -O2 -pthread -I "$inc" -I "$src" "$@" -c "$file" -o "$tmp/o.o"
    awk '{printf "%.2f\n", $1 + $2}' "$tmp/t"
  done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)], a[1]}'
}
read -r plain plain_min <<<"$(cpu "$src/runtime.cpp" -DRUNTIME_WITHOUT_DFX)"
read -r instrumented instrumented_min <<<"$(cpu "$src/runtime.cpp")"
read -r host host_min <<<"$(cpu "$src/dfx_host.cpp")"
printf '%s -O2, median (min) of %s, CPU seconds\n' "$cxx" "$repeat"
printf '  hot-path TU, uninstrumented          %6.2f (%.2f)\n' "$plain" "$plain_min"
printf '  hot-path TU, level 4 + dep_gen       %6.2f (%.2f)  (+%.2f)\n' "$instrumented" "$instrumented_min" "$(echo "$instrumented - $plain" | bc)"
printf '  host TU (dfx::session)               %6.2f (%.2f)\n' "$host" "$host_min"
