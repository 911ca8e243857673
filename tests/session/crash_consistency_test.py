#!/usr/bin/env python3
"""A SIGKILL at any point of a run leaves the previous complete artefact set or the new one.

dfx::session writes its artefacts into a staging directory and swaps it in whole at
finish() (output/artefact_set.hpp). This test kills examples/embed_minimal (level 4 +
dep_gen + scope stats: records, deps.json, scope_stats.jsonl, name map) at every call of
each file-system syscall it makes, in turn, with strace's fault injection:

    strace -f -e trace=SYSCALL -e inject=SYSCALL:signal=KILL:when=N dfx-embed-minimal 4 96 OUT

OUT starts each time as a complete set of a 64-task run. After each kill OUT must hold a
complete set of one run: every artefact present, all from the 64-task run or all from the
96-task run (the task count is visible in the records, deps.json and the scope-stats
header), and no temporary file. The next run over OUT must then remove what the killed
one left beside it (its staging directory) and write a complete set.

Usage: crash_consistency_test.py DFX_EMBED_MINIMAL      (exit 77: strace missing, skipped)
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

SYSCALLS = ["openat", "write", "mkdir", "linkat", "rename", "renameat2", "unlink", "unlinkat", "fsync", "close"]
SAMPLES = 24  # injection points per syscall at most (evenly spread, first and last included)


def set_of(out):
    """The run each artefact came from (its task count), or a reason the set is broken."""
    found = {}
    try:
        with open(os.path.join(out, "chip_swimlane_records.json"), encoding="utf-8") as f:
            found["records"] = len(json.load(f)["aicore_tasks"])
        with open(os.path.join(out, "deps.json"), encoding="utf-8") as f:
            found["deps"] = len(json.load(f)["tasks"])
        with open(os.path.join(out, "scope_stats", "scope_stats.jsonl"), encoding="utf-8") as f:
            found["scope stats"] = json.loads(f.readline())["task_window_max"][0]
        if not os.path.exists(os.path.join(out, "name_map_embed_minimal.json")):
            return None, "the name map is missing"
    except (OSError, ValueError, KeyError, IndexError) as e:
        return None, f"incomplete set: {e!r} (found {found})"
    for root, _dirs, files in os.walk(out):
        for name in files:
            if ".tmp." in name:
                return None, f"temporary file left: {os.path.join(root, name)}"
    if len(set(found.values())) != 1:
        return None, f"a mix of runs: {found}"
    return found["records"], None


def leftovers(out):
    parent, base = os.path.split(out)
    return [n for n in os.listdir(parent) if n.startswith(base + ".dfx-")]


def count_calls(cmd, syscall):
    with tempfile.NamedTemporaryFile("r") as log:
        subprocess.run(["strace", "-f", "-qq", "-o", log.name, "-e", f"trace={syscall}"] + cmd,
                       capture_output=True, check=False, timeout=120)
        return sum(1 for line in open(log.name, encoding="utf-8", errors="replace")
                   if syscall + "(" in line and "resumed>" not in line)


def main(argv):
    if shutil.which("strace") is None:
        print("strace not installed: skipped")
        return 77
    runtime = os.path.abspath(argv[1])
    failures, kills, points = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(tmp, "good")
        if subprocess.run([runtime, "4", "64", good], capture_output=True, check=False).returncode != 0:
            print("FAILED: the 64-task run failed")
            return 1
        if set_of(good) != (64, None):
            print(f"FAILED: the 64-task run's set: {set_of(good)}")
            return 1
        out = os.path.join(tmp, "dfx_outputs")
        cmd = [runtime, "4", "96", out]
        for syscall in SYSCALLS:
            shutil.rmtree(out, ignore_errors=True)
            shutil.copytree(good, out)
            calls = count_calls(cmd, syscall)
            if calls == 0:
                continue
            ns = sorted({1 + (calls - 1) * i // (SAMPLES - 1) for i in range(SAMPLES)}) if calls > SAMPLES \
                else range(1, calls + 1)
            for n in ns:
                points += 1
                shutil.rmtree(out, ignore_errors=True)
                for stale in leftovers(out):
                    shutil.rmtree(os.path.join(tmp, stale), ignore_errors=True)
                shutil.copytree(good, out)
                run = subprocess.run(["strace", "-f", "-qq", "-o", os.devnull, "-e", f"trace={syscall}",
                                      "-e", f"inject={syscall}:signal=KILL:when={n}"] + cmd,
                                     capture_output=True, check=False, timeout=120)
                killed = run.returncode != 0
                kills += killed
                tasks, why = set_of(out)
                if why:
                    failures.append(f"killed at {syscall} #{n}: {why}")
                    continue
                if not killed and tasks != 96:
                    failures.append(f"{syscall} #{n}: the run finished but the set is the old one")
        # The next run cleans what a killed one left and writes its own set.
        if leftovers(out):
            subprocess.run([runtime, "4", "80", out], capture_output=True, check=False, timeout=120)
            if leftovers(out):
                failures.append(f"a later run did not remove {leftovers(out)}")
            if set_of(out) != (80, None):
                failures.append(f"the run after the kills: {set_of(out)}")
    for f in failures[:20]:
        print("FAILED: " + f)
    if not failures:
        print(f"{points} injection points over {len(SYSCALLS)} syscalls, {kills} runs killed: "
              "every kill left one complete set")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
