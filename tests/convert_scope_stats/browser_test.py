#!/usr/bin/env python3
"""The `dfx scope-stats` report in headless Chromium (suite convert_scope_stats).

Usage: browser_test.py DFX_EXE SOURCE_ROOT

Writes the report with the real dfx from the spec's example
(tests/convert_scope_stats/spec_example: one scope per ring, so every panel
starts closed) and the reference's file (tests/conformance/l3_deps: several
scopes per ring), loads each with scope_stats_page_probe.js, and fails on any
JS error or fetched resource, a chart not drawn or with a coordinate outside
its viewBox, or panels that differ from the ones derived here from the jsonl
(one per resource per ring with scopes, each with a high-water/live chart and
an alloc chart of one point per scope, plus the global tensormap panel).
The page has no script, so there are no keys to press. Exits 77 (skip)
without Chromium.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

DFX, ROOT = os.path.abspath(sys.argv[1]), Path(sys.argv[2]).resolve()
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(ROOT / "tests" / "browser"))
import chromium_page  # noqa: E402

TEST = "convert_scope_stats_browser"
HERE = ROOT / "tests" / "convert_scope_stats"
CASES = [
    ("spec_example", HERE / "spec_example" / "scope_stats.jsonl"),
    ("l3_deps", ROOT / "tests" / "conformance" / "l3_deps" / "scope_stats" / "scope_stats.jsonl"),
]
RESOURCES = ["task_window", "heap", "dep_pool"]


def fail(msg):
    chromium_page.fail(TEST, msg)


def expected_panels(jsonl):
    """[(summary prefix, open at load, points per line per chart)], from the spec's pairing rule:
    per ring and site, last in first out; a resource counts when the end record carries it."""
    records = [json.loads(line) for line in jsonl.read_text().splitlines()[1:] if line.strip()]
    stacks, ends = {}, []
    for r in records:
        stack = stacks.setdefault((r["ring"], r["site"]), [])
        if r["phase"] == "begin":
            stack.append(r)
        elif stack:
            stack.pop()
            ends.append(r)
    panels = []
    for res in RESOURCES:
        for ring in range(4):
            n = sum(1 for e in ends if e["ring"] == ring and f"{res}_start" in e)
            if n:
                panels.append((f"{res} \u00b7 ring_depth {ring} \u00b7 {n} scopes \u00b7 peak ", n > 1, [[n, n], [n]]))
    n = sum(1 for e in ends if "tensormap" in e)
    if n:
        panels.append(("tensormap \u00b7 global \u00b7 peak ", n > 1, [[n]]))
    return panels


def main():
    probe = (HERE / "scope_stats_page_probe.js").read_text()
    with chromium_page.session(TEST, "dfx-scope-browser-") as (browser, tmp):
        for name, jsonl in CASES:
            out = Path(tmp) / name
            out.mkdir()
            r = subprocess.run([DFX, "scope-stats", str(jsonl), "--out-dir", str(out)], capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                fail(f"{name}: dfx scope-stats exit {r.returncode}: {r.stderr}")
            page = out / "scope_stats.html"
            started = time.monotonic()
            try:
                verdict = browser.probe(page, probe, {"title": f"scope_stats: {jsonl.name}"})
            except chromium_page.ProbeError as e:
                fail(f"{name}: {e}")
            problems = chromium_page.problems(verdict)
            got = verdict["facts"].get("panels", [])
            want = expected_panels(jsonl)
            if len(got) != len(want):
                problems.append(f"{len(got)} panels, expected {len(want)}: " +
                                "; ".join(g["summary"] for g in got))
            for i, (g, (prefix, opened, lines)) in enumerate(zip(got, want)):
                where = f"panel {i + 1}"
                if not g["summary"].startswith(prefix):
                    problems.append(f"{where}: summary {g['summary']!r}, expected it to start {prefix!r}")
                if g["open_at_load"] != opened:
                    problems.append(f"{where} ({prefix.strip()}): open at load {g['open_at_load']}, expected {opened}")
                got_lines = [c["lines"] for c in g["charts"]]
                if got_lines != lines:
                    problems.append(f"{where} ({prefix.strip()}): points per line per chart {got_lines}, expected {lines}")
            if problems:
                fail(f"{name} ({page}):\n  " + "\n  ".join(problems))
            charts = sum(len(g["charts"]) for g in got)
            print(f"ok {name}: {len(got)} panels, {charts} charts drawn, viewport "
                  f"{verdict['facts']['viewport'][0]}x{verdict['facts']['viewport'][1]} [{time.monotonic() - started:.1f} s]")


if __name__ == "__main__":
    main()
