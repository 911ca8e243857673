#!/usr/bin/env python3
"""The `dfx report` page in headless Chromium (suite convert_report).

Usage: browser_test.py DFX_EXE SOURCE_ROOT

Writes the page with the real dfx for the conformance captures l3_deps and
l1_small, loads each with report_page_probe.js, and fails on any JS error or
fetched resource, a chart not drawn, drawn outside its viewBox or without
axis labels and legend, or sections whose findings and charts differ from
the JSON report of the same directory (the same sentences in the same order;
a utilisation chart when there are records, a width profile when there is a
graph, a ring chart when there are scope stats). Exits 77 (skip) without
Chromium.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

DFX, ROOT = os.path.abspath(sys.argv[1]), Path(sys.argv[2]).resolve()
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(ROOT / "tests" / "browser"))
import chromium_page  # noqa: E402

TEST = "convert_report_browser"
HERE = ROOT / "tests" / "convert_report"
CASES = ["l3_deps", "l1_small"]


def fail(msg):
    chromium_page.fail(TEST, msg)


def main():
    probe = (HERE / "report_page_probe.js").read_text()
    with chromium_page.session(TEST, "dfx-report-browser-") as (browser, tmp):
        for name in CASES:
            src = ROOT / "tests" / "conformance" / name
            page = Path(tmp) / f"{name}.html"
            r = subprocess.run([DFX, "report", str(src), "-o", str(page)], capture_output=True, text=True, timeout=120)
            j = subprocess.run([DFX, "report", str(src), "--format", "json"], capture_output=True, text=True, timeout=120)
            if r.returncode != 0 or j.returncode != 0:
                fail(f"{name}: dfx report exit {r.returncode} / {j.returncode}: {r.stderr}{j.stderr}")
            units = json.loads(j.stdout)["units"]
            try:
                verdict = browser.probe(page, probe, {})
            except chromium_page.ProbeError as e:
                fail(f"{name}: {e}")
            problems = chromium_page.problems(verdict)
            got = verdict["facts"].get("sections", [])
            if len(got) != len(units):
                problems.append(f"{len(got)} sections, expected {len(units)}")
            for g, u in zip(got, units):
                want = [f["text"] for f in u["findings"]]
                if g["findings"] != want:
                    problems.append(f"{u['label']}: findings on the page {g['findings']}\n    expected {want}")
                charts = []
                if u["concurrency"]:
                    charts.append("Utilisation over time")
                if u["graph"]:
                    charts.append("Width profile")
                have_rings = any(t.startswith("Ring ") for t in g["charts"])
                if bool(u["rings"]) != have_rings:
                    problems.append(f"{u['label']}: ring charts {have_rings}, scope stats {bool(u['rings'])}")
                if [t for t in g["charts"] if not t.startswith("Ring ")] != charts:
                    problems.append(f"{u['label']}: charts {g['charts']}, expected {charts} (+ rings)")
            if problems:
                fail(f"{name} ({page}):\n  " + "\n  ".join(problems))
            print(f"ok {name}: {len(got)} sections, charts {[g['charts'] for g in got]}")


if __name__ == "__main__":
    main()
