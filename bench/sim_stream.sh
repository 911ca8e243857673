#!/usr/bin/env bash
# End-to-end collector overhead on dfx-sim's long stream workload: tasks/s
# (wall, from dfx-sim's summary) with the collectors off, with the chip
# swimlane at level 1, and with everything on (swimlane level 4, dep_gen,
# scope stats, args dump level 2, PMU), and the ratio on/off.
#
#   bench/sim_stream.sh DFX_SIM [TASKS] [ROUNDS] [DFX_SIM FLAGS...]   (default: 100000 tasks, 5 rounds)
#   bench/sim_stream.sh OLD_SIM,NEW_SIM [TASKS] [ROUNDS] ...   (before/after, side by side)
#
# Flags after ROUNDS go to every run (e.g. --aicore-num 1,2 for fewer threads
# than the default chip's 9 on a small machine).
# The configurations alternate within each round (off, sl1, all, off, ...),
# and with several binaries (comma-separated) so do the binaries, so a load
# change on the shared machine hits all of them alike; the medians over the
# rounds are printed, one block per binary. Build dfx-sim as a release build. Speeds are
# ratios from one sitting, never absolute claims.
set -euo pipefail
IFS=, read -r -a sims <<<"$1"
for i in "${!sims[@]}"; do sims[i]=$(readlink -f "${sims[i]}"); done
tasks=${2:-100000}
rounds=${3:-5}
shift $(($# < 3 ? $# : 3))
chip=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

names=(off sl1 all)
declare -A flags=(
  [off]=""
  [sl1]="--chip-swimlane-level 1"
  [all]="--chip-swimlane-level 4 --enable-dep-gen --enable-scope-stats --dump-args 2 --enable-pmu 2"
)
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
      printf 'round %d %-4s %s %10s tasks/s\n' "$r" "$c" "${sims[i]}" "$rate"
    done
  done
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for i in "${!sims[@]}"; do
  off=$(median "${samples[$i.off]}")
  printf '\n%s\n%d tasks, %d rounds%s, medians:\n' "${sims[i]}" "$tasks" "$rounds" "${chip:+, ${chip[*]}}"
  for c in "${names[@]}"; do
    m=$(median "${samples[$i.$c]}")
    printf '%-4s %10.0f tasks/s  on/off %.3f   (%s)\n' "$c" "$m" "$(echo "$m / $off" | bc -l)" "${flags[$c]:-collectors off}"
  done
done
