#!/usr/bin/env python3
"""`dfx swimlane --window START:END` / `--tasks FIRST:LAST`: the trace of one stretch of time.

For each capture the full trace is converted once (JSON, with --overhead for the
counter tracks), and what a window must hold is computed here from it, by this
script's own reading of the rule (docs/converters.md, "Cutting a big run"):
  slices    the full trace's "X" events with ts <= END and ts + dur >= START,
            whole (same ts, dur, args, id);
  flows     the "s" / "f" pairs (by id) whose two ends both lie in [START, END];
  counters  per track (pid, tid, name) its points in [START, END], plus, when it
            has a point before START and none at START, that last point moved to
            ts = START;
  metadata  every "M" event and the top-level "metadata" object, unchanged.
The windowed JSON must hold exactly these events (as multisets). The windowed
protobuf (--format perfetto) must decode cleanly and hold the same events as the
windowed JSON (perfetto_trace.py compare), its slice count must be the
expected one, and protoc must parse it as the full trace's (when installed). Windows: a middle stretch, one edge landing exactly on a slice's
start, one that holds nothing (stderr note, metadata only), one spanning the
whole run (the full trace's events), and --tasks over a task-id range (the span
of those tasks, computed here from the full trace's taskId args).
Bad values of --window / --tasks: one error line naming the flag, exit 2, and no
output file.

Usage: window_cli.py DFX CONFORMANCE_DIR GENERATOR
"""

import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import perfetto_equivalence  # noqa: E402
import perfetto_trace  # noqa: E402

RECORDS = "chip_swimlane_records.json"


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False, timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stderr}")
    return r


def key(ev):
    return json.dumps(ev, sort_keys=True)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def expected_window(full, start, end):
    """The events a [start, end] window keeps, computed from the full trace."""
    events = full["traceEvents"]
    want = Counter()
    for ev in events:
        if ev["ph"] == "M":
            want[key(ev)] += 1
        elif ev["ph"] == "X" and ev["ts"] <= end and ev["ts"] + ev["dur"] >= start:
            want[key(ev)] += 1
    ends = defaultdict(dict)
    for ev in events:
        if ev["ph"] in "sf":
            ends[ev["id"]][ev["ph"]] = ev
    for pair in ends.values():
        if all(start <= pair[p]["ts"] <= end for p in "sf"):
            want[key(pair["s"])] += 1
            want[key(pair["f"])] += 1
    tracks = defaultdict(list)
    for ev in events:
        if ev["ph"] == "C":
            tracks[(ev["pid"], ev.get("tid"), ev["name"])].append(ev)
    for points in tracks.values():
        before = None
        at_start = False
        for ev in points:  # file order: of equal times, the later point wins
            if ev["ts"] < start and (before is None or ev["ts"] >= before["ts"]):
                before = ev
            if start <= ev["ts"] <= end:
                want[key(ev)] += 1
                at_start = at_start or ev["ts"] == start
        if before is not None and not at_start:
            want[key(dict(before, ts=float(start)))] += 1
    return want


def check_window(dfx, case, label, full, flags, start, end, tmp, failures, empty=False):
    js = os.path.join(tmp, label + ".json")
    pb = os.path.join(tmp, label + ".pftrace")
    r = run([dfx, "swimlane", RECORDS, "-o", js, "--overhead"] + flags, case)
    run([dfx, "swimlane", RECORDS, "-o", pb, "--overhead"] + flags, case)
    got_trace = load(js)
    got = Counter(key(ev) for ev in got_trace["traceEvents"])
    want = expected_window(full, start, end)
    if got != want:
        missing, extra = want - got, got - want
        failures.append(f"{label}: {sum(missing.values())} event(s) missing, {sum(extra.values())} extra; "
                        f"e.g. missing {list(missing)[:2]}, extra {list(extra)[:2]}")
    if got_trace.get("metadata") != full.get("metadata"):
        failures.append(f"{label}: the top-level metadata differs from the full trace's")
    phases = Counter(json.loads(k)["ph"] for k in want.elements())
    note = "no slice of the capture overlaps" in r.stderr
    if empty:
        if phases["X"] or phases["s"] or not note:
            failures.append(f"{label}: expected an empty window with a note; slices {phases['X']}, note {note}")
    elif note or not phases["X"]:
        failures.append(f"{label}: expected slices and no note; slices {phases['X']}, stderr {r.stderr[-300:]!r}")
    problems, decoded = perfetto_trace.compare(js, pb, out=open(os.devnull, "w"))
    if problems:
        failures.append(f"{label}: the protobuf window differs from the JSON window: {problems[:3]}")
    if len(decoded.slices) != phases["X"]:
        failures.append(f"{label}: the protobuf window has {len(decoded.slices)} slices, expected {phases['X']}")
    perfetto_equivalence.protoc_check(pb, decoded, failures, label)  # when protoc is installed
    print(f"{label}: [{start}, {end}] {dict(phases)}; protobuf {len(decoded.slices)} slices")


