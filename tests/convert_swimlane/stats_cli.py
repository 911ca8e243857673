#!/usr/bin/env python3
"""Machine-readable statistics (docs/converters.md, "Machine-readable statistics"):
`dfx swimlane --stats json|csv`, `dfx sched-overhead --stats json|csv`,
`dfx pmu --format json|csv` and the top-N kernels table.

Usage: stats_cli.py TEST DFX CONFORMANCE_DIR [DFX_SIM]

  known_answer       a hand-made level-2 capture (1 MHz clock: a cycle is a microsecond)
                     whose count, total, mean, median, min, max, share and core busy %
                     are worked out by hand below; json, csv and --top
  swimlane_vs_text   on the conformance captures, every number of --stats json / csv
                     equals the text table's, rounded as the text rounds it
  sched_vs_text      sched-overhead --stats json / csv against its text report
  pmu_vs_text        pmu --format json / csv against its text tables
  bad_flags          a bad value: exit 2 and one error line naming the flag; the
                     default text is unchanged when a --stats file is written
  sim                a dfx-sim capture: swimlane --stats json against the text, and
                     against `dfx report --format json|csv`'s kernels
"""

import csv
import io
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import scratch_dirs  # noqa: E402

TEST, DFX, CONF = sys.argv[1], sys.argv[2], Path(sys.argv[3])
SIM = sys.argv[4] if len(sys.argv) > 4 else None


def fail(msg):
    print(f"FAIL [{TEST}]: {msg}")
    sys.exit(1)


def dfx(*args, cwd=None, rc=0):
    p = subprocess.run([DFX, *map(str, args)], capture_output=True, text=True, timeout=120, cwd=cwd)
    if rc is not None and p.returncode != rc:
        fail(f"dfx {' '.join(map(str, args))}: exit {p.returncode}, expected {rc}: {p.stderr.strip()}")
    return p


def close(got, want, what, tol=1e-9):
    if got is None or not math.isclose(float(got), want, rel_tol=tol, abs_tol=tol):
        fail(f"{what}: {got!r}, expected {want!r}")


def rounds_to(value, text, what):
    """value, rounded as the text prints it (its number of decimals), is the text."""
    decimals = len(text.split(".")[1]) if "." in text else 0
    if f"{value:.{decimals}f}" != text:
        fail(f"{what}: {value!r} does not print as {text!r}")


def scratch(src=None):
    d = scratch_dirs.make("dfx-stats-test-")
    if src:
        shutil.copytree(src, d / "run")
        return d / "run"
    return d


# ---------------------------------------------------------------- known answer

# (core, kernel, start, duration): cores 0 and 1 are AIC, core 2 AIV; times in us.
ROWS = [(0, 0, 1000, 10), (0, 0, 1010, 20), (0, 0, 1030, 60), (1, 0, 1000, 30),
        (2, 1, 1000, 5), (2, 1, 1005, 15), (2, 1, 1020, 70)]
# By hand: alpha (func 0) 10, 20, 60, 30: count 4, total 120, mean 30, median (20 + 30) / 2 = 25,
# min 10, max 60, on 2 cores; beta (func 1) 5, 15, 70: count 3, total 90, mean 30, median 15,
# min 5, max 70, on 1 core. Makespan 1000 -> 1090 = 90 us. Share: 120 / 210, 90 / 210.
# Core busy: 120 / (2 x 90), 90 / (1 x 90). Dispatch 2 us before start, finish 1 us after end,
# receive 1 us before start: latency = exec + 3, head 2, tail 1, prop 1, local 1.
ALPHA = dict(name="alpha", func_id=0, count=4, total=120, mean=30, median=25, min=10, max=60, cores=2,
             share=120 / 210 * 100, busy=120 / 180 * 100)
BETA = dict(name="beta", func_id=1, count=3, total=90, mean=30, median=15, min=5, max=70, cores=1,
            share=90 / 210 * 100, busy=100.0)


