#!/usr/bin/env bash
# Compile CPU seconds (user + sys) of each translation unit of the `dfx`
# binary (tools/dfx/*.cpp), with the exact commands of a configured build
# (its compile_commands.json; configure it without -Dconverters_one_unit so
# each command is its own unit). Issue 18 item 9 reports these per command.
# With two build directories (say main's and an older commit's), the units of
# both are compiled alternately, so a change in the machine's load falls on
# both, and the ratios are printed.
#   bash bench/compile_time/dfx_tus.sh BUILD_DIR [OLD_BUILD_DIR]
# e.g. bash bench/compile_time/dfx_tus.sh build-rel
set -euo pipefail
new="${1:?usage: dfx_tus.sh BUILD_DIR [OLD_BUILD_DIR]}"
old="${2:-}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
commands() {  # build dir -> "<unit>\t<directory>\t<command>" per dfx unit
  python3 - "$1" <<'EOF'
import json, os, shlex, sys
build = sys.argv[1]
path = os.path.join(build, "compile_commands.json")
if not os.path.exists(path):
    sys.exit(f"dfx_tus.sh: {path}: no such file (configure the build first)")
units = [c for c in json.load(open(path)) if "/tools/dfx/" in c["file"].replace("\\", "/")]
if not units:
    sys.exit(f"dfx_tus.sh: {path}: no tools/dfx unit (a unity build? configure with -Dconverters_one_unit=false)")
for c in units:
    # The unit's own command, its object to /dev/null and no dependency file.
    words, kept = shlex.split(c["command"]), []
    skip = False
    for w in words:
        if skip:
            skip = False
        elif w in ("-o", "-MQ", "-MT", "-MF"):
            skip = True
            if w == "-o":
                kept += ["-o", "/dev/null"]
        elif w not in ("-MD", "-MMD"):
            kept.append(w)
    print(os.path.basename(c["file"]), c["directory"], shlex.join(kept), sep="\t")
EOF
}
cpu() {  # directory, command -> CPU seconds
  if ! (cd "$1" && /usr/bin/time -f '%U %S' -o "$tmp/t" bash -c "$2" >"$tmp/log" 2>&1); then
    echo "dfx_tus.sh: this compile failed (in $1): $2" >&2
    cat "$tmp/log" >&2
    return 1
  fi
  awk '{printf "%.1f", $1 + $2}' "$tmp/t"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
commands "$new" >"$tmp/new"
[ -n "$old" ] && commands "$old" >"$tmp/old"
printf '%-24s %8s' unit "CPU s"
[ -n "$old" ] && printf ' %8s %6s' "old s" ratio
printf '\n'
total_new=0 total_old=0 total_both=0  # total_both: the new units that old has too
while IFS=$'\t' read -r unit dir cmd; do
  line="$(printf '%-24s' "$unit")"
  if [ -n "$old" ]; then
    old_line="$(awk -F'\t' -v u="$unit" '$1 == u' "$tmp/old")"
    if [ -n "$old_line" ]; then
      o="$(cpu "$(cut -f2 <<<"$old_line")" "$(cut -f3- <<<"$old_line")")" || exit 1
    fi
  fi
  n="$(cpu "$dir" "$cmd")" || exit 1
  total_new="$(echo "$total_new + $n" | bc)"
  line+="$(printf ' %8s' "$n")"
  if [ -n "$old" ]; then
    if [ -n "${old_line:-}" ]; then
      total_old="$(echo "$total_old + $o" | bc)"
      total_both="$(echo "$total_both + $n" | bc)"
      line+="$(printf ' %8s %6s' "$o" "$(ratio "$n" "$o")")"
    else
      line+="$(printf ' %8s %6s' - -)"
    fi
  fi
  echo "$line"
done <"$tmp/new"
printf '%-24s %8s\n' total "$total_new"
if [ -n "$old" ]; then
  printf '%-24s %8s %8s %6s\n' "total of units in both" "$total_both" "$total_old" "$(ratio "$total_both" "$total_old")"
fi
