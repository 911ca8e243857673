#!/usr/bin/env bash
# Compile time and size of selection, per role vs. the product of roles.
#   bash bench/compile_time/measure.sh [compiler...]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
inc="$here/../../include"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for cxx in "${@:-g++ clang++}"; do
  for mode in per_role product; do
    def=""; [ "$mode" = per_role ] && def="-DDFX_PER_ROLE"
    start=$(date +%s.%N)
    $cxx -std=c++20 -O2 -I "$inc" $def -c "$here/selection_tu.cpp" -o "$tmp/$mode.o"
    end=$(date +%s.%N)
    loops=$(nm -C "$tmp/$mode.o" | grep -E ' [TtWw] void (worker|scheduler|orchestrator)_loop<' | grep -vc '\.(cold|constprop|isra|part)' || true)
    printf '%-8s %-9s %6.2f s  %4d loop instantiations  %7d bytes of text\n' "$cxx" "$mode" \
      "$(echo "$end - $start" | bc)" "$loops" "$(size -A "$tmp/$mode.o" | awk '/^\.text/ {s+=$2} END {print s}')"
  done
done