def known_capture():
    d = scratch()
    aicore, aicpu, tasks = [], [], []
    for i, (core, kernel, start, dur) in enumerate(ROWS):
        token = 4294967296 + i
        aicore.append([core, token, i + 1, start, start + dur, 1])
        aicpu.append([core, i + 1, start - 2, start + dur + 1])
        tasks.append({"task_id": str(token), "kernel_ids": [0, -1, -1] if kernel == 0 else [-1, 1, -1], "block_num": 1})
    records = {"chip_swimlane_level": 2,
               "metadata": {"clock_freq_hz": 1000000, "num_cores": 3, "core_types": ["aic", "aic", "aiv"]},
               "aicore_tasks": sorted(aicore), "aicpu_tasks": sorted(aicpu)}
    (d / "chip_swimlane_records.json").write_text(json.dumps(records, indent=2))
    edges = [{"pred": str(4294967296 + a), "succ": str(4294967296 + b)} for a, b in [(0, 1), (1, 2), (4, 5), (5, 6)]]
    (d / "deps.json").write_text(json.dumps({"tasks": tasks, "edges": edges}))
    (d / "name_map_known.json").write_text(json.dumps(
        {"level": 2, "orchestrator_name": "known", "callable_id_to_name": {"0": "alpha", "1": "beta"}}))
    return d


def check_kernel_json(k, want, what):
    if k["name"] != want["name"] or k["func_id"] != want["func_id"] or k["cores"] != want["cores"]:
        fail(f"{what}: {k}")
    e = k["exec"]
    if e["count"] != want["count"]:
        fail(f"{what}: count {e['count']}, expected {want['count']}")
    for key, w in [("total_us", "total"), ("mean_us", "mean"), ("median_us", "median"), ("min_us", "min"), ("max_us", "max")]:
        close(e[key], want[w], f"{what}.{key}")
    close(k["share_pct"], want["share"], f"{what}.share_pct")
    close(k["core_busy_pct"], want["busy"], f"{what}.core_busy_pct")


def check_kernel_csv(row, want, what):
    if row["kernel"] != want["name"] or int(row["func_id"]) != want["func_id"] or int(row["count"]) != want["count"]:
        fail(f"{what}: {row}")
    for key, w in [("total_us", "total"), ("mean_us", "mean"), ("median_us", "median"), ("min_us", "min"),
                   ("max_us", "max"), ("share_pct", "share"), ("core_busy_pct", "busy")]:
        close(row[key], want[w], f"{what}.{key}")
    if int(row["cores"]) != want["cores"]:
        fail(f"{what}.cores: {row['cores']}")


