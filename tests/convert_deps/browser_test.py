#!/usr/bin/env python3
"""The `dfx deps --format html` page in headless Chromium (suite convert_deps).

Usage: browser_test.py DFX_EXE SOURCE_ROOT

Writes pages with the real dfx from the spec example (wide and tall layouts,
the reduced mode's edge layers, tensor rows) and a conformance case, loads
each with tests/convert_deps/deps_page_probe.js and fails on any JS error, a
fetched resource, a wrong node / edge / SPMD badge count, a first view that is
not a fit (or, for a generated graph of 2,000 tasks, not at a readable label
size), keys f and r that do not fit / reset the actual CSS transform, a
click that does not open the task panel (with the task's run time when
records lie beside deps.json), or an emoji marker. The 2,000-task graph is
drawn as its critical path and neighbours: the path length the tool reports
is checked against a longest-path count made here from deps.json.
Exits 77 (skip) without Chromium.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

DFX, ROOT = os.path.abspath(sys.argv[1]), Path(sys.argv[2]).resolve()
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(ROOT / "tests" / "browser"))
import chromium_page  # noqa: E402

TEST = "convert_deps_browser"
HERE = ROOT / "tests" / "convert_deps"
CONF = ROOT / "tests" / "conformance"

GENERATED = "generated"  # a source directory made with bench/gen_deps_json.py
GENERATED_TASKS = 2000

# name, source directory, dfx deps arguments (writes page.html), expected nodes, edges, SPMD badges
CASES = [
    ("spec_example LR", HERE / "spec_example", ["--format", "html"], 3, 3, 1),
    ("spec_example TB", HERE / "spec_example", ["--format", "html", "--direction", "TB"], 3, 3, 1),
    ("spec_example reduced sfdp", HERE / "spec_example", ["--format", "html", "--edge-mode", "reduced", "--engine", "sfdp"], 3, 3, 1),
    ("spec_example tensor rows", HERE / "spec_example", ["--format", "html", "--show-tensor-info"], 3, 3, 1),
    ("l4_deps", CONF / "l4_deps", ["--format", "html"], None, None, None),
    ("generated 2000 sfdp", GENERATED, ["--format", "html", "--engine", "sfdp"], None, None, None),
]


def longest_chain(deps_json):
    """Tasks on the longest path by count through deps.json's edges (Kahn's order)."""
    doc = json.loads(Path(deps_json).read_text())
    pairs = {(int(e["pred"]), int(e["succ"])) for e in doc["edges"]}
    nodes = {n for p in pairs for n in p} | {int(t["task_id"]) for t in doc["tasks"]}
    succs, indeg = {n: [] for n in nodes}, {n: 0 for n in nodes}
    for p, q in pairs:
        succs[p].append(q)
        indeg[q] += 1
    ready = [n for n in nodes if indeg[n] == 0]
    depth = {n: 1 for n in nodes}
    while ready:
        n = ready.pop()
        for q in succs[n]:
            depth[q] = max(depth[q], depth[n] + 1)
            indeg[q] -= 1
            if indeg[q] == 0:
                ready.append(q)
    return max(depth.values())


def fail(msg):
    chromium_page.fail(TEST, msg)


def write_page(name, src, args, tmp):
    d = tmp / re.sub(r"\W+", "_", name)
    if src == GENERATED:
        d.mkdir()
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen_deps_json.py"), str(GENERATED_TASKS), str(d / "deps.json")],
                       check=True, timeout=120)
    else:
        shutil.copytree(src, d)
    for p in d.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    r = subprocess.run([DFX, "deps", "deps.json", *args, "-o", "page.html"], cwd=d, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        fail(f"{name}: dfx deps exit {r.returncode}: {r.stderr}")
    # "Wrote page.html (N nodes, M edges, ..." or "(N nodes, M visible edges, K layout edges, ..."
    m = re.search(r"\((\d+) nodes, (\d+) (?:edges|visible edges, (\d+) layout edges)", r.stdout)
    if not m:
        fail(f"{name}: unexpected dfx stdout {r.stdout!r}")
    nodes, shown, layout = int(m.group(1)), int(m.group(2)), int(m.group(3) or m.group(2))
    page = d / "page.html"
    text = page.read_text()
    spmd = re.search(r"const spmdBlocks = (\{.*?\});", text)
    badges = len(json.loads(spmd.group(1))) if spmd else 0
    title = f"deps.json \u2014 {nodes} nodes, {shown} edges"
    expect = {"nodes": nodes, "edges": layout, "badges": badges, "title": title, "first_view": None,
              "ran": (d / "chip_swimlane_records.json").exists()}
    # Over --max-nodes (default 1000): the critical path and its neighbours.
    m = re.search(r"the page draws (\d+) tasks: the (?:critical path \((\d+) tasks|first \d+ of the critical path's (\d+))",
                  r.stderr)
    if src == GENERATED:
        if not m:
            fail(f"{name}: {nodes} tasks drawn whole, expected the critical path; stderr {r.stderr!r}")
        path = int(m.group(2) or m.group(3))
        if path != longest_chain(d / "deps.json"):
            fail(f"{name}: dfx reports a critical path of {path} tasks, the longest chain here has {longest_chain(d / 'deps.json')}")
        drawn = int(m.group(1))
        if not path <= drawn <= 1000 or len(json.loads(re.search(r"const depStats = (\{.*?\});\n", text).group(1))) != drawn:
            fail(f"{name}: {drawn} tasks drawn for a path of {path}, at most 1000, one panel entry each")
        expect.update(nodes=drawn, edges=None, first_view="readable")
    elif m:
        fail(f"{name}: a small graph drawn in part: {r.stderr!r}")
    return page, expect


def main():
    probe = (HERE / "deps_page_probe.js").read_text()
    with chromium_page.session(TEST, "dfx-deps-browser-") as (browser, tmp):
        for name, src, args, want_nodes, want_edges, want_badges in CASES:
            page, expect = write_page(name, src, args, Path(tmp))
            # Hand-known counts where there are some; the tool's own report elsewhere.
            for what, want, got in [("nodes", want_nodes, expect["nodes"]), ("edges", want_edges, expect["edges"]),
                                    ("SPMD blocks", want_badges, expect["badges"])]:
                if want is not None and got != want:
                    fail(f"{name}: dfx reports {got} {what}, expected {want}")
            started = time.monotonic()
            try:
                verdict = browser.probe(page, probe, expect)
            except chromium_page.ProbeError as e:
                fail(f"{name}: {e}")
            problems = chromium_page.problems(verdict)
            if problems:
                fail(f"{name} ({page.name}, {' '.join(args)}):\n  " + "\n  ".join(problems))
            f = verdict["facts"]
            print(f"ok {name}: {f['nodes']} nodes, {f['edges']} edges, {len(f['badges'])} badges, first view {f['first_view']}; "
                  f"stage {f['stage'][0]}x{f['stage'][1]}; load/f scale {f['initial']['scale']:.4g} "
                  f"at ({f['initial']['tx']:.1f}, {f['initial']['ty']:.1f}), r scale {f['after_r']['scale']:g} "
                  f"at ({f['after_r']['tx']:g}, {f['after_r']['ty']:g}) [{time.monotonic() - started:.1f} s]")


if __name__ == "__main__":
    main()
