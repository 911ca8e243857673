#!/usr/bin/env python3
"""examples/embed_minimal end to end, at every swimlane level with dep_gen and scope stats.

For each level: the runtime runs a 300-task layered DAG and exits 0 (its session summary
complete); `dfx all` converts the artefacts and exits 0; then
  - every task has one Worker View slice, named after its kernel from the name map
    (load / mix / store), never func_<n> or task(...);
  - the Worker View's dependency arrows are exactly deps.json's edges, one each;
  - every collector's accounting adds up: produced == collected, 0 dropped, no LOST line,
    and the swimlane produced what the level stamps (1: a row per task; 2: + a dispatch
    row per task; 4: + an orchestrator phase per task, and scheduler phases);
  - deps.json, scope_stats.jsonl and the name map are present.

Usage: embed_minimal_test.py DFX_EMBED_MINIMAL DFX
"""

import json
import os
import re
import subprocess
import sys
import tempfile

TASKS = 300
KERNELS = {"load", "mix", "store"}
ACCOUNTING = re.compile(r"^(chip swimlane|dep_gen|scope stats): (\d+) records produced, (\d+) collected, (\d+) dropped$")


def check_level(runtime, dfx, level, root):
    out = os.path.join(root, f"level{level}")
    failures = []
    run = subprocess.run([runtime, str(level), str(TASKS), out], capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        return [f"level {level}: dfx-embed-minimal exited {run.returncode}:\n{run.stderr}"]
    counts = {}
    for line in run.stderr.splitlines():
        m = ACCOUNTING.match(line)
        if m:
            counts[m.group(1)] = tuple(int(x) for x in m.group(2, 3, 4))
        if "LOST" in line or "DROPPED" in line or "not written" in line:
            failures.append(f"level {level}: {line}")
    for collector in ("chip swimlane", "dep_gen", "scope stats"):
        produced, collected, dropped = counts.get(collector, (-1, -2, -1))
        if produced != collected or dropped != 0 or produced <= 0:
            failures.append(f"level {level}: {collector} accounting does not add up: {counts.get(collector)}")
    swimlane = counts.get("chip swimlane", (0, 0, 0))[0]
    expected_min = {1: TASKS, 2: 2 * TASKS, 3: 2 * TASKS + 1, 4: 3 * TASKS + 1}[level]
    if (level <= 2 and swimlane != expected_min) or swimlane < expected_min:
        failures.append(f"level {level}: {swimlane} swimlane records, the level stamps {expected_min}")

    conv = subprocess.run([dfx, "all", out], capture_output=True, text=True, timeout=300)
    if conv.returncode != 0:
        failures.append(f"level {level}: dfx all exited {conv.returncode}:\n{conv.stdout}{conv.stderr}")
        return failures
    for artefact in ("deps.json", "scope_stats/scope_stats.jsonl", "name_map_embed_minimal.json", "merged_swimlane.json"):
        if not os.path.exists(os.path.join(out, artefact)):
            failures.append(f"level {level}: {artefact} missing")
    with open(os.path.join(out, "deps.json"), encoding="utf-8") as f:
        edges = {(int(e["pred"]), int(e["succ"])) for e in json.load(f)["edges"]}
    with open(os.path.join(out, "merged_swimlane.json"), encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    worker = [e for e in events if e.get("ph") == "X" and e.get("pid") == 4 and 10000 <= e.get("tid", 0) < 19000]
    names = {e["name"].split("(")[0] for e in worker}
    if len(worker) != TASKS or names != KERNELS:
        failures.append(f"level {level}: {len(worker)} Worker View slices named {sorted(names)[:5]}, "
                        f"expected {TASKS} named {sorted(KERNELS)}")
    task_of = {e["id"]: e["args"]["taskId"] for e in worker if "id" in e}
    starts = {e["id"]: e for e in events if e.get("ph") == "s" and e.get("name") == "dependency" and e.get("pid") == 4}
    finishes = {e["id"]: e for e in events if e.get("ph") == "f" and e.get("name") == "dependency" and e.get("pid") == 4}
    arrows = [(task_of.get(starts[i].get("bind_id")), task_of.get(finishes[i].get("bind_id")))
              for i in starts if i in finishes]
    if len(arrows) != len(edges) or set(arrows) != edges:
        failures.append(f"level {level}: {len(arrows)} Worker View dependency arrows for {len(edges)} edges "
                        f"(missing {sorted(edges - set(arrows))[:3]}, extra {sorted(set(arrows) - edges)[:3]})")
    if not failures:
        print(f"level {level}: {TASKS} named slices, {len(edges)} arrows = edges, accounting {counts}")
    return failures


def main(argv):
    runtime, dfx = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    failures = []
    with tempfile.TemporaryDirectory() as root:
        for level in (1, 2, 3, 4):
            failures += check_level(runtime, dfx, level, root)
    for f in failures:
        print("FAILED: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
