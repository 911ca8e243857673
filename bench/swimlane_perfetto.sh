#!/usr/bin/env bash
# Size and write time of `dfx swimlane` as JSON and as Perfetto protobuf
# (--format perfetto) on generated level-4 captures (gen_swimlane_records.py).
#
#   bench/swimlane_perfetto.sh DFX [TASKS...]      (default: 100000)
#   RUNS=5 bench/swimlane_perfetto.sh build-rel/tools/dfx/dfx 10000 100000
#
# Per size: both formats written RUNS times (default 3), alternating, to a
# file; prints the best wall time of each (the machine is shared: the best is
# the least disturbed), peak RSS, output MB and the JSON / protobuf size
# ratio (the goal: >= 6 at 10^5 tasks, and protobuf no slower).
set -euo pipefail
dfx=$(readlink -f "$1"); shift
sizes=("${@:-100000}")
runs=${RUNS:-3}
here=$(dirname "$(readlink -f "$0")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seconds() { grep "Elapsed (wall clock)" "$1" | awk '{print $NF}' | awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }'; }
for n in ${sizes[@]}; do
  dir="$work/t$n"
  python3 "$here/gen_swimlane_records.py" "$n" "$dir"
  declare -A best=() rss=() bytes=()
  for ((r = 0; r < runs; r++)); do
    for fmt in json perfetto; do
      out="$dir/trace.$fmt"
      /usr/bin/time -v "$dfx" swimlane "$dir/chip_swimlane_records.json" -o "$out" --format "$fmt" > /dev/null 2> "$dir/time.txt"
      t=$(seconds "$dir/time.txt")
      if [[ -z ${best[$fmt]:-} ]] || (( $(echo "$t < ${best[$fmt]}" | bc -l) )); then best[$fmt]=$t; fi
      rss[$fmt]=$(grep "Maximum resident" "$dir/time.txt" | awk '{print $NF}')
      bytes[$fmt]=$(stat -c %s "$out")
    done
  done
  printf 'tasks=%-8s json: %6.2f s %8.1f MB out, peak RSS %7.1f MB | perfetto: %6.2f s %8.1f MB out, peak RSS %7.1f MB | size ratio %.2f, time ratio %.2f\n' \
    "$n" "${best[json]}" "$(echo "${bytes[json]} / 1048576" | bc -l)" "$(echo "${rss[json]} / 1024" | bc -l)" \
    "${best[perfetto]}" "$(echo "${bytes[perfetto]} / 1048576" | bc -l)" "$(echo "${rss[perfetto]} / 1024" | bc -l)" \
    "$(echo "${bytes[json]} / ${bytes[perfetto]}" | bc -l)" "$(echo "${best[perfetto]} / ${best[json]}" | bc -l)"
  unset best rss bytes
  rm -rf "$dir"
done