def test_known_answer():
    d = known_capture()
    doc = json.loads(dfx("swimlane", d, "-o", d / "t.json", "--stats", "json").stdout)
    top = doc["top_kernels"]
    if len(top) != 2:
        fail(f"{len(top)} top kernels, expected 2")
    check_kernel_json(top[0], ALPHA, "top_kernels[0]")
    check_kernel_json(top[1], BETA, "top_kernels[1]")
    close(doc["makespan_us"], 90, "makespan_us")
    close(doc["test_time_us"], 1091 - 998, "test_time_us")
    if doc["aicore_span_us"] is not None or doc["level"] != 2:
        fail(f"level {doc['level']}, aicore_span_us {doc['aicore_span_us']}")
    alpha = doc["functions"][0]
    for key, want in [("avg_exec_us", 30), ("avg_latency_us", 33), ("exec_pct", 120 / 132 * 100), ("avg_head_oh_us", 2),
                      ("avg_tail_oh_us", 1), ("avg_prop_us", 1), ("avg_local_us", 1)]:
        close(alpha[key], want, f"functions[0].{key}")
    if doc["total"]["count"] != 7:
        fail(f"total {doc['total']}")
    close(doc["total"]["exec_us"], 210, "total.exec_us")
    close(doc["total"]["latency_us"], 231, "total.latency_us")

    rows = list(csv.DictReader(io.StringIO(dfx("swimlane", d, "-o", d / "t.json", "--stats", "csv").stdout)))
    if len(rows) != 2:
        fail(f"csv: {len(rows)} rows")
    check_kernel_csv(rows[0], ALPHA, "csv row 1")
    check_kernel_csv(rows[1], BETA, "csv row 2")
    close(rows[0]["avg_latency_us"], 33, "csv avg_latency_us")

    one = json.loads(dfx("swimlane", d, "-o", d / "t.json", "--stats", "json", "--top", "1").stdout)
    if [k["name"] for k in one["top_kernels"]] != ["alpha"] or len(one["functions"]) != 2:
        fail(f"--top 1: {[k['name'] for k in one['top_kernels']]}")

    # dfx report shows the same table: json, csv, and the text's rounded cells.
    rep = json.loads(dfx("report", d, "--format", "json", "--top", "0").stdout)["units"][0]["kernels"]
    check_kernel_json(rep[0], ALPHA, "report kernels[0]")
    check_kernel_json(rep[1], BETA, "report kernels[1]")
    rows = list(csv.DictReader(io.StringIO(dfx("report", d, "--format", "csv").stdout)))
    if [r["section"] for r in rows] != [".", "."]:
        fail(f"report csv sections {[r['section'] for r in rows]}")
    check_kernel_csv(rows[0], ALPHA, "report csv row 1")
    check_kernel_csv(rows[1], BETA, "report csv row 2")
    text = dfx("report", d).stdout
    if not re.search(r"^\s+alpha\s+0\s+4\s+120\.0\s+57\.1%\s+30\.00\s+25\.00\s+10\.00\s+60\.00\s+2\s+66\.7%$", text, re.M):
        fail(f"report text: no alpha row as worked out by hand:\n{text}")
    if not re.search(r"^\s+beta\s+1\s+3\s+90\.0\s+42\.9%\s+30\.00\s+15\.00\s+5\.00\s+70\.00\s+1\s+100\.0%$", text, re.M):
        fail(f"report text: no beta row as worked out by hand:\n{text}")


# ------------------------------------------------------------ swimlane vs text

def text_rows(stdout):
    """The statistics table's function rows: {func_id: cells}."""
    out = {}
    body = stdout.split("Task Statistics by Function", 1)[1]
    for line in body.splitlines():
        m = re.match(r"^(-?\d+)\s+(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", line)
        if m:
            out[int(m.group(1))] = m.groups()[1:]
    return out


