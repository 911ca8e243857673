#!/usr/bin/env python3
"""The `dfx compare` page in headless Chromium (suite convert_report).

Usage: compare_browser_test.py DFX_EXE SOURCE_ROOT

Writes the page with the real dfx for two pairs of conformance captures (two
different runs with --fail-if gates, and a run against itself), loads each
with compare_page_probe.js, and fails on any JS error or fetched resource, a
missing panel, a chart drawn outside its viewBox or without axis label,
ticks and legend, or a page whose numbers differ from the text output of the
same comparison: the count of significant changes, one bar per significant
row with a non-zero A (its label and percentage), every table cell, the
significant rows marked, and the --fail-if verdicts. Exits 77 (skip)
without Chromium.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

DFX, ROOT = os.path.abspath(sys.argv[1]), Path(sys.argv[2]).resolve()
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(ROOT / "tests" / "browser"))
import chromium_page  # noqa: E402

TEST = "convert_compare_browser"
HERE = ROOT / "tests" / "convert_report"
GATES = ["--fail-if", "makespan>+5%", "--fail-if", "graph.tasks>+0", "--fail-if", "kernel:*.p50<-50%"]
CASES = [
    ("two_runs", ["tests/conformance/l3_deps", "tests/conformance/l4_deps", *GATES]),
    ("same_run", ["tests/conformance/l3_deps", "tests/conformance/l3_deps"]),
]


def fail(msg):
    chromium_page.fail(TEST, msg)


def compare(args, *extra):
    p = subprocess.run([DFX, "compare", *args, *extra], cwd=ROOT, capture_output=True, text=True, timeout=120)
    if p.returncode not in (0, 3):  # 3: a --fail-if gate was violated, the output is still whole
        fail(f"dfx compare {' '.join(args)} {' '.join(extra)}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def text_summary(text):
    """What the text output says: header, rows (11 cells each, section "." when the table has no
    section column), the count of significant changes and the --fail-if lines."""
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if re.match(r"(section\s+)?measure\s", line))
    header = lines[head].split()
    rows = []
    for line in lines[head + 1: lines.index("", head)]:
        cells = line.split(None, len(header) - 1)
        if len(cells) != len(header):
            fail(f"cannot split the text row {line!r} into {len(header)} columns")
        rows.append(cells if header[0] == "section" else [".", *cells])
    m = re.search(r"^(\d+) significant changes? ", text, re.M)
    if not m:
        fail(f"no 'N significant changes' line in the text output:\n{text}")
    gates = [line[len("--fail-if "):] for line in lines if line.startswith("--fail-if ")]
    return header, rows, int(m.group(1)), gates


def check_page(name, verdict, text):
    problems = chromium_page.problems(verdict)
    facts = verdict["facts"]
    header, rows, significant, gates = text_summary(text)
    if significant == 0 and name == "two_runs":
        problems.append("two different runs and nothing significant: the case does not exercise the chart")
    want_heading = f"{significant} significant change{'' if significant == 1 else 's'}"
    if want_heading not in facts.get("headings", []):
        problems.append(f"headings {facts.get('headings')}, expected {want_heading!r}")
    page_rows = facts.get("rows", [])
    if [h.lower() for h in facts.get("header", [])] != ["section"] * (header[0] != "section") + [h.lower() for h in header]:
        problems.append(f"table header {facts.get('header')}, text header {header}")
    if len(page_rows) != len(rows):
        problems.append(f"{len(page_rows)} table rows on the page, {len(rows)} in the text")
    for got, want in zip(page_rows, rows):
        if got["cells"] != want:
            problems.append(f"row {want[:2]}: page {got['cells']}\n    text {want}")
        if (got["cls"] == "sig") != (want[7] == "SIG"):
            problems.append(f"row {want[:2]}: class {got['cls']!r}, text sig {want[7]}")
    # One bar per significant row with a ratio, in table order, its percentage the ratio's.
    want_bars = [(r, (float(r[6]) - 1) * 100) for r in rows if r[7] == "SIG" and r[6] != "-"]
    bars = facts.get("bars", [])
    if [b["label"] for b in bars] != [(r[1] if r[0] == "." else f"{r[0]} {r[1]}") for r, _ in want_bars]:
        problems.append(f"bars {[b['label'] for b in bars]}, significant rows {[r[1] for r, _ in want_bars]}")
    for b, (r, pct) in zip(bars, want_bars):
        got = float(b["pct"].rstrip("%"))
        if abs(got - pct) > 0.1 or b["up"] != (got >= 0):
            problems.append(f"bar {b['label']}: {b['pct']} ({'up' if b['up'] else 'down'}), text ratio {r[6]}")
    if not want_bars and not facts.get("no_chart_note"):
        problems.append("no significant change with a ratio, and no note saying there is nothing to chart")
    if facts.get("fail_if", []) != gates:
        problems.append(f"--fail-if on the page {facts.get('fail_if')}, in the text {gates}")
    if "--fail-if" in CASES[0][1] and name == "two_runs" and not gates:
        problems.append("gates given but no --fail-if verdict in the text")
    return problems, significant, len(bars)


def main():
    probe = (HERE / "compare_page_probe.js").read_text()
    with chromium_page.session(TEST, "dfx-compare-browser-") as (browser, tmp):
        for name, args in CASES:
            page = Path(tmp) / f"{name}.html"
            compare(args, "--format", "html", "-o", str(page))
            text = compare(args)
            try:
                verdict = browser.probe(page, probe, {})
            except chromium_page.ProbeError as e:
                fail(f"{name}: {e}")
            problems, significant, bars = check_page(name, verdict, text)
            if problems:
                fail(f"{name} ({page}):\n  " + "\n  ".join(problems))
            print(f"ok {name}: {len(verdict['facts']['rows'])} rows, {significant} significant, {bars} bars")


if __name__ == "__main__":
    main()
