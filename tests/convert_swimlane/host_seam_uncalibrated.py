#!/usr/bin/env python3
"""Conformance of the causal-composite layout (spec chip-swimlane.md §4.5).

When a host-orchestrated capture's clock anchors do not calibrate, device times are
laid after the host span: us(c) = host_composite_end_us + (c - base) * 1e6 / freq, where
host_composite_end_us = (max host ts - origin) / 1000 and the "host timestamps" are only
the start/end of `host_orchestrator_phases` records; `host_device_uploads` do not count,
even when they end after the last submit.

The capture is the l4_host conformance case with its clock anchors removed (status
"unaligned", reason missing_clock_anchors). Its uploads end ~10 us after the last submit,
so counting them moves every device event. Three checks, each run twice (with the
recorded `host_orchestration_origin_ns`, and without it, where the origin falls back to
the earliest orchestrator timestamp):

  1. metadata: layout causal_composite, logical_seam_us = the rule's value;
  2. every Worker View task slice, Scheduler View dispatch slice and scheduler phase
     slice sits at the time the rule gives, computed here from the records alone;
  3. event for event (compare_trace.py), the trace equals the trace of the same capture
     whose uploads were moved to end before the last submit, apart from the uploads'
     own slices: where the uploads end must not move anything else.

Usage: host_seam_uncalibrated.py DFX CONFORMANCE_DIR
"""

import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_trace  # noqa: E402

UPLOAD_TRACK = (1, 4100)  # pid "Host Prepare", tid H2D: the uploads' own slices
MARKERS = ("dummy_task", "predicated_skip")  # scheduler phases drawn as task markers


def host_orch_timestamps(records):
    return [ns for lane in records["host_orchestrator_phases"] for r in lane
            for ns in (r["start_host_ns"], r["end_host_ns"])]


def expected_layout(records):
    """(logical_seam_us, us) by the spec's rule, from the records alone."""
    meta = records["metadata"]
    host = host_orch_timestamps(records)
    origin = meta.get("host_orchestration_origin_ns") or min(host)
    seam = (max(host) - origin) / 1000.0
    cycles = []  # spec §2.9 step 3: the time base
    for core, _tok, _reg, start, end, *rest in records["aicore_tasks"]:
        cycles += [start - (rest[0] if rest else 0), end]
    for _core, _reg, dispatch, finish in records["aicpu_tasks"]:
        cycles += [dispatch, finish]
    for lane in records.get("aicpu_scheduler_phases") or []:
        for p in lane:
            cycles += [p["start_cycles"], p["end_cycles"]]
    base = min(c for c in cycles if c > 0)
    freq = meta["clock_freq_hz"]

    def us(c):
        return 0.0 if c <= 0 else seam + (c - base) * 1e6 / freq
    return seam, us


def expected_device_slices(records, us):
    """Multiset keys (pid, tid, taskId or phase, ts, dur) of the seam-dependent slices."""
    out = []
    aicore = {(row[0], row[2]): row for row in records["aicore_tasks"]}
    for core, reg, dispatch, finish in records["aicpu_tasks"]:
        row = aicore.get((core, reg))
        if row is None:
            continue
        token, end = row[1], row[4]
        receive = row[3] - (row[5] if len(row) > 5 else 0)  # a Worker View slice starts at receive
        out.append((4, 10000 + 10 * core, token, round(us(receive), 3), round(us(end) - us(receive), 3)))
        out.append((3, 10000 + 10 * core, token, round(us(dispatch), 3), round(us(finish) - us(dispatch), 3)))
    for thread, lane in enumerate(records.get("aicpu_scheduler_phases") or []):
        for p in lane:
            kind = p.get("kind", "unknown")
            start, end = us(p["start_cycles"]), us(p["end_cycles"])
            # Task markers sit on the thread's AICPU lane of the Worker View (spec §4.4) ...
            if kind in MARKERS:  # ... with a minimum width
                out.append((4, 19000 + thread, kind, round(start, 3), round(max(end - start, 0.02), 3)))
            else:
                out.append((2, 30000 + 10 * thread, kind, round(start, 3), round(end - start, 3)))
    return sorted(out)