def test_swimlane_vs_text():
    for case in ["l1_small", "l2_nodeps", "l3_deps", "l4_deps"]:
        d = scratch(CONF / case)
        text = dfx("swimlane", d, "-o", d / "t.json").stdout
        rows = text_rows(text)
        p = dfx("swimlane", d, "-o", d / "t.json", "--stats", "json", "--top", "0")
        doc = json.loads(p.stdout)
        if "Conversion complete" not in p.stderr:
            fail(f"{case}: the console report did not move to stderr")
        if sorted(rows) != [f["func_id"] for f in doc["functions"]]:
            fail(f"{case}: functions {[f['func_id'] for f in doc['functions']]} != text rows {sorted(rows)}")
        for f in doc["functions"]:
            name, count, exec_, lat, pct, head, tail, prop, local = rows[f["func_id"]]
            what = f"{case} func {f['func_id']}"
            if f["name"] != name or str(f["count"]) != count:
                fail(f"{what}: {f['name']} {f['count']} != {name} {count}")
            rounds_to(f["avg_exec_us"], exec_, f"{what} avg_exec_us")
            rounds_to(f["avg_local_us"], local, f"{what} avg_local_us")
            for key, cell in [("avg_latency_us", lat), ("avg_head_oh_us", head), ("avg_tail_oh_us", tail),
                              ("avg_prop_us", prop)]:
                if cell == "-":
                    if f[key] is not None:
                        fail(f"{what} {key}: {f[key]}, the text prints -")
                else:
                    rounds_to(f[key], cell, f"{what} {key}")
            if pct != "-":
                rounds_to(f["exec_pct"], pct.rstrip("%"), f"{what} exec_pct")
        m = re.search(r"^TOTAL\s+(\d+)\s+(\S+)", text, re.M)
        if int(m.group(1)) != doc["total"]["count"]:
            fail(f"{case}: TOTAL {m.group(1)} != {doc['total']['count']}")
        rounds_to(doc["total"]["exec_us"], m.group(2), f"{case} total exec")
        m = re.search(r"Total Test Time: (\S+) us", text)
        if m:
            rounds_to(doc["test_time_us"], m.group(1), f"{case} test time")
        # The top-N table: every kernel (--top 0), by total, agreeing with the function rows.
        top = doc["top_kernels"]
        if len(top) != len(doc["functions"]) or any(a["exec"]["total_us"] < b["exec"]["total_us"] for a, b in zip(top, top[1:])):
            fail(f"{case}: top_kernels not every kernel by total")
        by_id = {f["func_id"]: f for f in doc["functions"]}
        for k in top:
            f = by_id[k["func_id"]]
            if k["exec"]["count"] != f["count"]:
                fail(f"{case} {k['name']}: count {k['exec']['count']} != {f['count']}")
            close(k["exec"]["mean_us"], f["avg_exec_us"], f"{case} {k['name']} mean", 1e-6)
        close(sum(k["share_pct"] for k in top), 100, f"{case} shares sum", 1e-6)
        # CSV: the same kernels, the header the docs list, --top 3.
        rows_csv = list(csv.DictReader(io.StringIO(dfx("swimlane", d, "-o", d / "t.json", "--stats", "csv", "--top", "3").stdout)))
        if [r["func_id"] for r in rows_csv] != [str(k["func_id"]) for k in top[:3]]:
            fail(f"{case}: csv kernels {[r['func_id'] for r in rows_csv]}")
        for r, k in zip(rows_csv, top):
            close(r["total_us"], k["exec"]["total_us"], f"{case} csv total_us")
        # --stats-output: the file, and the console report back on stdout.
        p = dfx("swimlane", d, "-o", d / "t.json", "--stats", "json", "--stats-output", d / "s.json")
        if json.loads((d / "s.json").read_text()) != json.loads(dfx("swimlane", d, "-o", d / "t.json", "--stats", "json").stdout):
            fail(f"{case}: --stats-output differs from stdout")
        if "Conversion complete" not in p.stdout:
            fail(f"{case}: with --stats-output the console report belongs on stdout")


# ------------------------------------------------------- sched-overhead vs text

