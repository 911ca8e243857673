#!/usr/bin/env python3
"""The `dfx deps --format html` page in headless Chromium (suite convert_deps).

Usage: browser_test.py DFX_EXE SOURCE_ROOT

Writes pages with the real dfx from the spec example (wide and tall layouts,
the reduced mode's edge layers, tensor rows) and a conformance case, loads
each with tests/convert_deps/deps_page_probe.js and fails on any JS error, a
fetched resource, a wrong node / edge / SPMD badge count, a first view that is
not a fit, keys f and r that do not fit / reset the actual CSS transform, or
a click that does not open the task panel. Exits 77 (skip) without Chromium.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DFX, ROOT = os.path.abspath(sys.argv[1]), Path(sys.argv[2]).resolve()
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(ROOT / "tests" / "browser"))
import chromium_page  # noqa: E402

TEST = "convert_deps_browser"
HERE = ROOT / "tests" / "convert_deps"
CONF = ROOT / "tests" / "conformance"

# name, source directory, dfx deps arguments (writes page.html), expected nodes, edges, SPMD badges
CASES = [
    ("spec_example LR", HERE / "spec_example", ["--format", "html"], 3, 3, 1),
    ("spec_example TB", HERE / "spec_example", ["--format", "html", "--direction", "TB"], 3, 3, 1),
    ("spec_example reduced sfdp", HERE / "spec_example", ["--format", "html", "--edge-mode", "reduced", "--engine", "sfdp"], 3, 3, 1),
    ("spec_example tensor rows", HERE / "spec_example", ["--format", "html", "--show-tensor-info"], 3, 3, 1),
    ("l4_deps", CONF / "l4_deps", ["--format", "html"], None, None, None),
]


def fail(msg):
    print(f"FAIL [{TEST}]: {msg}")
    sys.exit(1)


def write_page(name, src, args, tmp):
    d = tmp / re.sub(r"\W+", "_", name)
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
    spmd = re.search(r"const spmdBlocks = (\{.*?\});", page.read_text())
    badges = len(json.loads(spmd.group(1))) if spmd else 0
    title = f"deps.json \u2014 {nodes} nodes, {shown} edges"
    return page, nodes, layout, badges, title


def main():
    exe = chromium_page.chromium_or_skip(TEST)
    probe = (HERE / "deps_page_probe.js").read_text()
    with tempfile.TemporaryDirectory(prefix="dfx-deps-browser-") as tmp, chromium_page.Chromium(exe) as browser:
        for name, src, args, want_nodes, want_edges, want_badges in CASES:
            page, nodes, edges, badges, title = write_page(name, src, args, Path(tmp))
            # Hand-known counts where there are some; the tool's own report elsewhere.
            for what, want, got in [("nodes", want_nodes, nodes), ("edges", want_edges, edges), ("SPMD blocks", want_badges, badges)]:
                if want is not None and got != want:
                    fail(f"{name}: dfx reports {got} {what}, expected {want}")
            expect = {"nodes": nodes, "edges": edges, "badges": badges, "title": title}
            started = time.monotonic()
            try:
                verdict = browser.probe(page, probe, expect)
            except chromium_page.ProbeError as e:
                fail(f"{name}: {e}")
            problems = chromium_page.problems(verdict)
            if problems:
                fail(f"{name} ({page.name}, {' '.join(args)}):\n  " + "\n  ".join(problems))
            f = verdict["facts"]
            print(f"ok {name}: {f['nodes']} nodes, {f['edges']} edges, {len(f['badges'])} badges; "
                  f"stage {f['stage'][0]}x{f['stage'][1]}; load/f scale {f['initial']['scale']:.4g} "
                  f"at ({f['initial']['tx']:.1f}, {f['initial']['ty']:.1f}), r scale {f['after_r']['scale']:g} "
                  f"at ({f['after_r']['tx']:g}, {f['after_r']['ty']:g}) [{time.monotonic() - started:.1f} s]")
    print(f"ok [{TEST}]")


if __name__ == "__main__":
    try:
        main()
    except chromium_page.ProbeError as e:
        fail(str(e))
