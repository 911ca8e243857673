#!/usr/bin/env python3
"""Every trace dfx writes honours --format perfetto: critical-path's CPM traces and
`dfx all --format perfetto`.

  critical_path  For each capture (the conformance cases with deps.json and a name
                 map, and a generated level-4 capture with SPMD, MIX, dummies and
                 early dispatch): `dfx swimlane` writes merged_swimlane.json,
                 `dfx critical-path` copies it to CPM_static.json / CPM_observed.json,
                 `dfx critical-path --format perfetto` writes CPM_static.pftrace /
                 CPM_observed.pftrace from the capture. Each protobuf trace must hold
                 its JSON trace's events, event for event (perfetto_trace.py: names,
                 slices with their args, counters, flows; protoc cross-checks when
                 installed), with bars off the path renamed and bars on it not.
  all            `dfx all --format perfetto` on a copy of a conformance case and on
                 an L3 tree of two dispatches: every trace it writes is a .pftrace
                 that decodes, no .json trace is written, and the summary names
                 each trace; `dfx all` without the flag still writes the JSON
                 traces and its summary names none.
  bad_flags      --format foo on critical-path and all: exit 2, one error naming
                 --format, nothing written.
  big_trace_note With DFX_UI_TRACE_LIMIT_MB=0 (every trace over the limit) swimlane,
                 critical-path and all print one "Note:" per trace on stderr naming
                 it and its size, `trace_processor --httpd` with the path quoted as
                 shlex.quote does, and the remedies the command has (--window for
                 swimlane traces, with the capture's span from swimlane itself, which
                 as a window keeps every task; --format perfetto for JSON ones); none for these
                 small traces at the default limit or with a value that is not a
                 limit, nor for an output that is not a regular file of its own.

Usage: perfetto_all_traces.py TEST DFX CONFORMANCE_DIR GENERATOR
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import perfetto_equivalence  # noqa: E402
import perfetto_trace  # noqa: E402

CASES = ["l1_small", "l3_deps", "l4_deps", "l4_host"]  # records + deps.json + a name map
ANONYMOUS = "\u00b7("  # ·(tY): a Worker View bar off the path


def run(cmd, cwd, expect=0, env=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False, timeout=300, env=env)
    if expect is not None and r.returncode != expect:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode} (expected {expect}):\n{r.stdout}\n{r.stderr}")
    return r


def copy_case(conformance, case, tmp):
    d = os.path.join(tmp, case)
    shutil.copytree(os.path.join(conformance, case), d, ignore=shutil.ignore_patterns("expected"))
    return d


def generated_case(generator, tmp):
    d = os.path.join(tmp, "generated_l4_variety")
    subprocess.run([sys.executable, generator, "600", d, "--variety"], check=True, capture_output=True)
    names = {str(i): n for i, n in enumerate(["QK", "SOFTMAX", "PV", "UPDATE", "GATE_spmd"])}
    with open(os.path.join(d, "name_map_generated.json"), "w") as f:
        json.dump({"level": 2, "orchestrator_name": "orch", "callable_id_to_name": names}, f)
    return d


def worker_names(path):
    """Names of the Worker View (pid 4) slices of a JSON trace."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    return [e.get("name", "") for e in events if e.get("ph") == "X" and e.get("pid") == 4]


def worker_labels(pftrace):
    """The Worker View (pid 4) slice names of a protobuf trace; None for a bar off the path."""
    return {None if s["name"].startswith(ANONYMOUS) else s["name"]
            for s in perfetto_trace.decode(pftrace).slices if s["pid"] == 4}