def test_sched_vs_text():
    for case in ["l3_deps", "l4_deps"]:
        d = scratch(CONF / case)
        text = dfx("sched-overhead", d).stdout
        p = dfx("sched-overhead", d, "--stats", "json")
        doc = json.loads(p.stdout)
        if "Perf data:" not in p.stderr or "Perf data:" in p.stdout:
            fail(f"{case}: the preamble belongs on stderr with --stats json")
        m = re.search(r"all_overhead (\S+)% .* has_overhead (\S+)%", text)
        rounds_to(doc["verdict"]["all_overhead_pct"], m.group(1), f"{case} all_overhead_pct")
        rounds_to(doc["verdict"]["has_overhead_pct"], m.group(2), f"{case} has_overhead_pct")
        m = re.search(r"Total tasks: (\d+)\s+window: (\S+) us", text)
        if doc["run"]["tasks"] != int(m.group(1)):
            fail(f"{case}: tasks {doc['run']['tasks']}")
        rounds_to(doc["run"]["window_us"], m.group(2), f"{case} window")
        for part, label in [("head_oh", "Head OH"), ("tail_oh", "Tail OH")]:
            block = text.split(f"{label} distribution", 1)[1]
            for p_ in ["10", "50", "99"]:
                rounds_to(doc[part][f"p{p_}_us"], re.search(rf"P{p_}\s+(\S+) us", block).group(1), f"{case} {part} p{p_}")
            rounds_to(doc[part]["total_us"], re.search(r"Total:\s+(\S+) us", block).group(1), f"{case} {part} total")
        threads = re.findall(r"^  T(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)$", text, re.M)
        if len(threads) != len(doc["loop"]["threads"]):
            fail(f"{case}: {len(doc['loop']['threads'])} threads, text {len(threads)}")
        for (t, loops, tasks, ns, total), j in zip(threads, doc["loop"]["threads"]):
            if j["thread"] != t or j["loops"] != int(loops) or j["tasks"] != int(tasks):
                fail(f"{case}: thread {j} != T{t} {loops} {tasks}")
            rounds_to(j["total_us"], total, f"{case} T{t} total")
        m = re.search(r"Makespan-determining path: (\d+) hops, span (\S+) us", text)
        if doc["critical_path"]["hops"] != int(m.group(1)):
            fail(f"{case}: hops")
        rounds_to(doc["critical_path"]["span_us"], m.group(2), f"{case} path span")
        # CSV: one row per number of the JSON, same values.
        rows = list(csv.DictReader(io.StringIO(dfx("sched-overhead", d, "--stats", "csv").stdout)))
        if list(rows[0]) != ["part", "key", "name", "measure", "value"]:
            fail(f"{case}: csv header {list(rows[0])}")
        leaves = sum(len([k for k, v in part.items() if not isinstance(v, list)]) +
                     sum(len(item) - 1 for v in part.values() if isinstance(v, list) for item in v) for part in doc.values())
        if len(rows) != leaves:
            fail(f"{case}: {len(rows)} csv rows, {leaves} json values")
        for r in rows:
            if r["key"]:
                item = next(i for i in doc[r["part"]][r["key"] + "s"] if i[r["key"]] == r["name"])
                want = item[r["measure"]]
            else:
                want = doc[r["part"]][r["measure"]]
            if str(want) != r["value"] and not (isinstance(want, float) and math.isclose(want, float(r["value"]))):
                fail(f"{case}: csv {r} != json {want}")
        # The text into a file: the same bytes as on stdout.
        dfx("sched-overhead", d, "--stats-output", d / "s.txt")
        if (d / "s.txt").read_text() not in text:
            fail(f"{case}: --stats-output text differs from stdout")


# ---------------------------------------------------------------- pmu vs text

def test_pmu_vs_text():
    d = scratch(CONF / "l4_deps")
    text = dfx("pmu", d).stdout
    doc = json.loads(dfx("pmu", d, "--format", "json").stdout)
    kernel_block = text.split("PER KERNEL (by total cycles)\n", 1)[1].split("\n\n", 1)[0].splitlines()
    header, lines = kernel_block[0].split(), [l.split() for l in kernel_block[1:]]
    if len(lines) != len(doc["kernels"]):
        fail(f"{len(doc['kernels'])} json kernels, text {len(lines)}")
    for cells, k in zip(lines, doc["kernels"]):
        row = dict(zip(header, cells))
        if row["kernel"] != k["name"] or int(row["func_id"]) != k["func_id"] or int(row["total_cycles"]) != k["total_cycles"]:
            fail(f"kernel {k['name']}: {row}")
        rounds_to(k["mean_cycles"], row["mean_cycles"], f"{k['name']} mean_cycles")
        for c in doc["counters"]:
            if c + "%" in row:
                rounds_to(k["cycle_pct"][c], row[c + "%"], f"{k['name']} {c}%")
            else:
                rounds_to(k["per_row"][c], row[c + "/row"], f"{k['name']} {c}/row")
    rows = list(csv.DictReader(io.StringIO(dfx("pmu", d, "--format", "csv").stdout)))
    kernels = [r for r in rows if r["table"] == "kernel"]
    cores = [r for r in rows if r["table"] == "core"]
    if len(kernels) != len(doc["kernels"]) or len(cores) != len(doc["cores"]) or len(rows) != len(kernels) + len(cores):
        fail(f"csv: {len(kernels)} kernel rows, {len(cores)} core rows")
    for r, k in zip(kernels, doc["kernels"]):
        for c in doc["counters"]:
            want = k["cycle_pct"][c] if c in k["cycle_pct"] else k["per_row"][c]
            got = r.get(c + "_pct", r.get(c + "_per_row"))
            close(got, want, f"csv {k['name']} {c}")
    only = json.loads(dfx("pmu", d, "--format", "json", "--by", "kernel").stdout)
    if only["cores"] is not None or only["kernels"] != doc["kernels"]:
        fail("--by kernel: cores should be null")


