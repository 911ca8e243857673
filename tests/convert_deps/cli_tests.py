#!/usr/bin/env python3
"""End-to-end tests of `dfx deps`, `dfx dump`, `dfx critical-path` and `dfx pmu`.

Usage: cli_tests.py TEST_NAME DFX_EXE SOURCE_ROOT

Goldens are either the reference tools' outputs (tests/conformance) or files
written by hand from the specs (tests/convert_deps/*example*); nothing here is
produced by dfx itself. Each test exits non-zero with a message on failure.
"""

import concurrent.futures
import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import scratch_dirs  # noqa: E402

TEST, DFX, ROOT = sys.argv[1], sys.argv[2], Path(sys.argv[3])
CONF = ROOT / "tests" / "conformance"
HERE = ROOT / "tests" / "convert_deps"


def fail(msg):
    print(f"FAIL [{TEST}]: {msg}")
    sys.exit(1)


def run(args, cwd, env=None):
    return subprocess.run([DFX, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)


def normalise(text):
    return [line.rstrip() for line in text.splitlines()]


def same_text(got, want, what):
    g, w = normalise(got), normalise(want)
    if g != w:
        for i, (a, b) in enumerate(zip(g, w)):
            if a != b:
                fail(f"{what}: line {i + 1} differs:\n  got:  {a!r}\n  want: {b!r}")
        fail(f"{what}: {len(g)} lines, expected {len(w)}")


def workdir(src=None):
    d = scratch_dirs.make("dfx-deps-test-")
    if src:
        shutil.copytree(src, d, dirs_exist_ok=True)
        for p in d.rglob("*"):
            p.chmod(0o755 if p.is_dir() else 0o644)
    return d


def expect_one_error_line(r, file_hint, what):
    if r.returncode == 0:
        fail(f"{what}: exit 0, expected an error")
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    if len(lines) != 1:
        fail(f"{what}: expected one error line, got {len(lines)}: {r.stderr!r}")
    if file_hint not in lines[0]:
        fail(f"{what}: error line does not name {file_hint!r}: {lines[0]!r}")


# ---------------------------------------------------------------- deps: text


def test_golden_deps():
    """deps_viewer.txt of every conformance case with a deps.json."""
    for case in ["l1_small", "l3_deps", "l4_deps", "l4_host"]:
        out = workdir() / "out.txt"
        r = run(["deps", "deps.json", "-o", str(out)], cwd=CONF / case)
        if r.returncode != 0:
            fail(f"{case}: exit {r.returncode}: {r.stderr}")
        same_text(out.read_text(), (CONF / case / "expected" / "deps_viewer.txt").read_text(), case)
        if not r.stdout.startswith(f"Wrote {out} ("):
            fail(f"{case}: unexpected stdout {r.stdout!r}")


def spec_example_dir():
    return workdir(HERE / "spec_example")


def test_spec_example_text():
    """dep-gen.md §2.5: default output beside the input, golden written from the spec."""
    d = spec_example_dir()
    r = run(["deps_viewer", "deps.json"], cwd=d)  # the reference alias
    if r.returncode != 0:
        fail(r.stderr)
    if r.stdout.strip() != "Wrote deps_viewer.txt (3 tasks, 3 unique edges, 3 annotated edges, format=text)":
        fail(f"stdout {r.stdout!r}")
    want = (d / "expected_deps_viewer.txt").read_text().replace("<path as given>/deps.json", "deps.json")
    same_text((d / "deps_viewer.txt").read_text(), want, "spec example")


def test_spec_example_reduced():
    """0->2 is implied by 0->1->2; 0->1 is a creator edge and is kept anyway."""
    d = spec_example_dir()
    r = run(["deps", "deps.json", "--edge-mode", "reduced"], cwd=d)
    if r.returncode != 0:
        fail(r.stderr)
    want = ["Transitive reduction: removed 1 redundant edge(s) of 3 (2 kept)", "  - 0 -> 2",
            "Wrote deps_viewer_reduced.txt (3 tasks, 2 unique edges, 2 annotated edges, format=text)"]
    if r.stdout.splitlines() != want:
        fail(f"stdout {r.stdout!r}")
    text = (d / "deps_viewer_reduced.txt").read_text()
    if "TASK 2 kind=submit func_id=[2,-1,-1] SPMD block num = 4 fanin=1 fanout=0" not in text:
        fail("task 2 should keep one predecessor")
    r = run(["deps", "deps.json", "--edge-mode", "omitted", "-o", "om.txt"], cwd=d)
    if r.stdout.splitlines()[0] != "Redundant edges only: showing 1 redundant edge(s) of 3":
        fail(f"omitted stdout {r.stdout!r}")
    if "  unique_task_edges: 1" not in (d / "om.txt").read_text():
        fail("omitted text should hold the one redundant edge")


def test_cycle_fallback():
    d = workdir()
    (d / "deps.json").write_text(json.dumps({"tasks": [], "tensors": [], "edges": [
        {"pred": "1", "succ": "2"}, {"pred": "2", "succ": "1"}, {"pred": "1", "succ": "3"}]}))
    r = run(["deps", "deps.json", "--edge-mode", "reduced"], cwd=d)
    if r.returncode != 0 or "cycle" not in r.stderr or not (d / "deps_viewer.txt").exists():
        fail(f"expected the full graph with a cycle warning: rc={r.returncode} {r.stderr!r}")


def test_name_map_and_sidecar():
    """A sibling name_map*.json names kernels; a sibling swimlane records file adds its tasks (as alloc)."""
    d = spec_example_dir()
    (d / "name_map_case.json").write_text(json.dumps({"callable_id_to_name": {"0": "a", "1": "b", "2": "c"}}))
    records = {"chip_swimlane_level": 1, "metadata": {"clock_freq_hz": 50000000, "num_cores": 1, "core_types": ["aiv"]},
               "aicore_tasks": [[0, 99, 1, 100, 200, 1]], "aicpu_tasks": []}
    (d / "chip_swimlane_records.json").write_text(json.dumps(records))
    r = run(["deps", "deps.json", "-o", "o.txt"], cwd=d)
    if r.returncode != 0:
        fail(r.stderr)
    text = (d / "o.txt").read_text()
    for line in ["  func_name_map: yes", "  tasks: 4", "TASK 99 kind=alloc func_id=none fanin=0 fanout=0"]:
        if line not in text.splitlines():
            fail(f"missing line {line!r}")
    # --func-names overrides discovery; an unreadable map is an error, with --lenient
    # a warning (the reference's reading).
    (d / "bad.json").write_text("{")
    expect_one_error_line(run(["deps", "deps.json", "-o", "o2.txt", "--func-names", "bad.json"], cwd=d), "bad.json",
                          "bad name map")
    r = run(["deps", "deps.json", "-o", "o2.txt", "--func-names", "bad.json", "--lenient"], cwd=d)
    if r.returncode != 0 or "Warning: couldn't read bad.json" not in r.stderr:
        fail(f"bad name map, --lenient: rc={r.returncode} {r.stderr!r}")
    if "  func_name_map: no" not in (d / "o2.txt").read_text().splitlines():
        fail("an unreadable name map must leave names empty")


def fmt_task(t, pairs):
    return f"({(t >> 32) & 0xFF}, {t & 0xFFFFFFFF})" if pairs else str(t & 0xFFFFFFFF)


def test_reduction_oracle():
    """Structural reduction against the naive reachability algorithm of dep-gen.md §3.5."""
    total_removed = 0
    for case in ["l1_small", "l3_deps", "l4_deps", "l4_host"]:
        data = json.load(open(CONF / case / "deps.json"))
        pairs, creator = set(), set()
        for e in data["edges"]:
            p, s = int(e["pred"]), int(e["succ"])
            pairs.add((p, s))
            if e.get("source") == "creator":
                creator.add((p, s))
        succ = {}
        for p, s in pairs:
            succ.setdefault(p, set()).add(s)

        def reach(v, memo={}):
            if v not in memo:
                out = set()
                for w in succ.get(v, ()):
                    out |= {w} | reach(w)
                memo[v] = out
            return memo[v]

        removed = set()
        for u, vs in succ.items():
            indirect = set().union(*(reach(w) for w in vs))
            removed |= {(u, v) for v in vs if v in indirect and (u, v) not in creator}
        nodes = {n for pq in pairs for n in pq} | {int(t["task_id"]) for t in data["tasks"] if any(k >= 0 for k in t["kernel_ids"])}
        ring = any((n >> 32) & 0xFF for n in nodes)
        want = sorted(f"  - {fmt_task(p, ring)} -> {fmt_task(s, ring)}" for p, s in removed)
        r = run(["deps", "deps.json", "--edge-mode", "reduced", "-o", str(workdir() / "x.txt")], cwd=CONF / case)
        got = sorted(line for line in r.stdout.splitlines() if line.startswith("  - "))
        if got != want:
            fail(f"{case}: {len(got)} removed edges, oracle says {len(want)}")
        total_removed += len(removed)
    if total_removed == 0:
        fail("the oracle found nothing to remove anywhere; the test would prove nothing")


def test_dataflow_modes():
    """Dataflow modes run on real data and never remove more than structural reduction without protection."""
    for case in ["l3_deps", "l4_deps"]:
        out = workdir()
        r = run(["deps", "deps.json", "--edge-mode", "reduced_dataflow", "-o", str(out / "x.txt")], cwd=CONF / case)
        if r.returncode != 0 or not r.stdout.startswith("Dataflow-verified transitive reduction: removed "):
            fail(f"{case}: {r.returncode} {r.stdout[:200]!r} {r.stderr!r}")
        m = re.match(r"Dataflow-verified transitive reduction: removed (\d+) redundant edge\(s\) of (\d+) \((\d+) kept\)", r.stdout)
        removed, total, kept = map(int, m.groups())
        if removed + kept != total:
            fail(f"{case}: counts do not add up: {r.stdout.splitlines()[0]}")


# ---------------------------------------------------------------- deps: HTML

FAKE_DOM = r"""
// A minimal DOM, enough to run the page script and press keys.
const handlers = {};
function el(id) {
  return { id, style: {}, classList: { add() {}, remove() {} }, innerHTML: '', clientWidth: 1000, clientHeight: 500,
           addEventListener(t, f) { handlers[id + ':' + t] = f; }, querySelector() { return null; },
           querySelectorAll() { return []; }, getBoundingClientRect() { return { left: 0, top: 0, width: 1000, height: 500 }; } };
}
const svg = el('svg');
svg.removeAttribute = () => {};
svg.getBoundingClientRect = () => ({ left: 0, top: 0, width: 4000 * scaleNow(), height: 1000 * scaleNow() });
svg.contains = () => true;
// 950 points wide, drawn 4000 px wide at scale 1: a fit (0.2375) shows labels at 1 px per point, readable.
svg.viewBox = { baseVal: { width: 950 } };
function scaleNow() { const m = /scale\(([^)]+)\)/.exec(svg.style.transform || ''); return m ? Number(m[1]) : 1; }
const stage = el('stage');
stage.querySelector = (q) => (q === 'svg' ? svg : null);
const nodes = { stage, detail: el('detail') };
global.document = { getElementById: (id) => nodes[id] || el(id), addEventListener: (t, f) => { handlers['doc:' + t] = f; },
                    createElementNS: () => el('x') };
global.window = { addEventListener: (t, f) => { handlers['win:' + t] = f; } };
global.requestAnimationFrame = (f) => f();
"""


def page_script(html):
    m = re.search(r"<script>\n(.*)</script>", html, re.S)
    if not m:
        fail("no inline script")
    return m.group(1)


def test_html_page():
    d = spec_example_dir()
    r = run(["deps", "deps.json", "--format", "html", "--engine", "dot"], cwd=d)
    if r.returncode != 0:
        fail(r.stderr)
    if r.stdout.strip() != "Wrote deps_viewer.html (3 nodes, 3 edges, engine=dot, format=html)":
        fail(f"stdout {r.stdout!r}")
    html = (d / "deps_viewer.html").read_text()
    if "<svg" not in html or html.count('class="node"') != 3 or html.count('class="edge"') != 3:
        fail("the page must inline the SVG with 3 nodes and 3 edges")
    if re.search(r"""(src|href)\s*=\s*["'](https?:)?//""", html) or "<link" in html:
        fail("the page must be self-contained")
    if "<title>deps.json \u2014 3 nodes, 3 edges</title>" not in html:
        fail("title")
    if '"T0_2":4' not in html:
        fail("the SPMD block num of task 2 must be in spmdBlocks")
    # Run the page script on a fake DOM: first paint fits, r resets, f fits again.
    js = FAKE_DOM + page_script(html) + r"""
const fitted = svg.style.transform;
handlers['doc:keydown']({ key: 'r' });
if (svg.style.transform !== 'translate(0px, 0px) scale(1)') throw new Error('r did not reset: ' + svg.style.transform);
handlers['doc:keydown']({ key: 'f' });
if (svg.style.transform !== fitted || !/scale\(0\.2375\)/.test(fitted)) throw new Error('f did not fit: ' + svg.style.transform);
console.log('keys ok');
"""
    if shutil.which("node"):
        p = subprocess.run(["node", "-e", js], capture_output=True, text=True, timeout=60)
        if p.returncode != 0 or "keys ok" not in p.stdout:
            fail(f"page script: {p.stdout} {p.stderr}")
    # Reduced mode: the background edge is drawn in its own layer under the selected ones.
    r = run(["deps", "deps.json", "--format", "html", "--edge-mode", "reduced", "--engine", "sfdp"], cwd=d)
    if r.returncode != 0:
        fail(r.stderr)
    html = (d / "deps_viewer_reduced.html").read_text()
    hidden = html.find('class="edge-layer hidden-edge-layer"')
    visible = html.find('class="edge-layer visible-edge-layer"')
    first_node = html.find('class="node"')
    if not (0 < hidden < visible < first_node):
        fail("edge layers must come before the nodes, hidden first")
    if "Wrote deps_viewer_reduced.html (3 nodes, 2 visible edges, 3 layout edges, engine=sfdp, format=html)" not in r.stdout:
        fail(f"stdout {r.stdout!r}")
    # Rich nodes with tensor rows and ports.
    r = run(["deps", "deps.json", "--format", "html", "--show-tensor-info", "-o", "rich.html"], cwd=d)
    if r.returncode != 0 or "arg0 INPUT T0:float32" not in (d / "rich.html").read_text():
        fail(f"rich mode: {r.stderr}")


def test_html_errors():
    d = spec_example_dir()
    r = run(["deps", "deps.json", "--format", "html"], cwd=d, env={"PATH": "/nonexistent"})
    expect_one_error_line(r, "Graphviz 'dot' not found", "missing graphviz")
    if (d / "deps_viewer.html").exists():
        fail("no page may be written when the layout fails")
    r = run(["deps", "deps.json", "--engine", "neato"], cwd=d)
    if r.returncode != 2 or r.stderr.strip() != "dfx deps: error: --engine is only valid with --format html":
        fail(f"--engine without html: {r.returncode} {r.stderr!r}")
    r = run(["deps", "deps.json", "--format", "pdf"], cwd=d)
    if r.returncode != 2:
        fail("a bad --format must exit 2")


def test_deps_bad_input():
    d = spec_example_dir()
    good = (d / "deps.json").read_text()
    cases = {
        "truncated.json": good[: len(good) // 2],
        "array.json": "[1, 2]",
        "edges_number.json": '{"edges": 5}',
        "bad_literal.json": '{"tasks": [], "edges": [tru]}',
        "empty.json": "",
        "trailing.json": '{"edges": []} x',
        "bad_string.json": '{"edges": [{"pred": "1\x01", "succ": "2"}]}',
    }
    for name, text in cases.items():
        (d / name).write_text(text)
        expect_one_error_line(run(["deps", name, "-o", "o.txt"], cwd=d), name, name)
    r = run(["deps", "missing.json"], cwd=d)
    if r.returncode != 1 or r.stderr.strip() != "dfx deps: error: missing.json not found.":
        fail(f"missing input: {r.returncode} {r.stderr!r}")
    # Entries the reference drops silently are errors; with --lenient dropped, with one warning.
    (d / "lenient.json").write_text(json.dumps({"edges": [{"pred": "x", "succ": "1"}, 7, {"pred": 1, "succ": "2"}]}))
    expect_one_error_line(run(["deps", "lenient.json", "-o", "o.txt"], cwd=d), "lenient.json", "unusable edges")
    r = run(["deps", "lenient.json", "-o", "o.txt", "--lenient"], cwd=d)
    if r.returncode != 0 or "  unique_task_edges: 1" not in (d / "o.txt").read_text():
        fail(f"lenient input: {r.returncode} {r.stderr!r}")


# ---------------------------------------------------------------- dump


def test_golden_dump():
    r = run(["dump_viewer", "args_dump"], cwd=CONF / "l4_deps")
    if r.returncode != 0:
        fail(r.stderr)
    same_text(r.stdout, (CONF / "l4_deps" / "expected" / "dump_viewer.stdout").read_text(), "dump_viewer")


def test_dump_example():
    """args-dump-and-pmu.md §A3.3: listing, filters and exports (goldens written by hand)."""
    d = workdir(HERE / "dump_example")
    r = run(["dump", "args_dump"], cwd=d)
    same_text(r.stdout, (d / "expected_list.stdout").read_text(), "listing")
    r = run(["dump", "args_dump", "--stage", "before", "--role", "input", "--arg", "1"], cwd=d)
    if not r.stdout.startswith("Filtered: 1/5 args\nAdd --export to save these args to args_dump/txt\n\n"):
        fail(f"filtered header {r.stdout!r}")
    r = run(["dump", "args_dump", "-e"], cwd=d)
    if r.returncode != 0 or "Exported 5 arg(s) to args_dump/txt" not in r.stdout:
        fail(f"export: {r.stdout} {r.stderr}")
    for want in d.glob("expected_task_*.txt"):
        got = d / "args_dump" / "txt" / want.name.removeprefix("expected_")
        same_text(got.read_text(), want.read_text(), want.name)
    r = run(["dump", "args_dump", "-i", "9"], cwd=d)
    if r.returncode != 1 or "out of range (0-4)" not in r.stderr:
        fail(f"--index range: {r.stderr!r}")
    r = run(["dump", "args_dump", "-t", "0x1"], cwd=d)
    if r.returncode != 1 or "Valid task_ids (showing first 1): 0x0000000000000000" not in r.stderr:
        fail(f"--task: {r.stderr!r}")


def test_dump_bad_input():
    d = workdir(HERE / "dump_example")
    manifest = d / "args_dump" / "args_dump.json"
    good = manifest.read_text()
    variants = {
        "truncated": good[:700],
        "missing key": good.replace('"shape": [2, 3], "strides": [3, 1], "start_offset": 0, "numel": 6, "bin_offset": 48',
                                    '"strides": [3, 1], "start_offset": 0, "numel": 6, "bin_offset": 48'),
        "wrong type": good.replace('"arg_index": 4,', '"arg_index": "four",'),
        "args not array": '{"args": {}}',
        # (The mutation corpus's byte flip "after_completion" -> "/fter_completion": a stage
        # names the export's files, so a '/' would send one elsewhere.)
        "a '/' in a stage": good.replace('"stage": "after_completion"', '"stage": "/fter_completion"', 1),
    }
    for what, text in variants.items():
        if text == good:
            fail(f"{what}: the variant did not change the file")
        manifest.write_text(text)
        expect_one_error_line(run(["dump", "args_dump"], cwd=d), "args_dump.json", what)
    manifest.write_text(good)
    # A manifest whose bin_file names no file: the error names the manifest as well as the
    # path it gave (the mutation corpus's byte flip "args.bin" -> "args.b,n").
    if '"bin_file": "args.bin"' not in good:
        fail("the example manifest has no \"bin_file\": \"args.bin\"")
    manifest.write_text(good.replace('"bin_file": "args.bin"', '"bin_file": "args.b,n"'))
    for hint in ["args_dump.json", "args.b,n"]:
        expect_one_error_line(run(["dump", "args_dump"], cwd=d), hint, "bin_file names no file")
    manifest.write_text(good)
    (d / "args_dump" / "args.bin").unlink()
    expect_one_error_line(run(["dump", "args_dump", "-i", "0"], cwd=d), "args.bin", "missing args.bin")


# ---------------------------------------------------------------- critical path


def test_critical_path():
    """A hand-computed case: clock 1 MHz (1 tick = 1 us), three tasks on two cores.

    task 1: core 0 [0, 10); task 2: core 1 [12, 20) after 1 (data); task 3: core 0 [20, 30)
    after 2 (data) and after task 1 on core 0.  Observed path: 1 (front), 2 (data-wait,
    stall 2), 3 (data-wait) -> compute 28, stall 2, makespan 30.  Static CPM = 10+8+10 = 28.
    """
    d = workdir() / "run"
    d.mkdir()
    (d / "chip_swimlane_records.json").write_text(json.dumps({
        "chip_swimlane_level": 2, "metadata": {"clock_freq_hz": 1000000, "num_cores": 2, "core_types": ["aic", "aiv"]},
        "aicore_tasks": [[0, 1, 1, 100, 110, 1], [1, 2, 1, 112, 120, 1], [0, 3, 2, 120, 130, 1]],
        "aicpu_tasks": []}))
    (d / "deps.json").write_text(json.dumps({"tasks": [
        {"task_id": "1", "kernel_ids": [0, -1, -1]}, {"task_id": "2", "kernel_ids": [-1, 1, -1]},
        {"task_id": "3", "kernel_ids": [2, -1, -1]}], "tensors": [],
        "edges": [{"pred": "1", "succ": "2"}, {"pred": "2", "succ": "3"}]}))
    (d / "name_map_x.json").write_text(json.dumps({"callable_id_to_name": {"0": "load_0_aic", "1": "mid", "2": "store"}}))
    r = run(["critical-path", str(d.parent)], cwd=d.parent)
    if r.returncode != 0:
        fail(r.stderr)
    want = "[run] makespan=0.030ms  CPM=0.03ms(93%)  compute=93.3%  stall=6.7% (data-wait 6.7%)"
    if want not in r.stdout.splitlines():
        fail(f"summary: {r.stdout!r}")
    report = (d / "critical_path_report.md").read_text()
    for line in ["- **static CPM path**: 0.028 ms (93.3% of makespan) over 3 tasks",
                 "  - tiling check: compute+stall = 30 ticks vs makespan 30 ticks (exact)",
                 "| load | 0.010 | 33.3% | 0.000 | 1 |",
                 "| 1 | mid | 8.0 | 8.0 (26.67%) | 2.0 (6.67%) | data-wait |"]:
        if line not in report.splitlines():
            fail(f"report lacks {line!r}")
    r = run(["critical-path", str(d.parent / "nope")], cwd=d.parent)
    if r.returncode != 2:
        fail("a missing path must exit 2")
    r = run(["critical-path", str(d.parent), "--report", "a/b.md"], cwd=d.parent)
    if r.returncode != 2:
        fail("--report with a path must exit 2")


CP_GOLDEN = HERE / "critical_path_golden"


def critical_path_cases():
    """The run directories of critical_path_goldens: the conformance cases with a DAG, and a
    generated level-4 capture with SPMD, MIX, dummies and early dispatch (bench/gen_swimlane_records.py)."""
    root = workdir()
    for case in ["l3_deps", "l4_deps", "l4_host"]:
        d = root / case
        d.mkdir()
        for f in (CONF / case).iterdir():
            if f.is_file():
                shutil.copy(f, d / f.name)
    gen = root / "gen3000"
    subprocess.run([sys.executable, str(ROOT / "bench" / "gen_swimlane_records.py"), "3000", str(gen), "--variety"],
                   check=True, timeout=120)
    shutil.copy(CONF / "l4_deps" / "name_map_l4_deps.json", gen / "name_map_gen.json")
    return root


def test_critical_path_goldens():
    """critical-path's report on each case is the one dfx wrote before the analysis moved to
    dense arrays (critical_path_inputs.hpp): the goldens were written by 3aba37f."""
    root = critical_path_cases()
    for d in sorted(p for p in root.iterdir() if p.is_dir()):
        r = run(["critical-path", str(d)], cwd=root)
        if r.returncode != 0:
            fail(f"{d.name}: {r.stderr}")
        same_text((d / "critical_path_report.md").read_text(), (CP_GOLDEN / f"{d.name}.md").read_text(),
                  f"{d.name} report")
        summary = [line for line in r.stdout.splitlines() if line.startswith("[")]
        same_text("\n".join(summary), (CP_GOLDEN / f"{d.name}.summary").read_text(), f"{d.name} summary")


# ---------------------------------------------------------------- pmu

PMU_HEADER = ("thread_id,core_id,task_id,func_id,core_type,pmu_total_cycles,vec_busy_cycles,cube_busy_cycles,"
              "scalar_busy_cycles,mte1_busy_cycles,mte2_busy_cycles,mte3_busy_cycles,icache_miss,icache_req,event_type")


def test_pmu():
    """The MIX example of args-dump-and-pmu.md §B3; expected values computed by hand."""
    d = workdir()
    (d / "pmu.csv").write_text(PMU_HEADER + "\n"
                               "0,0,0x0000000000000000,3,0,52110,0,40960,1830,12000,20480,0,12,901,2\n"
                               "0,1,0x0000000000000000,4,1,51870,30210,0,2100,0,8800,6400,9,760,2\n"
                               "0,2,0x0000000000000000,5,1,51902,30188,0,2098,0,8790,6410,9,758,2\n"
                               "1,27,0x0000000100000004,1,1,9120,2048,0,640,0,512,256,3,210,2\n")
    (d / "name_map_x.json").write_text(json.dumps({"callable_id_to_name": {"3": "mm_aic", "4": "mm_aiv"}}))
    r = run(["pmu", "pmu.csv"], cwd=d)
    if r.returncode != 0:
        fail(r.stderr)
    lines = r.stdout.splitlines()
    if lines[0] != "pmu.csv: 4 rows, 2 tasks, 4 cores, event_type 2 (PIPE_UTILIZATION)":
        fail(f"header {lines[0]!r}")
    def row(first):
        return next((line.split() for line in lines if line.split()[:1] == [first]), None)
    # mm_aic: 1 row, 52110 cycles, cube busy 40960/52110 = 78.6 %, icache_req 901 per row
    mm = row("mm_aic")
    if mm is None or mm[1:7] != ["3", "aic", "1", "1", "52110", "52110.0"] or mm[8] != "78.6" or mm[-1] != "901.0":
        fail(f"mm_aic row {mm}")
    # f5 (no name): vec busy 30188/51902 = 58.2 %
    f5 = row("f5")
    if f5 is None or f5[7] != "58.2":
        fail(f"f5 row {f5}")
    core27 = row("27")
    if core27 is None or core27[1:6] != ["aiv", "1", "1", "9120", "9120.0"]:
        fail(f"core 27 row {core27}")
    bad = {"empty.csv": "", "header.csv": "a,b,c\n", "fields.csv": PMU_HEADER + "\n0,0,0x0,1\n",
           "number.csv": PMU_HEADER + "\n0,0,0x0,3,0,x,0,0,0,0,0,0,0,0,2\n",
           "task.csv": PMU_HEADER + "\n0,0,17,3,0,1,0,0,0,0,0,0,0,0,2\n"}
    for name, text in bad.items():
        (d / name).write_text(text)
        expect_one_error_line(run(["pmu", name], cwd=d), name, name)


# ---------------------------------------------------------------- scale


def test_large_generated():
    """A generated deps.json of 20k tasks: converts, with the expected counts."""
    d = workdir()
    gen = ROOT / "bench" / "gen_deps_json.py"
    subprocess.run([sys.executable, str(gen), "20000", str(d / "deps.json")], check=True)
    r = run(["deps", "deps.json", "-o", "o.txt"], cwd=d)
    if r.returncode != 0:
        fail(r.stderr)
    m = re.match(r"Wrote o.txt \((\d+) tasks, (\d+) unique edges, (\d+) annotated edges, format=text\)", r.stdout)
    if not m or not 19000 < int(m.group(1)) < 21000 or int(m.group(2)) < 20000:
        fail(f"stdout {r.stdout!r}")


def test_spills_to_temp_dir():
    """The text view of the full graph in bounded memory (docs/converters.md, "Bounded memory: `dfx deps`
    text"): with DFX_SORT_MEMORY_KB=64 its sorters and files spill to $TMPDIR, the output is the same bytes,
    nothing is left there, even after SIGKILL; a $TMPDIR that is not there is one error naming it."""
    import signal
    d = workdir()
    subprocess.run([sys.executable, str(ROOT / "bench" / "gen_swimlane_records.py"), "20000", str(d)], check=True,
                   stdout=subprocess.DEVNULL)
    want = run(["deps", "deps.json", "-o", "want.txt"], cwd=d)
    if want.returncode != 0:
        fail(want.stderr)
    spill = d / "spill"
    spill.mkdir()
    env = dict(os.environ, TMPDIR=str(spill), DFX_SORT_MEMORY_KB="64")
    r = run(["deps", "deps.json", "-o", "got.txt"], cwd=d, env=env)
    if r.returncode != 0:
        fail(r.stderr)
    if (d / "got.txt").read_bytes() != (d / "want.txt").read_bytes():
        fail("spilled every few records, the text view differs from the one sorted in memory")
    if list(spill.iterdir()):
        fail(f"left in $TMPDIR: {[p.name for p in spill.iterdir()]}")
    # A value that is not a number of KiB leaves the default.
    r = run(["deps", "deps.json", "-o", "default.txt"], cwd=d, env=dict(env, DFX_SORT_MEMORY_KB="lots"))
    if r.returncode != 0 or (d / "default.txt").read_bytes() != (d / "want.txt").read_bytes():
        fail(f"DFX_SORT_MEMORY_KB=lots: {r.returncode} {r.stderr!r}")
    # Killed at any moment, the files have no name to leave behind (O_TMPFILE).
    for delay in (0.02, 0.1, 0.3):
        p = subprocess.Popen([DFX, "deps", "deps.json", "-o", "killed.txt"], cwd=d, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=60)
        if list(spill.iterdir()):
            fail(f"SIGKILL after {delay} s: left in $TMPDIR: {[q.name for q in spill.iterdir()]}")
    # A $TMPDIR that is not there: one error naming it, no output.
    (d / "old.txt").write_text("old")
    missing = d / "no-such-dir"
    r = run(["deps", "deps.json", "-o", "old.txt"], cwd=d, env=dict(env, TMPDIR=str(missing)))
    expect_one_error_line(r, f"{missing}: cannot create a temporary file", "TMPDIR missing")
    if r.returncode != 1 or (d / "old.txt").read_text() != "old":
        fail(f"TMPDIR missing: exit {r.returncode}, output {(d / 'old.txt').read_text()[:20]!r}")
    # --lenient drops a broken sidecar with a warning, but no disk room is no broken sidecar: still one
    # error (here only the sidecar's join spills: deps.json is a few tasks).
    small = d / "small"
    small.mkdir()
    (small / "chip_swimlane_records.json").symlink_to(d / "chip_swimlane_records.json")
    (small / "deps.json").write_text('{"edges": [{"pred": 4294967296, "succ": 4294967297}]}')
    r = run(["deps", "--lenient", "deps.json", "-o", "out.txt"], cwd=small, env=dict(env, TMPDIR=str(missing)))
    expect_one_error_line(r, f"{missing}: cannot create a temporary file", "--lenient, TMPDIR missing")
    if r.returncode != 1 or (small / "out.txt").exists():
        fail(f"--lenient, TMPDIR missing: exit {r.returncode}, output written: {(small / 'out.txt').exists()}")


# ---------------------------------------------------------------- robustness and the CLI
# docs/converters.md "Errors and exit codes": 1 for bad input, 2 for usage, one
# line "dfx <command>: error: ...", never a signal or a hang.


def run_timed(args, cwd, timeout=60, **kw):
    try:
        return subprocess.run([DFX, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        fail(f"{args}: no answer within {timeout} s")


def expect_usage_error(r, fragment, what):
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    if r.returncode != 2 or len(lines) != 1 or fragment not in lines[0] or "error: " not in lines[0]:
        fail(f"{what}: want exit 2 and one error line with {fragment!r}; got {r.returncode} {r.stderr!r}")


def capture_dir(case, with_outputs=False):
    d = workdir() / "dfx_outputs"
    shutil.copytree(CONF / case, d, ignore=None if with_outputs else shutil.ignore_patterns("expected"))
    for p in d.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    return d


def test_fifo_and_endless_inputs():
    """A FIFO nobody writes and /dev/zero end in an error, within a bounded time."""
    d = workdir()
    fifo = d / "fifo.json"
    os.mkfifo(fifo)
    fifo_cases = (["deps", "fifo.json", "-o", "o.txt"], ["swimlane", "fifo.json", "-o", "o.json"],
                  ["pmu", "fifo.json"], ["scope-stats", "fifo.json"], ["critical-path", "fifo.json"],
                  ["sched-overhead", "fifo.json"])
    zero_cases = (["pmu", "/dev/zero"], ["scope-stats", "/dev/zero"], ["deps", "/dev/zero", "-o", "o.txt"])
    # Every case waits out the reader's bounded wait on its own; run them side
    # by side (the waits are sleeps, not work) so the test takes one wait, not nine.
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(fifo_cases) + len(zero_cases)) as pool:
        fifo_runs = [(args, pool.submit(run_timed, args, d, timeout=40)) for args in fifo_cases]
        zero_runs = [(args, pool.submit(run_timed, args, d, timeout=40)) for args in zero_cases]
        for args, future in fifo_runs:
            r = future.result()
            if r.returncode not in (1, 2) or "fifo.json" not in r.stderr:
                fail(f"{args}: {r.returncode} {r.stderr!r}")
        for args, future in zero_runs:
            expect_one_error_line(future.result(), "/dev/zero", str(args))


def test_stdout_write_error():
    """A full stdout (> /dev/full) is an error in every command that prints."""
    d = capture_dir("l4_deps")
    for args in (["swimlane", str(d / "chip_swimlane_records.json"), "-o", str(d / "t.json")],
                 ["deps", str(d / "deps.json"), "-o", str(d / "d.txt")],
                 ["pmu", str(d / "pmu.csv")],
                 ["critical-path", str(d), "--stdout"],
                 ["sched-overhead", str(d / "chip_swimlane_records.json")],
                 ["dump", str(d / "args_dump")],
                 ["scope-stats", str(CONF / "l3_deps" / "scope_stats" / "scope_stats.jsonl"), "-o", str(d / "s.html")]):
        with open("/dev/full", "w") as full:
            r = subprocess.run([DFX, *args], cwd=d, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
        if r.returncode == 0 or "No space left on device" not in r.stderr:
            fail(f"{args} > /dev/full: exit {r.returncode}, stderr {r.stderr!r}")


def test_dangling_records_symlink():
    d = workdir() / "run"
    d.mkdir()
    (d / "chip_swimlane_records.json").symlink_to(d / "gone.json")
    (d / "deps.json").write_text('{"tasks": [], "edges": []}')
    (d / "name_map_x.json").write_text('{"callable_id_to_name": {}}')
    r = run_timed(["critical-path", str(d)], d)
    expect_one_error_line(r, "chip_swimlane_records.json", "dangling records symlink")
    if r.returncode != 1:
        fail(f"dangling records symlink: exit {r.returncode}")


def test_output_is_input():
    """-o naming an input (the same inode: the path, a hard link, a symlink) is refused; the input is untouched."""
    d = capture_dir("l4_deps")
    os.link(d / "deps.json", d / "deps_link.json")
    (d / "records_sym.json").symlink_to(d / "chip_swimlane_records.json")
    before = {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()}
    for args in (["deps", "deps.json", "-o", "deps.json"], ["deps", "deps.json", "-o", "deps_link.json"],
                 ["swimlane", "chip_swimlane_records.json", "-o", "records_sym.json"],
                 ["swimlane", "chip_swimlane_records.json", "-o", "deps.json"],
                 ["pmu", "pmu.csv", "-o", "pmu.csv"]):
        r = run_timed(args, d)
        if r.returncode == 0 or "is also an input" not in r.stderr:
            fail(f"{args}: exit {r.returncode} {r.stderr!r}")
    after = {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()}
    if before != after:
        fail("an input was changed")


def test_sigterm_removes_temp_file():
    """SIGTERM while the trace is written: no <out>.tmp.<pid> is left, and the old output stays whole."""
    import signal
    import time
    d = workdir()
    subprocess.run([sys.executable, str(ROOT / "bench" / "gen_swimlane_records.py"), "60000", str(d)], check=True)
    out = d / "trace.json"
    out.write_text("old")
    for sig in (signal.SIGTERM, signal.SIGINT):
        p = subprocess.Popen([DFX, "swimlane", "chip_swimlane_records.json", "-o", str(out)], cwd=d,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        tmp = d / f"trace.json.tmp.{p.pid}"
        deadline = time.monotonic() + 120
        while not tmp.exists() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        if p.poll() is not None:
            fail("the conversion ended before its temporary file was seen; make the input larger")
        p.send_signal(sig)
        p.wait(timeout=60)
        if p.returncode != -sig:
            fail(f"{sig.name}: exit {p.returncode}, expected death by the signal")
        left = [q.name for q in d.iterdir() if ".tmp." in q.name]
        if left or out.read_text() != "old":
            fail(f"{sig.name}: left {left}, output {out.read_text()[:20]!r}")


def test_all_level2():
    """dfx all on a level-2 capture without deps.json: skips what does not apply, says why, exits 0."""
    d = capture_dir("l2_nodeps")
    r = run_timed(["all", str(d)], d, timeout=300)
    if r.returncode != 0:
        fail(f"exit {r.returncode}: {r.stdout} {r.stderr}")
    for want in ("ok     swimlane", "skipped sched-overhead", "skipped critical-path"):
        if want not in r.stdout:
            fail(f"lacks {want!r}: {r.stdout!r}")
    d = capture_dir("l3_deps")
    r = run_timed(["all", str(d)], d, timeout=300)
    if r.returncode != 0 or "ok     critical-path" not in r.stdout or not (d / "critical_path_report.md").exists():
        fail(f"l3_deps: exit {r.returncode}: {r.stdout} {r.stderr}")


def test_cli_conventions():
    d = capture_dir("l4_deps")
    r = run_timed(["--version"], d)
    if r.returncode != 0 or not re.fullmatch(r"dfx \d+\.\d+\.\d+\n", r.stdout):
        fail(f"--version: {r.returncode} {r.stdout!r}")
    expect_usage_error(run_timed(["frobnicate"], d), "frobnicate", "unknown subcommand")
    expect_usage_error(run_timed(["deps", "--format", "pdf"], d), "dfx deps: error: ", "bad choice")
    expect_usage_error(run_timed(["pmu", "--by", "task"], d), "dfx pmu: error: ", "bad --by")
    expect_usage_error(run_timed(["critical-path"], d), "dfx critical-path: error: ", "missing argument")
    expect_usage_error(run_timed(["swimlane", "--no-such-flag"], d), "--no-such-flag", "unknown flag")
    expect_usage_error(run_timed(["all"], d), "dfx all: error: ", "dfx all without a directory")
    r = run_timed(["deps", "--help"], d)
    if r.returncode != 0 or "Usage: dfx deps" not in r.stdout or "reduced_dataflow" not in r.stdout:
        fail(f"deps --help: {r.stdout[:300]!r}")
    r = run_timed(["deps", "deps.json", "-o", "-"], d)
    if r.returncode != 0 or not r.stdout.startswith("Transitive reduction") and "unique_task_edges" not in r.stdout:
        fail(f"deps -o -: {r.returncode} {r.stdout[:200]!r} {r.stderr!r}")
    r = run_timed(["swimlane", "chip_swimlane_records.json", "-o", "-"], d)
    if r.returncode != 0 or not r.stdout.lstrip().startswith("{") or json.loads(r.stdout).get("traceEvents") is None:
        fail(f"swimlane -o -: {r.returncode} {r.stdout[:200]!r}")
    r = run_timed(["scope-stats", str(CONF / "l3_deps" / "scope_stats" / "scope_stats.jsonl"), "-o", str(d / "s.html")], d)
    if r.returncode != 0 or not (d / "s.html").exists():
        fail(f"scope-stats -o: {r.returncode} {r.stderr!r}")
    completion = ROOT / "tools" / "dfx" / "dfx.bash-completion"
    if not completion.exists() or "critical-path" not in completion.read_text():
        fail("no bash completion script")


def test_huge_page_heap():
    """dfx restarts itself once with glibc's heap on huge pages (GLIBC_TUNABLES) when its inputs total at least
    64 MiB, keeping the user's tunables; a smaller input runs as started; DFX_HUGE_PAGES=1 restarts whatever the
    size, DFX_HUGE_PAGES=0 or a tunable already naming glibc.malloc.hugetlb leaves the environment alone; a
    sanitizer build (DFX_TEST_SANITIZERS, set by meson) never restarts, nor does dfx under valgrind."""
    import fcntl
    small = capture_dir("l4_deps")

    def environment_while_running(extra, d=small, args=("chip_swimlane_records.json",)):
        # The trace goes to a 4 KiB pipe that is read only after the environment: once one byte has come
        # out, dfx is past its restart and blocked on the full pipe, so /proc/<pid>/environ is the
        # restarted image's.
        env = {k: v for k, v in os.environ.items() if k not in ("GLIBC_TUNABLES", "DFX_HUGE_PAGES")}
        env.update(extra)
        r, w = os.pipe()
        fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ
        p = subprocess.Popen([DFX, "swimlane", *args, "-o", "-"], cwd=d, env=env, stdout=w, stderr=subprocess.PIPE)
        os.close(w)
        with os.fdopen(r, "rb") as out:
            first = out.read(1)
            entries = Path(f"/proc/{p.pid}/environ").read_bytes().split(b"\0")
            rest = out.read()
        err = p.communicate(timeout=120)[1]
        if p.returncode != 0 or not json.loads(first + rest).get("traceEvents"):
            fail(f"swimlane -o - with {extra}: exit {p.returncode}, {err.decode()[-300:]!r}")
        for i, entry in enumerate(entries):
            if entry.startswith(b"GLIBC_TUNABLES="):
                # glibc (2.36) parses the tunables in place, ending each with a NUL, so the ones after the
                # first show up as entries of their own.
                parts = [entry[len(b"GLIBC_TUNABLES="):]]
                parts += [more for more in entries[i + 1:] if more.startswith(b"glibc.")]
                return b":".join(parts)
        return None

    got = environment_while_running({"DFX_HUGE_PAGES": "1"})
    if os.environ.get("DFX_TEST_SANITIZERS", "none") != "none":
        # ASan and TSan replace malloc, which then ignores the tunable: a sanitizer build must not restart.
        if got is not None:
            fail(f"a sanitizer build restarted with GLIBC_TUNABLES={got!r}")
        return
    if got != b"glibc.malloc.hugetlb=1":
        fail(f"with DFX_HUGE_PAGES=1 the running dfx has GLIBC_TUNABLES={got!r}, expected glibc.malloc.hugetlb=1")
    # Under valgrind /proc/self/exe is valgrind's tool: a restart through it failed with "You cannot run
    # ... directly". dfx runs on under valgrind instead, as started. (Only where valgrind runs this build at
    # all: `dfx --version`, which never restarts. Valgrind 3.19 gives up on clang 14's DWARF 5 line tables.)
    env = {k: v for k, v in os.environ.items() if k != "GLIBC_TUNABLES"}
    env["DFX_HUGE_PAGES"] = "1"
    under_valgrind = ["valgrind", "--tool=none", "-q", DFX]
    if shutil.which("valgrind") and subprocess.run(under_valgrind + ["--version"], env=env, capture_output=True,
                                                  timeout=120).returncode == 0:
        p = subprocess.run(under_valgrind + ["swimlane", "chip_swimlane_records.json", "-o", "-"],
                           cwd=small, env=env, capture_output=True, timeout=120)
        if p.returncode != 0 or not json.loads(p.stdout or b"{}").get("traceEvents"):
            fail(f"dfx swimlane under valgrind: exit {p.returncode}, {p.stderr.decode()[-300:]!r}")
    else:
        print("valgrind cannot run this build of dfx (or is not installed): its restart check skipped")
    got = environment_while_running({})
    if got is not None:
        fail(f"a {sum(f.stat().st_size for f in small.iterdir())}-byte input restarted with GLIBC_TUNABLES={got!r}")
    # The same capture, its records followed by 64 MiB of JSON whitespace: a big input.
    big = workdir()
    try:
        shutil.copy(small / "deps.json", big / "deps.json")
        with open(big / "chip_swimlane_records.json", "wb") as f:
            f.write((small / "chip_swimlane_records.json").read_bytes())
            f.write(b" " * (64 << 20))
        got = environment_while_running({}, big)
        if got != b"glibc.malloc.hugetlb=1":
            fail(f"a 64 MiB input: the running dfx has GLIBC_TUNABLES={got!r}, expected glibc.malloc.hugetlb=1")
        got = environment_while_running({"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0"}, big)
        if got != b"glibc.malloc.tcache_count=0:glibc.malloc.hugetlb=1":
            fail(f"the user's tunables are not kept: GLIBC_TUNABLES={got!r}")
        got = environment_while_running({"DFX_HUGE_PAGES": "0"}, big)
        if got is not None:
            fail(f"DFX_HUGE_PAGES=0 still restarted with GLIBC_TUNABLES={got!r}")
        # A directory counts the files under it; dangling symlinks beside them are skipped, not the end of the
        # walk (twenty, so that some come before the records in the directory's order).
        for k in range(20):
            os.symlink(big / f"missing{k}", big / f"dangling{k}")
        got = environment_while_running({}, big, (str(big),))
        if got != b"glibc.malloc.hugetlb=1":
            fail(f"a directory holding a 64 MiB input: GLIBC_TUNABLES={got!r}, expected glibc.malloc.hugetlb=1")
        # An output is not an input: the small capture, its statistics written over the big file.
        got = environment_while_running({}, small, ("chip_swimlane_records.json", "--stats", "json", "--stats-output",
                                                    str(big / "chip_swimlane_records.json")))
        if got is not None:
            fail(f"an existing 64 MiB --stats-output counted as input: GLIBC_TUNABLES={got!r}")
    finally:
        shutil.rmtree(big)  # 64 MiB: not left in /tmp
    got = environment_while_running({"GLIBC_TUNABLES": "glibc.malloc.hugetlb=0", "DFX_HUGE_PAGES": "1"})
    if got != b"glibc.malloc.hugetlb=0":
        fail(f"a user's own glibc.malloc.hugetlb was overridden: GLIBC_TUNABLES={got!r}")


def stderr_on_terminal(args, cwd, env, stdout_too=False):
    """Runs args with stderr (and stdout_too, stdout) on a pseudo-terminal; (exit status, all it wrote there)."""
    import pty
    main_fd, tty_fd = pty.openpty()
    p = subprocess.Popen(args, cwd=cwd, stdout=tty_fd if stdout_too else subprocess.DEVNULL, stderr=tty_fd, env=env)
    os.close(tty_fd)
    seen = b""
    while True:
        try:
            chunk = os.read(main_fd, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    p.wait(timeout=300)
    os.close(main_fd)
    return p.returncode, seen


def test_progress_on_terminal():
    """A conversion longer than 2 s shows progress on a terminal's stderr, and nothing extra on a pipe.

    It names the stage: the protobuf trace's two passes, with their events counted (the
    second against the first's count), sched-overhead's analysis. With stdout on the same
    terminal, the command's own lines start on a line of their own, not after the progress,
    and so do warnings, those a reader prints too."""
    d = workdir()
    subprocess.run([sys.executable, str(ROOT / "bench" / "gen_swimlane_records.py"), "30000", str(d)], check=True)
    args = [DFX, "swimlane", "chip_swimlane_records.json", "-o", "t.json"]
    # The 2 s delay shortened, so the test does not depend on this machine's speed.
    env = dict(os.environ, DFX_PROGRESS_DELAY_MS="0")
    rc, seen = stderr_on_terminal(args, d, env)
    if rc != 0 or b"MB read" not in seen:
        fail(f"terminal: exit {rc}, stderr {seen[-300:]!r}")
    # A tick every millisecond: each stage below lasts about 30 of them at
    # least (sched-overhead's analysis, in a release build). A run whose
    # display thread got no CPU in a stage on a loaded machine is run again,
    # up to three times in all.
    env["DFX_PROGRESS_PERIOD_MS"] = "1"
    (d / "nodeps").mkdir()  # the records alone: a warning after the read
    (d / "nodeps" / "chip_swimlane_records.json").symlink_to(d / "chip_swimlane_records.json")
    # AICPU rows whose AICore rows are gone: the join's warning, printed inside the reader.
    (d / "unmatched").mkdir()
    records = json.loads((d / "chip_swimlane_records.json").read_text())
    del records["aicore_tasks"][:50]
    (d / "unmatched" / "chip_swimlane_records.json").write_text(json.dumps(records))
    for cmd, stages in (([DFX, "swimlane", "chip_swimlane_records.json", "-o", "t.pftrace"],
                         [rb"; protobuf trace, pass 1 of 2: [0-9.]+( M)? events",
                          rb"; protobuf trace, pass 2 of 2: [0-9.]+( M)? of [0-9.]+( M)? events"]),
                        ([DFX, "sched-overhead", "chip_swimlane_records.json"], [rb"; the overhead analysis"]),
                        ([DFX, "swimlane", "nodeps/chip_swimlane_records.json", "-o", "t2.json"],
                         [rb"Warning: no usable deps.json"]),
                        ([DFX, "swimlane", "unmatched/chip_swimlane_records.json", "-o", "t3.json"],
                         [rb"Warning: 50 aicpu_task\(s\) had no matching AICore record"])):
        for attempt in range(3):
            rc, seen = stderr_on_terminal(cmd, d, env, stdout_too=True)
            missing = [s.decode() for s in stages if not re.search(s, seen)]
            if rc != 0 or not missing:
                break
        if rc != 0 or missing:
            fail(f"{cmd[1]} on a terminal: exit {rc}, no {missing} in {seen[-400:]!r}")
        # The report's first lines and a warning: each after a line end or the
        # progress line's erasure.
        for first in (b"Perf data:", b"\xe2\x9c\x93 Conversion complete", b"Part 1: Overhead verdict",
                      b"Warning: no usable deps.json", b"Warning: 50 aicpu_task(s)"):
            for m in re.finditer(re.escape(first), seen):
                before = seen[max(0, m.start() - 3):m.start()]
                if m.start() > 0 and not (before.endswith(b"\n") or before.endswith(b"\x1b[K")):
                    fail(f"{cmd[1]}: {first!r} printed after the progress line: {seen[m.start() - 120:m.end()]!r}")
    os.environ["DFX_PROGRESS_DELAY_MS"] = "0"  # a pipe shows nothing, however short the delay
    r = run_timed(args[1:], d, timeout=300)
    del os.environ["DFX_PROGRESS_DELAY_MS"]
    if r.returncode != 0 or "MB read" in r.stderr or "\r" in r.stderr:
        fail(f"pipe: exit {r.returncode}, stderr {r.stderr[-300:]!r}")


def test_directory_inputs():
    """Every command takes the dfx_outputs directory in place of its file."""
    d = capture_dir("l4_deps")
    for args, made in ((["swimlane", str(d)], "merged_swimlane.json"), (["deps", str(d)], "deps_viewer.txt"),
                       (["sched-overhead", str(d)], None), (["pmu", str(d)], None), (["critical-path", str(d)], None),
                       (["dump", str(d)], None),
                       (["scope-stats", str(capture_dir("l3_deps"))], None)):
        r = run_timed(args, d)
        if r.returncode != 0:
            fail(f"{args}: exit {r.returncode} {r.stderr!r}")
        if made and not (d / made).exists():
            fail(f"{args}: no {made}")


# ---------------------------------------------------------------- input checked, not trusted


def cp_run_dir(root, records=None, deps=None, names=None):
    """A critical-path run directory (the hand-computed case of test_critical_path), parts replaceable."""
    d = root / "run"
    d.mkdir(exist_ok=True)
    (d / "chip_swimlane_records.json").write_text(records if records is not None else json.dumps({
        "chip_swimlane_level": 2, "metadata": {"clock_freq_hz": 1000000, "num_cores": 2, "core_types": ["aic", "aiv"]},
        "aicore_tasks": [[0, 1, 1, 100, 110, 1], [1, 2, 1, 112, 120, 1], [0, 3, 2, 120, 130, 1]],
        "aicpu_tasks": []}))
    (d / "deps.json").write_text(deps if deps is not None else json.dumps({"tasks": [
        {"task_id": "1", "kernel_ids": [0, -1, -1]}, {"task_id": "2", "kernel_ids": [-1, 1, -1]},
        {"task_id": "3", "kernel_ids": [2, -1, -1]}], "tensors": [],
        "edges": [{"pred": "1", "succ": "2"}, {"pred": "2", "succ": "3"}]}))
    (d / "name_map_x.json").write_text(names if names is not None else
                                       json.dumps({"callable_id_to_name": {"0": "load", "1": "mid", "2": "store"}}))
    return d


def expect_error_with(r, file_hint, fragments, what):
    expect_one_error_line(r, file_hint, what)
    line = r.stderr.strip()
    for f in fragments:
        if f not in line:
            fail(f"{what}: error line lacks {f!r}: {line!r}")
    if r.returncode != 1:
        fail(f"{what}: exit {r.returncode}, expected 1")


def test_input_checks():
    """Issue 18 item 5: ids, cycle counts, edges, required members and repeated keys are checked."""
    d = spec_example_dir()
    edges_ok = [{"pred": "1", "succ": "2"}]
    # deps.json: an id that is fractional, boolean, negative or beyond 64 bits is one error line
    # naming the file, the byte, the member and what was expected (the reference makes a phantom task).
    for label, pred, frag in [("fractional id", 1.5, "a non-integer number"), ("boolean id", True, "a boolean"),
                              ("negative id", -1, "a negative integer"),
                              ("id below INT64_MIN", -(2**63) - 1, "a negative integer"),
                              ("id beyond 2^64", 2**64, "out of range"), ("id text", "12x", "not decimal digits")]:
        doc = {"tasks": [{"task_id": "1"}, {"task_id": "2"}], "edges": [{"pred": "1", "succ": "2"}, {"pred": pred, "succ": "2"}]}
        text = json.dumps(doc)
        (d / "bad.json").write_text(text)
        at = text.index('{"pred": ' + json.dumps(pred))
        expect_error_with(run(["deps", "bad.json", "-o", "o.txt"], cwd=d), "bad.json",
                          [f"at byte {at}", "edges[1].pred", "expected a task id", frag], label)
    for label, text, frag in [
            ("edges a string", '{"edges": "str"}', "edges: expected an array, found a string"),
            ("edges an object", '{"edges": {}}', "edges: expected an array, found an object"),
            ("edges missing", '{"tasks": []}', 'missing required member "edges"'),
            ("edge without succ", '{"edges": [{"pred": "1"}]}', 'edges[0]: missing required member "succ"'),
            ("edge not an object", '{"edges": [7]}', "edges[0]: expected an object"),
            ("task without id", '{"tasks": [{"block_num": 1}], "edges": []}', 'tasks[0]: missing required member "task_id"'),
            ("duplicate edges", '{"edges": [], "edges": [{"pred": "1", "succ": "2"}]}', 'at byte 14: duplicate top-level key "edges"')]:
        (d / "bad.json").write_text(text)
        expect_error_with(run(["deps", "bad.json", "-o", "o.txt"], cwd=d), "bad.json", [frag], label)
    # --lenient: the reference viewer's reading (drops, with one warning).
    (d / "bad.json").write_text(json.dumps({"edges": [{"pred": 1.5, "succ": "2"}, 7] + edges_ok}))
    r = run(["deps", "bad.json", "-o", "o.txt", "--lenient"], cwd=d)
    if r.returncode != 0 or "  unique_task_edges: 1" not in (d / "o.txt").read_text() or "ignored 1 edge entry" not in r.stderr:
        fail(f"--lenient: {r.returncode} {r.stderr!r} {(d / 'o.txt').read_text()!r}")

    # A corrupt sidecar beside deps.json (records, name map): an error, a warning with --lenient.
    side = workdir() / "side"
    side.mkdir()
    (side / "deps.json").write_text(json.dumps({"tasks": [{"task_id": "1", "kernel_ids": [0, -1, -1]}], "edges": []}))
    (side / "chip_swimlane_records.json").write_text('{"chip_swimlane_level": 1, "chip_swimlane_level": 1}')
    expect_error_with(run(["deps", "deps.json", "-o", "o.txt"], cwd=side), "chip_swimlane_records.json",
                      ['duplicate top-level key "chip_swimlane_level"'], "corrupt records sidecar")
    r = run(["deps", "deps.json", "-o", "o.txt", "--lenient"], cwd=side)
    if r.returncode != 0 or "Warning: couldn't read" not in r.stderr:
        fail(f"corrupt records sidecar with --lenient: {r.returncode} {r.stderr!r}")
    (side / "chip_swimlane_records.json").unlink()
    (side / "name_map_x.json").write_text('{"callable_id_to_name": {"0": 5}}')
    expect_error_with(run(["deps", "deps.json", "-o", "o.txt"], cwd=side), "name_map_x.json",
                      ["expected a string"], "name map with a number as name")
    r = run(["deps", "deps.json", "-o", "o.txt", "--lenient"], cwd=side)
    if r.returncode != 0 or "Warning: couldn't read" in r.stderr:
        fail(f"name map with a number, --lenient (the reference's str()): {r.returncode} {r.stderr!r}")

    # critical-path reads the records as swimlane does: fractional or negative cycle counts and
    # invalid UTF-8 are errors (it used to take int(1.5) and -5 at face value).
    good = json.loads(cp_run_dir(workdir()).joinpath("chip_swimlane_records.json").read_text())
    for label, mutate, frags in [
            ("fractional cycles", lambda t: t.replace("112, 120", "112.5, 120"), ["aicore_tasks[1][3]", "non-integer"]),
            ("negative cycles", lambda t: t.replace("112, 120", "-5, 120"), ["aicore_tasks[1][3]", "non-negative", "-5"]),
            ("invalid UTF-8", lambda t: t, ["UTF-8"])]:
        root = workdir()
        text = mutate(json.dumps(good))
        d2 = cp_run_dir(root, records=text)
        if label == "invalid UTF-8":
            (d2 / "chip_swimlane_records.json").write_bytes(json.dumps(good).encode().replace(b'"aic"', b'"a\xffc"'))
        expect_error_with(run(["critical-path", str(root)], cwd=root), "chip_swimlane_records.json", frags, label)
    root = workdir()
    cp_run_dir(root, names='{"callable_id_to_name": {"0": "a", "0": "b"}}')
    expect_error_with(run(["critical-path", str(root)], cwd=root), "name_map_x.json", ["duplicate key"], "name map dupes")
    if run(["critical-path", str(root), "--lenient"], cwd=root).returncode != 0:
        fail("critical-path --lenient with a repeated name-map key")

    # args dump: a truncated args.bin is an error before anything is listed or exported.
    dd = workdir(HERE / "dump_example")
    binf = dd / "args_dump" / "args.bin"
    whole = binf.read_bytes()
    binf.write_bytes(whole[: len(whole) - 10])
    for args in (["dump", "args_dump"], ["dump", "args_dump", "-e"]):
        expect_error_with(run(args, cwd=dd), "args.bin", ["truncated", "need more"], " ".join(args) + " on a cut args.bin")
    if (dd / "args_dump" / "txt").exists() and any((dd / "args_dump" / "txt").iterdir()):
        fail("an export from a cut args.bin wrote files")
    binf.unlink()
    os.mkfifo(binf)
    start = time.monotonic()
    expect_error_with(run(["dump", "args_dump", "-e"], cwd=dd), "args.bin", ["not a regular file"], "args.bin a FIFO")
    if time.monotonic() - start > 5:
        fail("args.bin as a FIFO took more than 5 s")

    # scope_stats.jsonl: empty, header only, and header count != rows are errors.
    sd = workdir() / "ss"
    sd.mkdir()
    meta = {"version": 6, "fatal": False, "dropped": 0, "total": 2, "task_window_max": [16, 16, 16, 16],
            "heap_max": [1024, 1024, 1024, 1024], "dep_pool_max": [16, 16, 16, 16], "tensormap_max": 64}
    rec = {"site": "s", "phase": "begin", "depth": 0, "ring": 0, "task_window_start": 1, "heap_start": 0,
           "dep_pool_start": 0, "tensormap": 0}
    end = dict(rec, phase="end", task_window_end=2, heap_end=0, dep_pool_end=0)
    lines = [json.dumps(meta), json.dumps(rec), json.dumps(end)]
    f = sd / "scope_stats.jsonl"
    f.write_text("\n".join(lines) + "\n")
    r = run(["scope-stats", str(f), "-o", str(sd / "r.html")], cwd=sd)
    if r.returncode != 0:
        fail(f"valid scope stats: {r.stderr}")
    for label, text, frag in [("empty", "", "file is empty"), ("header only", lines[0] + "\n", "no scope records"),
                              ("a row missing", "\n".join(lines[:2]) + "\n", "says total 2"),
                              ("negative level", "\n".join([lines[0], lines[1].replace('"heap_start": 0', '"heap_start": -5'), lines[2]]),
                               "expected a non-negative integer"),
                              ("repeated key", "\n".join([lines[0].replace('"fatal": false', '"fatal": false, "fatal": true')] + lines[1:]),
                               'duplicate key "fatal"')]:
        f.write_text(text)
        expect_error_with(run(["scope-stats", str(f), "-o", str(sd / "r.html")], cwd=sd), "scope_stats.jsonl", [frag], label)


def error_after_path(r, path_name, what):
    """The one error line of a run, from the file's name on (commands prefix it differently)."""
    line = r.stderr.strip()
    if r.returncode != 1 or "\n" in line or path_name not in line:
        fail(f"{what}: expected one error line naming {path_name}, exit 1: {r.returncode} {r.stderr!r}")
    return line[line.rindex(path_name):]


def test_one_reader_per_artefact():
    """Issue 18 item 2: deps.json and a name map have one reader each, so every command that reads
    one gives the same verdict and the same message (byte, member, what) for the same bad file."""
    d = workdir(cp_run_dir(workdir()))
    tasks_ok = [{"task_id": "1", "kernel_ids": [0, -1, -1]}, {"task_id": "2", "kernel_ids": [-1, 1, -1]}]
    edges_ok = [{"pred": "1", "succ": "2"}]
    for label, doc in [
            ("kernel_ids of two", {"tasks": [{"task_id": "1", "kernel_ids": [0, -1]}], "edges": edges_ok}),
            ("kernel_ids slot 1.5", {"tasks": [{"task_id": "1", "kernel_ids": [1.5, -1, -1]}], "edges": edges_ok}),
            ("kernel_ids a string", {"tasks": [{"task_id": "1", "kernel_ids": "0"}], "edges": edges_ok}),
            ("block_num negative", {"tasks": [{"task_id": "1", "block_num": -1}], "edges": edges_ok}),
            ("block_num a string", {"tasks": [{"task_id": "1", "block_num": "4"}], "edges": edges_ok}),
            ("tasks an object", {"tasks": {}, "edges": edges_ok}),
            ("tensors a string", {"tasks": tasks_ok, "tensors": "x", "edges": edges_ok}),
            ("tensor without id", {"tasks": tasks_ok, "tensors": [{"dtype": "FLOAT32"}], "edges": edges_ok}),
            ("tensor id 1.5", {"tasks": tasks_ok, "tensors": [{"tensor_id": 1.5}], "edges": edges_ok}),
            ("edge not an object", {"tasks": tasks_ok, "edges": edges_ok + [7]}),
            ("pred a boolean", {"tasks": tasks_ok, "edges": edges_ok + [{"pred": True, "succ": "2"}]}),
            ("edges a string", {"tasks": tasks_ok, "edges": "str"}),
            ("edges missing", {"tasks": tasks_ok})]:
        (d / "deps.json").write_text(json.dumps(doc))
        runs = {"deps": run(["deps", "deps.json", "-o", "o.txt"], cwd=d),
                "critical-path": run(["critical-path", str(d)], cwd=d),
                "swimlane": run(["swimlane", "chip_swimlane_records.json", "-o", "t.json"], cwd=d)}
        # (sched-overhead reads it as swimlane does, deps_policy::required: the deps_reader fuzzer
        # holds the two policies to the same verdict; its level check stops it on this level-2 capture)
        errors = {cmd: error_after_path(r, "deps.json", f"{label} ({cmd})") for cmd, r in runs.items()}
        if len(set(errors.values())) != 1:
            fail(f"deps.json {label}: the commands disagree: {errors}")
    # A repeated pred: one of the two ids would be ignored.
    (d / "deps.json").write_text('{"tasks": [], "edges": [{"pred": "1", "pred": "3", "succ": "2"}]}')
    errors = {cmd: error_after_path(run(args, cwd=d), "deps.json", "repeated pred " + cmd)
              for cmd, args in [("deps", ["deps", "deps.json", "-o", "o.txt"]),
                                ("swimlane", ["swimlane", "chip_swimlane_records.json", "-o", "t.json"])]}
    if len(set(errors.values())) != 1 or 'edges[0]: duplicate key "pred"' not in errors["deps"]:
        fail(f"repeated pred: {errors}")
    (d / "deps.json").write_text(json.dumps({"tasks": tasks_ok, "edges": edges_ok}))

    # The name map: one reader, one set of checks, whichever command reads it.
    for label, text in [("names a string", '{"callable_id_to_name": "x"}'),
                        ("a number as name", '{"callable_id_to_name": {"0": 5}}'),
                        ("repeated id", '{"callable_id_to_name": {"0": "a", "0": "b"}}'),
                        ("repeated top-level key", '{"level": 2, "level": 2, "callable_id_to_name": {"0": "a"}}'),
                        ("orchestrator_name a number", '{"orchestrator_name": 5, "callable_id_to_name": {"0": "a"}}'),
                        ("not an object", '["0", "a"]'),
                        ("truncated", '{"callable_id_to_name": {"0": "a"')]:
        (d / "name_map_x.json").write_text(text)
        runs = {"deps": run(["deps", "deps.json", "-o", "o.txt"], cwd=d),
                "critical-path": run(["critical-path", str(d)], cwd=d),
                "swimlane": run(["swimlane", "chip_swimlane_records.json", "-o", "t.json"], cwd=d)}
        errors = {cmd: error_after_path(r, "name_map_x.json", f"name map {label} ({cmd})") for cmd, r in runs.items()}
        if len(set(errors.values())) != 1:
            fail(f"name map {label}: the commands disagree: {errors}")



def complete(words):
    """What tools/dfx/dfx.bash-completion offers after `words` (the last is the word being typed)."""
    script = (f"source {shlex.quote(str(ROOT / 'tools' / 'dfx' / 'dfx.bash-completion'))}\n"
              f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)})\nCOMP_CWORD={len(words) - 1}\n"
              "_dfx\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n")
    r = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        fail(f"completion of {words}: bash exit {r.returncode}: {r.stderr.strip()}")
    return set(line for line in r.stdout.splitlines() if line)


def test_bash_completion():
    """Run by bash itself, the completion offers every command, for each command exactly the
    options its --help lists, and after each option with a checked set of values exactly that set."""
    commands = complete(["dfx", ""]) - {"--help", "--version"}
    listed_commands = set(re.findall(r"^  ([a-z][a-z-]*)\b", run(["--help"], ROOT).stdout, re.M))
    if commands != listed_commands:
        fail(f"completed commands {sorted(commands)} != dfx --help {sorted(listed_commands)}")
    for cmd in sorted(commands):
        helptext = run([cmd, "--help"], ROOT).stdout
        options, choices = set(), {}
        # "  -o,--output,--report TEXT", "  --format TEXT:{json,perfetto}": names, then type and choices.
        for m in re.finditer(r"^  ((?:--?[a-zA-Z][a-z-]*,)*--?[a-zA-Z][a-z-]*)(?: [A-Z]+:\{([^}]*)\})?", helptext, re.M):
            names = m.group(1).split(",")
            options.update(n for n in names if n != "-h")  # -h: --help is what is offered
            if m.group(2):
                for n in names:
                    choices[n] = set(m.group(2).split(","))
        offered = complete(["dfx", cmd, "-"])
        if offered != options:
            fail(f"{cmd}: completion offers {sorted(offered - options)} that --help does not list, "
                 f"and lacks {sorted(options - offered)}")
        for option, values in choices.items():
            got = complete(["dfx", cmd, option, ""])
            if got != values:
                fail(f"{cmd} {option}: completion offers {sorted(got)}, --help lists {sorted(values)}")


TESTS = {name[5:]: fn for name, fn in globals().items() if name.startswith("test_")}

if __name__ == "__main__":
    if TEST not in TESTS:
        fail(f"unknown test; known: {', '.join(TESTS)}")
    TESTS[TEST]()
    print(f"ok [{TEST}]")
