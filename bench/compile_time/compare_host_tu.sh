#!/usr/bin/env bash
# Compile CPU seconds (user + sys) of the runtime's host TU
# (runtime/dfx_host.cpp) against two include trees, old and new compiled
# alternately so that a loaded machine slows both alike (docs/embedding.md,
# section 5). Prints every sample, then min and median of each and the
# new/old ratios.
#   bash bench/compile_time/compare_host_tu.sh OLD_INCLUDE_DIR [NEW_INCLUDE_DIR] [repeat] [compiler]
# e.g. git -C /work/main archive main include | tar -x -C /tmp/old
#      bash bench/compile_time/compare_host_tu.sh /tmp/old/include
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
old="${1:?usage: compare_host_tu.sh OLD_INCLUDE_DIR [NEW_INCLUDE_DIR] [repeat] [compiler]}"
new="${2:-$here/../../include}"
repeat="${3:-7}"
cxx="${4:-g++}"
for d in "$old" "$new"; do
  [[ -f "$d/dfx/session/session.hpp" ]] || { echo "compare_host_tu.sh: $d: not a dfxkit include directory" >&2; exit 2; }
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
one() {  # include dir -> CPU seconds
  /usr/bin/time -f '%U %S' -o "$tmp/t" "$cxx" -std=c++20 -O2 -pthread -I "$1" -I "$here/runtime" \
    -c "$here/runtime/dfx_host.cpp" -o "$tmp/o.o"
  awk '{printf "%.2f\n", $1 + $2}' "$tmp/t"
}
for i in $(seq "$repeat"); do
  o="$(one "$old")"; n="$(one "$new")"
  echo "$o" >>"$tmp/old"; echo "$n" >>"$tmp/new"
  printf 'pair %d: old %s  new %s\n' "$i" "$o" "$n"
done
stats() { sort -n "$1" | awk '{a[NR]=$1} END {printf "%.2f %.2f", a[1], a[int((NR+1)/2)]}'; }
read -r omin omed <<<"$(stats "$tmp/old")"
read -r nmin nmed <<<"$(stats "$tmp/new")"
printf '%s -O2 host TU, CPU seconds, %s pairs\n' "$cxx" "$repeat"
printf '  old  min %.2f  median %.2f\n' "$omin" "$omed"
printf '  new  min %.2f  median %.2f\n' "$nmin" "$nmed"
printf '  new/old  min %.3f  median %.3f\n' "$(echo "$nmin / $omin" | bc -l)" "$(echo "$nmed / $omed" | bc -l)"
