#!/usr/bin/env python3
"""End-to-end tests of `dfx report` (docs/report.md).

Usage: cli_tests.py TEST_NAME DFX_EXE DFX_SIM_EXE SOURCE_ROOT

Goldens (tests/convert_report/golden/) are the report's text on the
reference conformance captures, produced by dfx report and reviewed by hand
against the numbers of `dfx sched-overhead` / `dfx critical-path` and the
inputs. The dfx-sim tests change one knob where the answer is known.
Set DFX_UPDATE_GOLDEN=1 to rewrite the goldens (then review the diff).
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import scratch_dirs  # noqa: E402

TEST, DFX, SIM, ROOT = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
CONF = ROOT / "tests" / "conformance"
GOLDEN = ROOT / "tests" / "convert_report" / "golden"


def fail(msg):
    print(f"FAIL [{TEST}]: {msg}")
    sys.exit(1)


def run(args, cwd=ROOT):
    return subprocess.run([DFX, "report", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def sim(work, *flags):
    p = subprocess.run([SIM, "--work-dir", str(work), *flags], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"dfx-sim {' '.join(flags)} failed ({p.returncode}): {p.stderr}")
    return work / "dfx_outputs"


def json_report(args):
    p = run([*args, "--format", "json"])
    if p.returncode != 0:
        fail(f"dfx report {' '.join(args)} --format json: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def workdir():
    return scratch_dirs.make("dfx-report-test-")


def findings_of(text):
    """The numbered findings lines of every section, without the impact."""
    return [re.sub(r"\s+\([^()]*\)$", "", line.split("] ", 1)[1]) for line in text.splitlines() if re.match(r"\s*\d+\. \[", line)]


def golden(name, args):
    p = run(args)
    if p.returncode != 0:
        fail(f"exit {p.returncode}: {p.stderr}")
    path = GOLDEN / name
    if os.environ.get("DFX_UPDATE_GOLDEN"):
        path.write_text(p.stdout)
    want = path.read_text()
    got_lines, want_lines = p.stdout.splitlines(), want.splitlines()
    for i, (a, b) in enumerate(zip(got_lines, want_lines)):
        if a != b:
            fail(f"{name}: line {i + 1} differs:\n  got:  {a!r}\n  want: {b!r}")
    if len(got_lines) != len(want_lines):
        fail(f"{name}: {len(got_lines)} lines, expected {len(want_lines)}")


def test_golden_l3_deps():
    golden("l3_deps.txt", ["tests/conformance/l3_deps"])


def test_golden_l1_small():
    golden("l1_small.txt", ["tests/conformance/l1_small", "--top", "3"])


def test_json_matches_text():
    text = run(["tests/conformance/l3_deps"]).stdout
    p = run(["tests/conformance/l3_deps", "--format", "json", "--top", "2"])
    if p.returncode != 0:
        fail(p.stderr)
    doc = json.loads(p.stdout)
    unit = doc["units"][0]
    if [f["text"] for f in unit["findings"]] != findings_of(text):
        fail("json findings differ from the text's")
    if len(unit["kernels"]) != 2 or unit["kernels"][0]["name"] != "gemm":
        fail(f"--top 2: {unit['kernels']}")
    if unit["pmu"] is not None or not any("--enable-pmu 2" in g for g in unit["gaps"]):
        fail("pmu.csv is missing: pmu null and a gap naming --enable-pmu 2")
    if unit["graph"]["tasks"] != 125 or unit["concurrency"]["scheduler_overhead"]["verdict"] != "partially_scheduler_limited":
        fail(f"graph / verdict: {unit['graph']['tasks']} {unit['concurrency']['scheduler_overhead']}")


def test_sim_ring_task_window():
    """fanout stalls on ring 2's task window at 4 slots; at 128 it has room (its high water is 96)."""
    w = workdir()
    small = sim(w / "w4", "--workload", "fanout", "--enable-chip-swimlane", "--chip-swimlane-level", "3",
                "--enable-dep-gen", "--enable-scope-stats", "--ring-task-window", "4")
    p = run([str(small)])
    first = findings_of(p.stdout)[0] if findings_of(p.stdout) else ""
    if not first.startswith("Ring 2 task_window was full") or "raise ring_task_window above 4 (try 8" not in first:
        fail(f"window 4: the first finding should name ring 2's task window and the knob:\n{p.stdout}")
    doc = json_report([str(small)])
    peak = [r for r in doc["units"][0]["rings"]["peaks"] if r["ring"] == 2 and r["resource"] == "task_window"][0]
    if peak["state"] != "full" or peak["knob"] != "ring_task_window" or peak["suggested"] != 8:
        fail(f"window 4: {peak}")
    big = sim(w / "w128", "--workload", "fanout", "--enable-chip-swimlane", "--chip-swimlane-level", "3",
              "--enable-dep-gen", "--enable-scope-stats", "--ring-task-window", "128")
    p = run([str(big)])
    if "No ring reached its capacity" not in p.stdout or "was full" in p.stdout:
        fail(f"window 128: the rings should fit:\n{p.stdout}")
    shutil.rmtree(w)


