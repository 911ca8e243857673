#!/usr/bin/env bash
# End-to-end collector overhead on dfx-sim's long stream workload: tasks/s
# (wall, from dfx-sim's summary) with the collectors off, with the chip
# swimlane at level 1, and with everything on (swimlane level 4, dep_gen,
# scope stats, args dump level 2, PMU), and the ratio on/off.
#
#   bench/sim_stream.sh DFX_SIM [TASKS] [ROUNDS] [DFX_SIM FLAGS...]   (default: 100000 tasks, 5 rounds)
#   bench/sim_stream.sh OLD_SIM,NEW_SIM [TASKS] [ROUNDS] ...   (before/after, side by side)
#   bench/sim_stream.sh --configs=leave-one-out DFX_SIM [TASKS] [ROUNDS] ...
#
# --configs=LIST picks the configurations (comma-separated names, or a set):
#   off, sl1, all (the default set), each collector alone (swimlane4,
#   dep_gen, scope_stats, args2, pmu), everything but one (all-but-swimlane,
#   all-but-dep_gen, all-but-scope_stats, all-but-args, all-but-pmu) and
#   everything with the args dump at level 1 (all-args1); the sets `alone`
#   and `leave-one-out` name those groups. off is always run: the ratios are
#   over it.
#
# Flags after ROUNDS go to every run (e.g. --aicore-num 1,2 for fewer threads
# than the default chip's 9 on a small machine).
# The configurations alternate within each round (off, sl1, all, off, ...),
# and with several binaries (comma-separated) so do the binaries, so a load
# change on the shared machine hits all of them alike; the medians over the
# rounds are printed, one block per binary. Build dfx-sim as a release build. Speeds are
# ratios from one sitting, never absolute claims.
set -euo pipefail
configs=off,sl1,all
case "${1:-}" in
  --configs=*) configs=${1#--configs=}; shift ;;
esac
if [[ $# -lt 1 ]]; then
  sed -n '7,20p' "$0" >&2
  exit 2
fi
IFS=, read -r -a sims <<<"$1"
for i in "${!sims[@]}"; do sims[i]=$(readlink -f "${sims[i]}"); done
tasks=${2:-100000}
rounds=${3:-5}
shift $(($# < 3 ? $# : 3))
chip=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Each collector's flags at its fullest, as `all` runs it.
declare -A collector=(
  [swimlane]="--chip-swimlane-level 4"
  [dep_gen]="--enable-dep-gen"
  [scope_stats]="--enable-scope-stats"
  [args]="--dump-args 2"
  [pmu]="--enable-pmu 2"
)
order=(swimlane dep_gen scope_stats args pmu)
all_but() {  # every collector's flags but $1's ("" for none left out)
  local c out=""
  for c in "${order[@]}"; do [[ $c == "$1" ]] || out+="${out:+ }${collector[$c]}"; done
  echo "$out"
}
declare -A flags=(
  [off]=""
  [sl1]="--chip-swimlane-level 1"
  [all]="$(all_but "")"
  [swimlane4]="${collector[swimlane]}"
  [dep_gen]="${collector[dep_gen]}"
  [scope_stats]="${collector[scope_stats]}"
  [args2]="${collector[args]}"
  [pmu]="${collector[pmu]}"
  [all-args1]="$(all_but args) --dump-args 1"
)
for c in "${order[@]}"; do flags[all-but-$c]="$(all_but "$c")"; done
configs=${configs//leave-one-out/all,all-but-swimlane,all-but-dep_gen,all-but-scope_stats,all-but-args,all-but-pmu,all-args1}
configs=${configs//alone/swimlane4,dep_gen,scope_stats,args2,pmu}
names=(off)
IFS=, read -r -a asked <<<"$configs"
for c in "${asked[@]}"; do
  [[ -v "flags[$c]" ]] || { echo "sim_stream.sh: --configs: unknown configuration '$c' (see the header of $0)" >&2; exit 2; }
  [[ $c == off || " ${names[*]} " == *" $c "* ]] || names+=("$c")
done
declare -A samples=()
for ((r = 1; r <= rounds; ++r)); do
  for c in "${names[@]}"; do
    for i in "${!sims[@]}"; do
      rm -rf "${work:?}/$c"
      # shellcheck disable=SC2086  # the flags are words
      out=$("${sims[i]}" --workload stream --tasks "$tasks" --work-dir "$work/$c" "${chip[@]}" ${flags[$c]}) || {
        echo "sim_stream.sh: ${sims[i]} failed ($c, round $r)" >&2
        exit 1
      }
      rate=$(sed -n 's/^throughput: \([0-9]*\) tasks\/s (wall)$/\1/p' <<<"$out")
      [[ -n "$rate" ]] || { echo "sim_stream.sh: no throughput line ($c)" >&2; exit 1; }
      samples[$i.$c]+="$rate "
      printf 'round %d %-19s %s %10s tasks/s\n' "$r" "$c" "${sims[i]}" "$rate"
    done
  done
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for i in "${!sims[@]}"; do
  off=$(median "${samples[$i.off]}")
  printf '\n%s\n%d tasks, %d rounds%s, medians:\n' "${sims[i]}" "$tasks" "$rounds" "${chip:+, ${chip[*]}}"
  for c in "${names[@]}"; do
    m=$(median "${samples[$i.$c]}")
    printf '%-19s %10.0f tasks/s  on/off %.3f   (%s)\n' "$c" "$m" "$(echo "$m / $off" | bc -l)" "${flags[$c]:-collectors off}"
  done
done