def edges(full):
    xs = [ev for ev in full["traceEvents"] if ev["ph"] == "X"]
    return sorted({ev["ts"] for ev in xs} | {ev["ts"] + ev["dur"] for ev in xs})


def off_edge(value, all_edges):
    """A time near `value`, in whole ns (protobuf times are ns), that is no slice
    edge (no ties at the window's ends)."""
    v = round(value, 3) + 0.001
    while any(abs(v - e) < 1e-6 for e in all_edges):
        v += 0.001
    return round(v, 3)


def check_case(dfx, case, label, tmp, failures):
    full_path = os.path.join(tmp, label + "_full.json")
    run([dfx, "swimlane", RECORDS, "-o", full_path, "--overhead"], case)
    full = load(full_path)
    all_edges = edges(full)
    lo, hi = all_edges[0], all_edges[-1]
    span = hi - lo
    s, e = off_edge(lo + 0.35 * span, all_edges), off_edge(lo + 0.55 * span, all_edges)
    check_window(dfx, case, label + "_middle", full, ["--window", f"{s}:{e}"], s, e, tmp, failures)
    # An edge exactly on a slice start (a slice beginning at END is kept).
    starts = sorted(ev["ts"] for ev in full["traceEvents"] if ev["ph"] == "X")
    exact = starts[len(starts) // 2]
    s2 = off_edge(exact - 0.1 * span, all_edges)
    check_window(dfx, case, label + "_edge", full, ["--window", f"{s2}:{exact!r}"], s2, exact, tmp, failures)
    far = int(hi) + 1000
    check_window(dfx, case, label + "_empty", full, ["--window", f"{far}:{far + 500}"], far, far + 500, tmp, failures,
                 empty=True)
    whole = int(hi) + 1
    check_window(dfx, case, label + "_whole", full, ["--window", f"0:{whole}"], 0, whole, tmp, failures)
    if Counter(key(ev) for ev in load(os.path.join(tmp, label + "_whole.json"))["traceEvents"]) != \
            Counter(key(ev) for ev in full["traceEvents"]):
        failures.append(f"{label}: a window over the whole run is not the full trace")
    # --tasks: the time the tasks of an id range span (their slices carrying taskId).
    ids = sorted({ev["args"]["taskId"] for ev in full["traceEvents"] if ev["ph"] == "X" and "taskId" in ev["args"]})
    first, last = ids[len(ids) // 3], ids[len(ids) // 3 + 4]
    mine = [ev for ev in full["traceEvents"] if ev["ph"] == "X" and first <= ev["args"].get("taskId", -1) <= last]
    ts0, ts1 = min(ev["ts"] for ev in mine), max(ev["ts"] + ev["dur"] for ev in mine)
    check_window(dfx, case, label + "_tasks", full, ["--tasks", f"{first}:{last}"], ts0, ts1, tmp, failures)


BAD = [
    (["--window", "5"], "--window"), (["--window", "a:b"], "--window"), (["--window", "10:5"], "--window"),
    (["--window", "-1:5"], "--window"), (["--window", "0:-5"], "--window"), (["--window", ""], "--window"),
    (["--window", "0:99999999999999999999"], "--window"), (["--window", "0:1e999"], "--window"),
    (["--window", "1:2:3"], "--window"), (["--window", "nan:1"], "--window"), (["--window", "1.:2"], "--window"),
    (["--tasks", "9:3"], "--tasks"), (["--tasks", "x"], "--tasks"), (["--tasks", "-1:4"], "--tasks"),
    (["--tasks", "0:99999999999999999999999"], "--tasks"), (["--window", "1:2", "--tasks", "1:2"], "--window"),
]


def check_bad(dfx, case, tmp, failures):
    out = os.path.join(tmp, "bad.json")
    for flags, flag in BAD:
        r = subprocess.run([dfx, "swimlane", RECORDS, "-o", out] + flags, cwd=case, capture_output=True, text=True,
                           check=False, timeout=60)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 2 or len(lines) != 1 or flag not in lines[0] or "error" not in lines[0]:
            failures.append(f"{flags}: exit {r.returncode}, stderr {r.stderr!r}")
        if os.path.exists(out):
            failures.append(f"{flags}: an output file was written")
            os.remove(out)
    print(f"bad flags: {len(BAD)} cases")


def main(argv):
    dfx, conformance, generator = (os.path.abspath(a) for a in argv[1:4])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        check_case(dfx, os.path.join(conformance, "l4_deps"), "l4_deps", tmp, failures)
        check_case(dfx, os.path.join(conformance, "l4_host"), "l4_host", tmp, failures)
        gen = os.path.join(tmp, "variety")
        subprocess.run([sys.executable, generator, "400", gen, "--variety"], check=True, capture_output=True)
        check_case(dfx, gen, "generated_l4_variety", tmp, failures)
        check_bad(dfx, os.path.join(conformance, "l4_deps"), tmp, failures)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
