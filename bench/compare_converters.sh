#!/usr/bin/env bash
# Two dfx binaries side by side in one sitting: convert_bench run ROUNDS
# times for each, alternating (base, new, base, new, ...), so a change in the
# machine's load falls on both. Prints, per benchmark, the minimum wall time,
# the minimum child CPU time (user + system, steadier on a shared machine)
# and the peak RSS of each binary, with new/base ratios.
#
#   bash bench/compare_converters.sh CONVERT_BENCH BASE_DFX NEW_DFX [ROUNDS] [convert_bench flags...]
#   bash bench/compare_converters.sh build-rel/bench/convert_bench old/dfx build-rel/tools/dfx/dfx 3 \
#        --inputs=/tmp/bench-inputs --max_tasks=200000
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,10p' "$0" >&2
  exit 2
fi
bench="$1" base="$2" new="$3"
rounds="${4:-3}"
shift $(( $# < 4 ? $# : 4 ))
for f in "$bench" "$base" "$new"; do
  [ -x "$f" ] || { echo "compare_converters: $f: not an executable" >&2; exit 2; }
done
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for round in $(seq "$rounds"); do
  for which in base new; do
    exe="$base"; [ "$which" = new ] && exe="$new"
    echo "round $round/$rounds: $which ($exe)" >&2
    "$bench" --dfx="$exe" "$@" --benchmark_format=json --benchmark_out="$out/$which-$round.json" >/dev/null
  done
done
python3 - "$out" "$rounds" <<'EOF'
import json, sys, collections
out, rounds = sys.argv[1], int(sys.argv[2])
runs = {w: collections.defaultdict(list) for w in ("base", "new")}
for w in runs:
    for r in range(1, rounds + 1):
        with open(f"{out}/{w}-{r}.json") as f:
            for b in json.load(f)["benchmarks"]:
                if b.get("error_occurred"):
                    sys.exit(f"compare_converters: {w}, {b['name']}: {b.get('error_message')}")
                runs[w][b["name"]].append(b)
print(f"{'benchmark':36} {'wall ms base':>12} {'new':>8} {'ratio':>6} {'cpu s base':>10} {'new':>7} {'ratio':>6}"
      f" {'RSS MB base':>11} {'new':>7} {'ratio':>6}")
for name, base in runs["base"].items():
    new = runs["new"].get(name)
    if not new:
        continue
    wall = [min(b["real_time"] for b in x) for x in (base, new)]
    cpu = [min(b["cpu_s"] for b in x) if "cpu_s" in x[0] else float("nan") for x in (base, new)]
    rss = [max(b["peak_rss_MB"] for b in x) for x in (base, new)]
    print(f"{name:36} {wall[0]:12.1f} {wall[1]:8.1f} {wall[1] / wall[0]:6.3f} {cpu[0]:10.3f} {cpu[1]:7.3f}"
          f" {cpu[1] / cpu[0]:6.3f} {rss[0]:11.1f} {rss[1]:7.1f} {rss[1] / rss[0]:6.3f}")
EOF
