#!/usr/bin/env bash
# Throughput and peak memory of `dfx swimlane` / `dfx sched-overhead` on
# generated level-4 captures (bench/gen_swimlane_records.py).
#
#   bench/swimlane_throughput.sh DFX [TASKS...]      (default: 10000 50000 200000)
#
# Prints, per size: input MB, wall seconds, MB/s of records + deps.json read,
# output events, peak RSS (from /usr/bin/time -v). The reference Python tools
# took 7.7 s / 346 MB (10k), 43.9 s / 1,626 MB (50k) and 179 s / 6,486 MB (200k):
# see ../shared/spec/reference-performance.md.
set -euo pipefail
dfx=$(readlink -f "$1"); shift
sizes=("${@:-10000 50000 200000}")
here=$(dirname "$(readlink -f "$0")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in ${sizes[@]}; do
  dir="$work/t$n"
  python3 "$here/gen_swimlane_records.py" "$n" "$dir"
  in_mb=$(du -cm "$dir/chip_swimlane_records.json" "$dir/deps.json" | tail -1 | cut -f1)
  /usr/bin/time -v "$dfx" swimlane "$dir/chip_swimlane_records.json" -o "$dir/trace.json" > /dev/null 2> "$dir/time.txt"
  wall=$(grep "Elapsed (wall clock)" "$dir/time.txt" | awk '{print $NF}' | awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
  rss=$(grep "Maximum resident" "$dir/time.txt" | awk '{print $NF}')
  events=$(grep -c '' "$dir/trace.json")
  out_mb=$(du -m "$dir/trace.json" | cut -f1)
  /usr/bin/time -v "$dfx" sched-overhead --chip-swimlane-records-json "$dir/chip_swimlane_records.json" > /dev/null 2> "$dir/time2.txt"
  wall2=$(grep "Elapsed (wall clock)" "$dir/time2.txt" | awk '{print $NF}' | awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
  rss2=$(grep "Maximum resident" "$dir/time2.txt" | awk '{print $NF}')
  printf 'tasks=%-8s in=%5s MB  swimlane: %6.2f s  %6.1f MB/s  %9s events  out=%5s MB  peak RSS %7.1f MB | sched-overhead: %6.2f s  peak RSS %7.1f MB\n' \
    "$n" "$in_mb" "$wall" "$(echo "$in_mb / $wall" | bc -l)" "$events" "$out_mb" "$(echo "$rss / 1024" | bc -l)" \
    "$wall2" "$(echo "$rss2 / 1024" | bc -l)"
  rm -rf "$dir"
done