def test_sim_scheduler_verdict():
    """Level 3 with deps.json gives the verdict; level 2 names the level that would."""
    w = workdir()
    l3 = sim(w / "l3", "--workload", "spmd", "--enable-chip-swimlane", "--chip-swimlane-level", "3", "--enable-dep-gen")
    doc = json_report([str(l3)])["units"][0]
    v = doc["concurrency"]["scheduler_overhead"]
    if v is None or v["verdict"] not in ("scheduler_bound", "partially_scheduler_limited", "compute_or_dependency_bound"):
        fail(f"level 3: no verdict: {v}")
    if not any(f["area"] == "scheduler" and "for dispatch" in f["text"] for f in doc["findings"]):
        fail("level 3: no scheduler verdict finding")
    l2 = sim(w / "l2", "--workload", "spmd", "--enable-chip-swimlane", "--chip-swimlane-level", "2", "--enable-dep-gen")
    doc = json_report([str(l2)])["units"][0]
    if doc["concurrency"]["scheduler_overhead"] is not None or doc["concurrency"]["pickup_gap"] is None:
        fail("level 2: pickup gap but no verdict")
    if not any("--chip-swimlane-level 3" in g for g in doc["gaps"]):
        fail(f"level 2: the gap should name --chip-swimlane-level 3: {doc['gaps']}")
    shutil.rmtree(w)


def test_sim_l3_tree():
    """--chips 2: one section per rank<r>/d<k>, none for the root (it holds only the ranks)."""
    w = workdir()
    out = sim(w, "--workload", "chain", "--chips", "2", "--enable-chip-swimlane", "--chip-swimlane-level", "2")
    doc = json_report([str(out)])
    labels = [u["label"] for u in doc["units"]]
    want = sorted(str(p.relative_to(out)) for p in out.glob("rank*/d*"))
    if labels != want or len(labels) != 4:
        fail(f"sections {labels}, expected {want}")
    text = run([str(out)]).stdout
    if text.count("== rank") != 4:
        fail("text: one heading per dispatch")
    shutil.rmtree(w)


def test_missing_artefacts():
    w = workdir()
    shutil.copy(CONF / "l3_deps" / "deps.json", w / "deps.json")
    p = run([str(w)])
    if p.returncode != 0:
        fail(p.stderr)
    for flag in ("--enable-chip-swimlane", "--enable-scope-stats", "--enable-pmu 2"):
        if flag not in p.stdout:
            fail(f"missing artefact not named with {flag}:\n{p.stdout}")
    if "tasks 125  edges 283" not in p.stdout:
        fail("the graph section from deps.json alone")
    shutil.rmtree(w)


def test_bad_input():
    w = workdir()
    (w / "deps.json").write_text('{"edges": [{"pred": 1.5, "succ": 2}]}')
    p = run([str(w)])
    lines = p.stderr.strip().splitlines()
    if p.returncode != 1 or len(lines) != 1 or "deps.json" not in lines[0] or not lines[0].startswith("dfx report: error:"):
        fail(f"bad deps.json: exit {p.returncode}, stderr {p.stderr!r}")
    (w / "deps.json").unlink()
    p = run([str(w)])
    if p.returncode != 1 or "no artefact to report on" not in p.stderr or "--enable-dep-gen" not in p.stderr:
        fail(f"empty directory: exit {p.returncode}, {p.stderr!r}")
    shutil.rmtree(w)


def test_usage_errors():
    cases = [
        (["/nonexistent/dfx_outputs"], "no such directory"),
        ([str(CONF / "l3_deps" / "deps.json")], "not a directory"),
        (["tests/conformance/l3_deps", "--format", "pdf"], "--format"),
        (["tests/conformance/l3_deps", "--top", "-1"], "--top"),
        ([], "dir"),
    ]
    for args, needle in cases:
        p = run(args)
        lines = p.stderr.strip().splitlines()
        if p.returncode != 2 or len(lines) != 1 or needle not in lines[0]:
            fail(f"{args}: exit {p.returncode}, stderr {p.stderr!r}")


def test_html_page():
    w = workdir()
    page = w / "r.html"
    p = run(["tests/conformance/l3_deps", "-o", str(page)])
    if p.returncode != 0 or not page.exists():
        fail(f"-o x.html: {p.returncode} {p.stderr}")
    html = page.read_text()
    for needle in ("<svg", "Utilisation over time", "Width profile", "busy cores of the type (%)", "tasks at the level",
                   "high water per scope"):
        if needle not in html:
            fail(f"page lacks {needle!r}")
    if re.search(r"<script|\bsrc=|https?://", html):
        fail("the page must not load anything")
    text_findings = findings_of(p.stdout)
    for f in text_findings:
        esc = f.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        if esc not in html:
            fail(f"finding not on the page: {f}")
    default = run(["tests/conformance/l1_small", "--format", "html", "-o", str(w / "x.out")])
    if default.returncode != 0 or "<svg" not in (w / "x.out").read_text():
        fail("--format html -o FILE")
    shutil.rmtree(w)


TESTS = {name[5:]: fn for name, fn in globals().items() if name.startswith("test_")}
if TEST not in TESTS:
    fail(f"unknown test {TEST}")
TESTS[TEST]()
print(f"ok [{TEST}]")