def actual_device_slices(trace):
    out = []
    for ev in trace["traceEvents"]:
        if ev.get("ph") != "X":
            continue
        pid, tid, args = ev.get("pid"), ev.get("tid"), ev.get("args", {})
        ts, dur = round(ev["ts"], 3), round(ev["dur"], 3)
        if pid in (3, 4) and 10000 <= tid < 19000:
            # A core's Scheduler View has a second lane (tid + 1) for overlapping windows.
            out.append((pid, tid - tid % 10, args["taskId"], ts, dur))
        elif (pid == 2 and tid >= 30000) or (pid == 4 and 19000 <= tid < 20000 and args.get("phase") in MARKERS):
            out.append((pid, tid, args.get("phase"), ts, dur))
    return sorted(out)


def convert(dfx, case, records, workdir, name):
    """Writes the capture beside the case's deps.json and name map; returns the trace path."""
    d = os.path.join(workdir, name)
    os.makedirs(d)
    for f in os.listdir(case):
        if f.endswith(".json") and f != "chip_swimlane_records.json":
            shutil.copy(os.path.join(case, f), d)
    with open(os.path.join(d, "chip_swimlane_records.json"), "w", encoding="utf-8") as f:
        json.dump(records, f)
    out = os.path.join(d, "merged_swimlane.json")
    run = subprocess.run([dfx, "swimlane", "chip_swimlane_records.json", "-o", out],
                         cwd=d, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise SystemExit(f"{name}: dfx swimlane exited {run.returncode}:\n{run.stderr}")
    return out


def without_upload_slices(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    doc["traceEvents"] = [e for e in doc["traceEvents"]
                          if not (e.get("ph") == "X" and (e.get("pid"), e.get("tid")) == UPLOAD_TRACK)]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    return path


def check(dfx, case, records, workdir, label):
    failures = []
    host = host_orch_timestamps(records)
    uploads = records["host_device_uploads"]
    last_upload = max(u["end_host_ns"] for u in uploads)
    # The capture must exercise the rule: uploads ending after the last submit.
    assert last_upload > max(host), f"{label}: the uploads must end after the last submit"

    seam, us = expected_layout(records)
    out = convert(dfx, case, records, workdir, label)
    with open(out, encoding="utf-8") as f:
        trace = json.load(f)
    meta = trace.get("metadata", {})
    if meta.get("layout") != "causal_composite" or meta.get("clock_alignment", {}).get("status") != "unaligned":
        failures.append(f"{label}: expected an unaligned causal_composite layout, got {meta}")
    if round(meta.get("logical_seam_us", -1.0), 3) != round(seam, 3):
        failures.append(f"{label}: logical_seam_us {meta.get('logical_seam_us')}, the rule gives {seam:.3f}")

    expected, actual = expected_device_slices(records, us), actual_device_slices(trace)
    if expected != actual:
        wrong = [(e, a) for e, a in zip(expected, actual) if e != a]
        failures.append(f"{label}: {len(wrong) or abs(len(expected) - len(actual))} of {len(expected)} device "
                        f"slices off the rule, first: expected {wrong[:1] or expected[:1]}")
    else:
        print(f"{label}: logical_seam_us {seam:.3f}; {len(expected)} device slices where the rule puts them")

    # Uploads moved to end 1 ns before the last submit (and still after the origin).
    early = copy.deepcopy(records)
    shift = last_upload - max(host) + 1
    for u in early["host_device_uploads"]:
        u["start_host_ns"] -= shift
        u["end_host_ns"] -= shift
    early_out = convert(dfx, case, early, workdir, label + "_early_uploads")
    if compare_trace.main(["compare_trace", without_upload_slices(early_out), without_upload_slices(out)]) != 0:
        failures.append(f"{label}: moving the uploads' end moved other events")
    return failures


def main(argv):
    dfx, conformance = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    case = os.path.join(conformance, "l4_host")
    with open(os.path.join(case, "chip_swimlane_records.json"), encoding="utf-8") as f:
        records = json.load(f)
    del records["metadata"]["clock_anchors"]  # -> unaligned: missing_clock_anchors

    no_origin = copy.deepcopy(records)
    del no_origin["metadata"]["host_orchestration_origin_ns"]

    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        failures += check(dfx, case, records, tmp, "recorded_origin")
        failures += check(dfx, case, no_origin, tmp, "origin_from_submits")
    for f in failures:
        print("FAILED: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