# ------------------------------------------------------------------ bad flags

def test_bad_flags():
    d = scratch(CONF / "l3_deps")
    for args, flag in [(["swimlane", d, "--stats", "xml"], "--stats"),
                       (["swimlane", d, "--top", "-1"], "--top"),
                       (["swimlane", d, "-o", "-", "--stats", "json"], "--stats"),
                       (["swimlane", d, "--stats", "json", "--stats-output", d / "merged_swimlane.json"], "--stats-output"),
                       (["sched-overhead", d, "--stats", "yaml"], "--stats"),
                       (["pmu", CONF / "l4_deps", "--format", "html"], "--format"),
                       (["report", d, "--format", "xml"], "--format"),
                       (["report", d, "--top", "x"], "--top")]:
        p = dfx(*args, rc=2)
        err = p.stderr.strip().splitlines()
        if len(err) != 1 or flag not in err[0]:
            fail(f"dfx {' '.join(map(str, args))}: stderr {err!r}, expected one line naming {flag}")
    # The default text is the text with or without a --stats file beside it.
    plain = dfx("swimlane", d, "-o", d / "t.json").stdout
    p = dfx("swimlane", d, "-o", d / "t.json", "--stats", "text", "--stats-output", d / "s.txt")
    table = (d / "s.txt").read_text()
    if not table.strip() or table not in plain:
        fail("--stats text --stats-output: not the table the console shows")


# ------------------------------------------------------------------ dfx-sim

def test_sim():
    if not SIM:
        fail("needs DFX_SIM")
    w = scratch()
    p = subprocess.run([SIM, "--work-dir", w, "--workload", "fanout", "--enable-chip-swimlane", "--chip-swimlane-level", "3",
                        "--enable-dep-gen"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail(f"dfx-sim: {p.stderr}")
    out = w / "dfx_outputs"
    text = dfx("swimlane", out, "-o", w / "t.json").stdout
    rows = text_rows(text)
    doc = json.loads(dfx("swimlane", out, "-o", w / "t.json", "--stats", "json", "--top", "0").stdout)
    if not rows or sorted(rows) != [f["func_id"] for f in doc["functions"]]:
        fail(f"functions {[f['func_id'] for f in doc['functions']]} != text {sorted(rows)}")
    for f in doc["functions"]:
        cells = rows[f["func_id"]]
        if str(f["count"]) != cells[1]:
            fail(f"func {f['func_id']} count")
        rounds_to(f["avg_exec_us"], cells[2], f"func {f['func_id']} avg exec")
        rounds_to(f["avg_latency_us"], cells[3], f"func {f['func_id']} avg latency")
    rep = json.loads(dfx("report", out, "--format", "json", "--top", "0").stdout)["units"][0]["kernels"]
    if [(k["func_id"], k["exec"]["count"]) for k in rep] != [(k["func_id"], k["exec"]["count"]) for k in doc["top_kernels"]]:
        fail("report's kernels differ from swimlane's top kernels")
    for a, b in zip(rep, doc["top_kernels"]):
        close(a["exec"]["total_us"], b["exec"]["total_us"], f"{a['name']} total", 1e-9)
        close(a["core_busy_pct"], b["core_busy_pct"], f"{a['name']} core busy", 1e-9)
    rows = list(csv.DictReader(io.StringIO(dfx("report", out, "--format", "csv", "--top", "2").stdout)))
    if [int(r["func_id"]) for r in rows] != [k["func_id"] for k in rep[:2]]:
        fail(f"report csv --top 2: {[r['func_id'] for r in rows]}")


TESTS = {name[5:]: fn for name, fn in globals().items() if name.startswith("test_")}
if TEST not in TESTS:
    fail(f"unknown test {TEST}")
TESTS[TEST]()
print(f"ok [{TEST}]")
