#!/usr/bin/env bash
# Time and peak memory of `dfx report` and `dfx compare` on generated
# level-4 captures (gen_swimlane_records.py: records + deps.json), against
# the tuning-loop goals: each command under 20 s and under 1 GB peak RSS at
# 10^6 tasks (docs/report.md, "Scale").
#
#   bench/report_scale.sh DFX [TASKS...]            (default: 1000000)
#   RUNS=3 KEEP=/work/caps bench/report_scale.sh build-rel/tools/dfx/dfx 100000 1000000
#
# Per size: two captures (seeds 1 and 2: two runs of one shape, different
# timings), then `dfx report A` and `dfx compare A B` RUNS times each
# (default 3), alternating; prints the best wall time (the machine is
# shared: the best is the least disturbed), the CPU seconds of that run and
# the largest peak RSS. KEEP=DIR keeps the captures there (generating 10^6
# tasks takes about a minute and 2 GB) and reuses them on the next run.
set -euo pipefail
dfx=$(readlink -f "$1"); shift
sizes=("${@:-1000000}")
runs=${RUNS:-3}
here=$(dirname "$(readlink -f "$0")")
if [[ -n ${KEEP:-} ]]; then work=$KEEP; mkdir -p "$work"; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
seconds() { grep "Elapsed (wall clock)" "$1" | awk '{print $NF}' | awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }'; }
cpu() { awk '/User time|System time/ {s += $NF} END {print s}' "$1"; }
for n in "${sizes[@]}"; do
  for seed in 1 2; do
    dir="$work/t$n-s$seed"
    [[ -f $dir/deps.json ]] || python3 "$here/gen_swimlane_records.py" "$n" "$dir" --seed "$seed"
  done
  a="$work/t$n-s1" b="$work/t$n-s2"
  declare -A best=() cpus=() rss=()
  for ((r = 0; r < runs; r++)); do
    for cmd in report compare; do
      args=("$a" --format json -o /dev/null)
      [[ $cmd == compare ]] && args=("$a" "$b" --format json -o /dev/null)
      /usr/bin/time -v "$dfx" "$cmd" "${args[@]}" > /dev/null 2> "$work/time.txt" || { cat "$work/time.txt"; exit 1; }
      t=$(seconds "$work/time.txt")
      if [[ -z ${best[$cmd]:-} ]] || (( $(echo "$t < ${best[$cmd]}" | bc -l) )); then best[$cmd]=$t; cpus[$cmd]=$(cpu "$work/time.txt"); fi
      m=$(grep "Maximum resident" "$work/time.txt" | awk '{print $NF}')
      if [[ -z ${rss[$cmd]:-} ]] || (( m > rss[$cmd] )); then rss[$cmd]=$m; fi
    done
  done
  for cmd in report compare; do
    printf 'tasks=%-8s dfx %-7s %6.2f s wall (%6.2f s CPU), peak RSS %7.1f MB   goal: < 20 s, < 1024 MB at 10^6\n' \
      "$n" "$cmd" "${best[$cmd]}" "${cpus[$cmd]}" "$(echo "${rss[$cmd]} / 1024" | bc -l)"
  done
  unset best cpus rss
done