def test_critical_path(dfx, conformance, generator, tmp, failures):
    dirs = [copy_case(conformance, c, tmp) for c in CASES] + [generated_case(generator, tmp)]
    for d in dirs:
        label = os.path.basename(d)
        run([dfx, "swimlane", "chip_swimlane_records.json"], d)
        r_json = run([dfx, "critical-path", d], d)
        r_pb = run([dfx, "critical-path", d, "--format", "perfetto"], d)
        for model in ("CPM_static", "CPM_observed"):
            js, pb = os.path.join(d, model + ".json"), os.path.join(d, model + ".pftrace")
            if not os.path.exists(js) or not os.path.exists(pb):
                failures.append(f"{label}: {model}: missing {js if not os.path.exists(js) else pb}")
                continue
            if f"Perfetto trace written to: {pb}" not in r_pb.stdout or f"Perfetto trace written to: {js}" not in r_json.stdout:
                failures.append(f"{label}: {model}: the console does not name the trace it wrote")
            names = worker_names(js)
            anonymous = sum(n.startswith(ANONYMOUS) for n in names)
            if not 0 < anonymous < len(names):
                failures.append(f"{label}: {model}.json: {anonymous} of {len(names)} bars renamed (want some, not all)")
            problems, decoded = perfetto_trace.compare(js, pb)
            if problems:
                failures.append(f"{label}: {model}: {len(problems)} difference(s): {problems[:3]}")
            if not decoded.slices:
                failures.append(f"{label}: {model}.pftrace has no slices")
            pb_anonymous = sum(1 for s in decoded.slices if s["pid"] == 4 and s["name"].startswith(ANONYMOUS))
            if pb_anonymous != anonymous:
                failures.append(f"{label}: {model}: {pb_anonymous} bars renamed in the protobuf, {anonymous} in the JSON")
            print(f"== {label} {model}: JSON {os.path.getsize(js)} bytes, protobuf {os.path.getsize(pb)} bytes, "
                  f"{anonymous} of {len(names)} bars off the path, {len(problems)} differences")
            perfetto_equivalence.protoc_check(pb, decoded, failures, f"{label} {model}")
    # Without a merged trace the protobuf traces are still written (drawn from the capture).
    d = dirs[-1]
    for f in os.listdir(d):
        if f.startswith(("merged_swimlane", "CPM_")):
            os.remove(os.path.join(d, f))
    r = run([dfx, "critical-path", d, "--format", "perfetto"], d)
    if not all(os.path.exists(os.path.join(d, m + ".pftrace")) for m in ("CPM_static", "CPM_observed")):
        failures.append(f"critical-path --format perfetto without a merged trace wrote no traces:\n{r.stdout}{r.stderr}")
    if any(f.endswith(".json") and f.startswith(("CPM_", "merged_")) for f in os.listdir(d)):
        failures.append("critical-path --format perfetto wrote a JSON trace")


def trace_files(root):
    out = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.startswith(("merged_swimlane", "CPM_")):
                out.append(os.path.join(dirpath, f))
    return sorted(out)


def test_all(dfx, conformance, generator, tmp, failures):
    d = copy_case(conformance, "l4_deps", tmp)
    r = run([dfx, "all", d, "--format", "perfetto", "-j", "2"], d)
    traces = trace_files(d)
    want = sorted(os.path.join(d, f) for f in ("merged_swimlane.pftrace", "CPM_static.pftrace", "CPM_observed.pftrace"))
    if traces != want:
        failures.append(f"dfx all --format perfetto wrote {traces}, want {want}\n{r.stdout}")
    named = sorted(line.split("trace: ", 1)[1] for line in r.stdout.splitlines() if line.strip().startswith("trace: "))
    if named != want:
        failures.append(f"dfx all --format perfetto: the summary names {named}, want {want}:\n{r.stdout}")
    for t in traces:
        try:
            decoded = perfetto_trace.decode(t)
        except Exception as e:  # noqa: BLE001 - any decoding failure is the finding
            failures.append(f"{t}: does not decode: {e}")
            continue
        if not decoded.slices:
            failures.append(f"{t}: no slices")
        elif decoded.problems:
            failures.append(f"{t}: {decoded.problems[:3]}")
        else:
            print(f"{os.path.basename(t)}: {len(decoded.slices)} slices, {decoded.packets} packets")
    # An L3 tree: every dispatch's traces, all named.
    root = os.path.join(tmp, "l3_tree")
    for k, case in enumerate(("l3_deps", "l1_small")):
        unit = os.path.join(root, "rank0", f"d{k}")
        shutil.copytree(os.path.join(conformance, case), unit, ignore=shutil.ignore_patterns("expected", "name_map_*"))
        shutil.copy(os.path.join(conformance, case, f"name_map_{case}.json"), os.path.join(unit, "name_map.json"))
        if k == 0:  # d1's program is unresolved: anonymous labels, though a name map is there
            with open(os.path.join(unit, "dispatch_program.json"), "w") as f:
                json.dump({"program": case}, f)
    r = run([dfx, "all", root, "--format", "perfetto", "-j", "2"], root)
    want = sorted(os.path.join(root, "rank0", f"d{k}", f) for k in (0, 1)
                  for f in ("merged_swimlane.pftrace", "CPM_static.pftrace", "CPM_observed.pftrace"))
    named = sorted(line.split("trace: ", 1)[1] for line in r.stdout.splitlines() if line.strip().startswith("trace: "))
    if trace_files(root) != want or named != want:
        failures.append(f"dfx all --format perfetto on an L3 tree wrote {trace_files(root)} and named {named}, "
                        f"want {want}:\n{r.stdout}")
    print(f"L3 tree: {len(named)} traces named in the summary")
    for t in trace_files(root):
        decoded = perfetto_trace.decode(t)
        if not decoded.slices or decoded.problems:
            failures.append(f"{t}: {len(decoded.slices)} slices, problems {decoded.problems[:3]}")
    # The CPM traces label the bars on the path as the dispatch's merged trace does
    # (its own program's names in d0, anonymous func_<n>_<letters> labels in d1).
    for k in (0, 1):
        unit = os.path.join(root, "rank0", f"d{k}")
        try:
            merged = worker_labels(os.path.join(unit, "merged_swimlane.pftrace"))
            for model in ("CPM_static", "CPM_observed"):
                on_path = worker_labels(os.path.join(unit, model + ".pftrace")) - {None}
                if not on_path or not on_path <= merged:
                    failures.append(f"d{k} {model}: labels {sorted(on_path)[:3]} not the merged trace's "
                                    f"{sorted(merged)[:3]}")
                else:
                    print(f"d{k} {model}: {len(on_path)} labels on the path, all the merged trace's "
                          f"(e.g. {sorted(on_path)[0]})")
        except (OSError, ValueError) as e:
            failures.append(f"d{k}: {e}")
    # The default: JSON traces, and a summary that names none.
    d2 = copy_case(conformance, "l4_deps", os.path.join(tmp, "default"))
    r = run([dfx, "all", d2, "-j", "2"], d2)
    want = sorted(os.path.join(d2, f) for f in ("merged_swimlane.json", "CPM_static.json", "CPM_observed.json"))
    if trace_files(d2) != want:
        failures.append(f"dfx all (default) wrote {trace_files(d2)}, want {want}")
    if "trace: " in r.stdout:
        failures.append(f"dfx all (default): the summary changed:\n{r.stdout}")


def test_bad_flags(dfx, conformance, generator, tmp, failures):
    d = copy_case(conformance, "l4_deps", tmp)
    before = sorted(os.listdir(d))
    for cmd in (["critical-path", d, "--format", "foo"], ["all", d, "--format", "foo"],
                ["critical-path", d, "--format", ""], ["all", d, "--format"]):
        r = run([dfx] + cmd, d, expect=None)
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        if r.returncode != 2 or len(lines) != 1 or "--format" not in lines[0] or "error" not in lines[0]:
            failures.append(f"dfx {' '.join(cmd[:1] + cmd[2:])}: exit {r.returncode}, stderr {r.stderr!r} "
                            "(want exit 2 and one error line naming --format)")
        else:
            print(f"dfx {' '.join(cmd[:1] + cmd[2:])}: exit 2: {lines[0]}")
    if sorted(os.listdir(d)) != before:
        failures.append(f"a rejected flag still wrote files: {sorted(set(os.listdir(d)) - set(before))}")


def notes(stderr):
    return [line for line in stderr.splitlines() if line.startswith("Note: ") and "trace_processor --httpd" in line]


def test_big_trace_note(dfx, conformance, generator, tmp, failures):
    d = copy_case(conformance, "l4_deps", tmp)
    default = dict(os.environ)
    default.pop("DFX_UI_TRACE_LIMIT_MB", None)  # whatever the developer's shell says
    every = dict(default, DFX_UI_TRACE_LIMIT_MB="0")  # every trace is "too big"

    def check(what, r, want):
        got = notes(r.stderr)
        # Each note names its trace and its size, the command that opens it
        # (the path quoted for the shell where it must be), and the remedies
        # the command has.
        def says(line, path, parts, absent):
            size = os.path.getsize(path)
            shown = f"{size / 1e9:.2f} GB" if size >= 1e9 else f"{size / 1e6:.0f} MB"
            return (line.startswith(f"Note: {path} is {shown}: ")
                    and f"`trace_processor --httpd {shlex.quote(path)}`" in line
                    and all(part in line for part in parts) and not any(part in line for part in absent))
        ok = len(got) == len(want) and all(says(line, *w) for line, w in zip(got, want))
        if ok:
            print(f"{what}: {len(got)} note(s){': ' + got[0] if got else ''}")
        else:
            failures.append(f"{what}: notes {got}, want {[w[0] for w in want]} with {[w[1] for w in want]}")

    window, perfetto = "dfx swimlane --window", "--format perfetto"
    json_trace, pb_trace = os.path.join(d, "merged_swimlane.json"), os.path.join(d, "big.pftrace")
    r = run([dfx, "swimlane", d, "-o", json_trace], d, env=every)
    check("swimlane, JSON", r, [(json_trace, [window, perfetto, "(its tasks run over "], [])])
    # The span the note gives is the capture's: a window of it holds every
    # task slice of the full trace (pids 3 and 4: one per task row), and it
    # lies within the full trace's time range (to the ns it is rounded out to).
    m = re.search(r"--window START:END` \(its tasks run over ([0-9.]+):([0-9.]+) us\)", r.stderr)
    if not m:
        failures.append(f"swimlane, JSON: no span in the note: {notes(r.stderr)}")
    else:
        def slices(path):
            with open(path) as f:
                return [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
        full = slices(json_trace)
        tasks = sum(1 for e in full if e.get("pid") in (3, 4))
        first, last = min(e["ts"] for e in full), max(e["ts"] + e["dur"] for e in full)
        start, end = float(m.group(1)), float(m.group(2))
        cut = os.path.join(d, "span.json")
        run([dfx, "swimlane", d, "--window", f"{m.group(1)}:{m.group(2)}", "-o", cut], d, env=default)
        inside = sum(1 for e in slices(cut) if e.get("pid") in (3, 4))
        if tasks == 0 or inside != tasks or start < first - 0.001 or end > last + 0.001 or start >= end:
            failures.append(f"--window {m.group(1)}:{m.group(2)} (the note's span) kept {inside} of {tasks} task "
                            f"slices; the trace spans {first}:{last}")
        else:
            print(f"the note's span {m.group(1)}:{m.group(2)} us (the trace's {first}:{last}) keeps all {tasks} "
                  "task slices")
    check("swimlane, protobuf", run([dfx, "swimlane", d, "-o", pb_trace], d, env=every),
          [(pb_trace, [window], [perfetto])])
    # Paths as the shell must be given them (shlex.quote's rules): every
    # character it leaves bare left bare, a space, a quote or a non-ASCII
    # letter quoted.
    for name in ("a+b=c,d@e%f:g_h-i.pftrace", "it's a trace.pftrace", "trac\u00e9.pftrace"):
        odd = os.path.join(d, name)
        check(f"swimlane -o {name!r}", run([dfx, "swimlane", d, "-o", odd], d, env=every),
              [(odd, [window], [perfetto])])
    # The default limit (500 MB), and values that are not a limit, which leave
    # it: each of these, read leniently, would be 0 and note every trace.
    for value in (None, "", "abc", "-0", "+0", " 0", "0 ", "0x1", "0.5", "0e3"):
        env = dict(default)
        if value is not None:
            env["DFX_UI_TRACE_LIMIT_MB"] = value
        check(f"swimlane, DFX_UI_TRACE_LIMIT_MB={value!r}", run([dfx, "swimlane", d, "-o", json_trace], d, env=env), [])
    # Not a regular file of its own: no note, even with a big file named "-"
    # where the command runs.
    with open(os.path.join(d, "-"), "w") as f:
        f.write("x" * 2_000_000)
    check("swimlane to stdout", run([dfx, "swimlane", d, "-o", "-"], d, env=every), [])
    os.remove(os.path.join(d, "-"))
    check("swimlane to /dev/null", run([dfx, "swimlane", d, "-o", os.devnull], d, env=every), [])
    # critical-path: each CPM trace (no --window there).
    cpm = [os.path.join(d, f"CPM_{model}.json") for model in ("static", "observed")]
    check("critical-path, JSON", run([dfx, "critical-path", d], d, env=every),
          [(t, [perfetto], [window]) for t in cpm])
    cpm = [os.path.join(d, f"CPM_{model}.pftrace") for model in ("static", "observed")]
    check("critical-path, protobuf", run([dfx, "critical-path", d, "--format", "perfetto"], d, env=every),
          [(t, [], [window, perfetto]) for t in cpm])
    # dfx all: its children's stderr is shown only when they fail, so it notes
    # their traces itself: the swimlane trace, then critical-path's.
    d2 = copy_case(conformance, "l4_deps", os.path.join(tmp, "all"))
    for fmt, ext, parts, absent in (([], "json", [perfetto], []), (["--format", "perfetto"], "pftrace", [], [perfetto])):
        check(f"all {' '.join(fmt)}", run([dfx, "all", d2, "-j", "2"] + fmt, d2, env=every),
              [(os.path.join(d2, f"merged_swimlane.{ext}"), [window] + parts, absent)]
              + [(os.path.join(d2, f"CPM_{model}.{ext}"), parts, absent + [window]) for model in ("static", "observed")])
    check("all, default limit", run([dfx, "all", d2, "-j", "2"], d2, env=default), [])


TESTS = {"critical_path": test_critical_path, "all": test_all, "bad_flags": test_bad_flags,
         "big_trace_note": test_big_trace_note}


def main(argv):
    name = argv[1]
    dfx, conformance, generator = (os.path.abspath(a) for a in argv[2:5])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            TESTS[name](dfx, conformance, generator, tmp, failures)
        except RuntimeError as e:
            failures.append(str(e))
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
