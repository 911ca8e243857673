#!/usr/bin/env python3
"""Bad input to `dfx swimlane` / `dfx sched-overhead`: one clear error line, non-zero exit.

Every case writes a broken input next to a valid deps.json, runs the converter and
checks that it
  - exits with status 1 (never a crash signal or a hang: each run has a timeout),
  - prints exactly one line on stderr, starting "dfx <command>: error: ", naming the file and
    containing the expected fragment of the explanation,
  - leaves no output file behind (the trace is written atomically).

Usage: malformed_inputs.py DFX
"""

import json
import os
import subprocess
import sys
import tempfile

# The spec's illustrative level-4 capture (chip-swimlane.md §2.8).
VALID = {
    "chip_swimlane_level": 4,
    "metadata": {"clock_freq_hz": 50000000, "num_cores": 2, "core_types": ["aic", "aiv"], "core_to_thread": [0, 0]},
    "aicore_tasks": [[0, 4294967296, 1, 1000120, 1000620, 5], [1, 4294967297, 1, 1000660, 1001160, 4]],
    "aicpu_tasks": [[0, 1, 1000108, 1000630], [1, 1, 1000648, 1001170]],
    "aicpu_scheduler_phases": [
        [
            {"kind": "dispatch", "start_cycles": 1000100, "end_cycles": 1000110, "loop_iter": 1,
             "tasks_processed": 1, "pop_hit": 1, "pop_miss": 0, "shared_at_start": [1, 0, 0],
             "shared_at_end": [0, 0, 0]},
            {"kind": "complete", "start_cycles": 1000625, "end_cycles": 1000640, "loop_iter": 40,
             "tasks_processed": 1, "shared_at_start": [0, 0, 0], "shared_at_end": [0, 1, 0]},
        ],
        [], [], [],
    ],
    "aicpu_orchestrator_phases": [[
        {"submit_idx": 0, "task_id": 4294967296, "start_cycles": 1000000, "end_cycles": 1000050},
        {"submit_idx": 1, "task_id": 4294967297, "start_cycles": 1000060, "end_cycles": 1000100},
    ]],
}
DEPS = {"tasks": [{"task_id": "4294967296", "kernel_ids": [0, -1, -1], "block_num": 1},
                  {"task_id": "4294967297", "kernel_ids": [-1, 1, -1], "block_num": 1}],
        "edges": [{"pred": "4294967296", "succ": "4294967297"}]}


def with_change(change):
    doc = json.loads(json.dumps(VALID))
    change(doc)
    return json.dumps(doc, indent=2)


def text_of_valid():
    return json.dumps(VALID, indent=2)


# (name, records text, expected fragment of the error line)
CASES = [
    ("empty file", "", "file is empty"),
    ("truncated in the middle", text_of_valid()[: len(text_of_valid()) // 2], "truncated"),
    ("truncated inside a number", '{"chip_swimlane_level": 4, "aicore_tasks": [[0, 1, 2, 3', "truncated"),
    ("not JSON", "hello world", "the top-level value is not a JSON object"),
    ("garbage inside an unknown key", '{"x": [1, @]}', "expected a JSON value, found '@'"),
    ("top level is an array", "[1, 2, 3]", "not a JSON object"),
    ("trailing garbage", text_of_valid() + " }", "unexpected data after the top-level value"),
    ("missing comma", text_of_valid().replace('"aicpu_tasks"', ' "x": 1 "aicpu_tasks"', 1), "expected ','"),
    ("missing chip_swimlane_level", with_change(lambda d: d.pop("chip_swimlane_level")), "missing chip_swimlane_level"),
    ("unsupported level", with_change(lambda d: d.update(chip_swimlane_level=7)), "Unsupported chip_swimlane_level: 7"),
    ("level is a string", with_change(lambda d: d.update(chip_swimlane_level="four")), "chip_swimlane_level: expected an integer"),
    ("missing clock_freq_hz", with_change(lambda d: d["metadata"].pop("clock_freq_hz")), "clock_freq_hz"),
    ("token is a string", with_change(lambda d: d["aicore_tasks"][1].__setitem__(1, "x")),
     "aicore_tasks[1][1]: expected an integer, found a string"),
    ("row too short", with_change(lambda d: d["aicore_tasks"].__setitem__(0, [0, 1, 2, 3])), "expected 5 or 6 columns"),
    ("aicpu row too long", with_change(lambda d: d["aicpu_tasks"][0].append(9)), "expected 4 columns"),
    ("row is an object", with_change(lambda d: d["aicore_tasks"].__setitem__(0, {"a": 1})), "aicore_tasks[0]"),
    ("aicore_tasks is an object", with_change(lambda d: d.update(aicore_tasks={"a": 1})), "aicore_tasks: expected an array"),
    ("huge integer", text_of_valid().replace("1000120", "123456789012345678901234567890", 1), "out of range"),
    ("float timestamp", text_of_valid().replace("1000120", "1000120.5", 1), "non-integer number"),
    ("phase kind is a number", with_change(lambda d: d["aicpu_scheduler_phases"][0][0].update(kind=3)),
     "aicpu_scheduler_phases[0][0].kind: expected a string"),
    ("core_to_thread huge", with_change(lambda d: d["metadata"].update(core_to_thread=[0, 99999])),
     "core_to_thread[1]"),
    ("negative core id", with_change(lambda d: d["aicore_tasks"][0].__setitem__(0, -1)), "core_id out of range"),
    ("deep nesting in an unknown key", '{"x": ' + "[" * 100000 + "]" * 100000 + "}", "nesting too deep"),
    ("bad escape", '{"chip_swimlane_level": 4, "x": "\\q"}', "invalid escape"),
    ("ambiguous orchestrator", with_change(lambda d: d["metadata"].update(orchestrator_source="host")),
     "both AICPU and host orchestrator phases"),
    # Checked, not trusted (issue 18): the reference took -5 at face value (an 828 us slice).
    ("negative phase start", with_change(lambda d: d["aicpu_scheduler_phases"][0][0].update(start_cycles=-5)),
     "aicpu_scheduler_phases[0][0].start_cycles: expected a non-negative integer cycle count, found -5"),
    ("negative aicore end", with_change(lambda d: d["aicore_tasks"][0].__setitem__(4, -1)),
     "aicore_tasks[0][4]: expected a non-negative integer cycle count, found -1"),
    ("negative orchestrator end", with_change(lambda d: d["aicpu_orchestrator_phases"][0][0].update(end_cycles=-2)),
     "aicpu_orchestrator_phases[0][0].end_cycles: expected a non-negative"),
    ("negative phase task id", with_change(lambda d: d["aicpu_scheduler_phases"][0][0].update(task_id=-3)),
     "expected a non-negative integer task id, found -3"),
    ("repeated top-level key", text_of_valid().replace('"chip_swimlane_level": 4', '"chip_swimlane_level": 4, "chip_swimlane_level": 2', 1),
     'at byte 30: duplicate top-level key "chip_swimlane_level"'),
]

# deps.json beside valid records: a corrupt sidecar is an error (exit 1, naming deps.json)
# unless --lenient, which keeps the reference's warn-and-continue.
DEPS_CASES = [
    ("fractional pred", {"edges": [{"pred": 1.5, "succ": "4294967297"}]}, "edges[0].pred: expected a task id"),
    ("boolean succ", {"edges": [{"pred": "4294967296", "succ": True}]}, "edges[0].succ: expected a task id"),
    ("negative pred", {"edges": [{"pred": -1, "succ": "4294967297"}]}, "found a negative integer"),
    ("pred below INT64_MIN", {"edges": [{"pred": -(2**63) - 1, "succ": "4294967297"}]}, "found a negative integer"),
    ("edges a string", {"edges": "str"}, "edges: expected an array, found a string"),
    ("edges an object", {"edges": {}}, "edges: expected an array, found an object"),
    ("edges missing", {"tasks": []}, 'missing required member "edges"'),
    ("edge without pred", {"edges": [{"succ": "4294967297"}]}, 'edges[0]: missing required member "pred"'),
]


def check(dfx, tmp, name, args, expected_fragment, file_named, failures):
    out = os.path.join(tmp, "out.json")
    if os.path.exists(out):
        os.remove(out)
    try:
        run = subprocess.run([dfx, *args, "-o", out] if args[0] == "swimlane" else [dfx, *args],
                             cwd=tmp, capture_output=True, text=True, timeout=60, check=False)
    except subprocess.TimeoutExpired:
        failures.append(f"{name}: timed out")
        return
    err = run.stderr.splitlines()
    problems = []
    if run.returncode != 1:
        problems.append(f"exit status {run.returncode} (expected 1)")
    if len(err) != 1:
        problems.append(f"{len(err)} stderr lines (expected 1): {err[:3]}")
    elif not err[0].startswith(f"dfx {args[0]}: error: ") or expected_fragment not in err[0] or file_named not in err[0]:
        problems.append(f"stderr {err[0]!r} lacks 'dfx {args[0]}: error: ', {file_named!r} or {expected_fragment!r}")
    if os.path.exists(out):
        problems.append("an output file was left behind")
    if problems:
        failures.append(f"{name}: " + "; ".join(problems))
    else:
        print(f"ok   {name}: {err[0]}")


def main(argv):
    dfx = os.path.abspath(argv[1])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "deps.json"), "w", encoding="utf-8") as f:
            json.dump(DEPS, f)
        records = os.path.join(tmp, "records.json")
        for name, text, fragment in CASES:
            with open(records, "w", encoding="utf-8") as f:
                f.write(text)
            check(dfx, tmp, name, ["swimlane", "records.json"], fragment, "records.json", failures)
            check(dfx, tmp, name + " (sched-overhead)", ["sched-overhead", "--chip-swimlane-records-json",
                                                         "records.json"], fragment, "records.json", failures)

        # A valid records file with problems elsewhere.
        with open(records, "w", encoding="utf-8") as f:
            f.write(text_of_valid())
        check(dfx, tmp, "missing input", ["swimlane", "nope.json"], "Input file not found", "nope.json", failures)
        check(dfx, tmp, "missing name map", ["swimlane", "records.json", "--func-names", "names.json"],
              "Func names JSON not found", "names.json", failures)
        with open(os.path.join(tmp, "names.json"), "w", encoding="utf-8") as f:
            f.write('{"callable_id_to_name": {"0": 5}}')
        check(dfx, tmp, "name map with a number as name", ["swimlane", "records.json", "--func-names", "names.json"],
              "expected a string", "names.json", failures)
        check(dfx, tmp, "kernel config", ["swimlane", "records.json", "-k", "kernel_config.py"],
              "not supported", "kernel_config.py", failures)
        with open(os.path.join(tmp, "bad_deps.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(DEPS)[:40])
        check(dfx, tmp, "truncated deps.json (sched-overhead)",
              ["sched-overhead", "--chip-swimlane-records-json", "records.json", "--deps-json", "bad_deps.json"],
              "failed to read deps.json", "bad_deps.json", failures)

        # Inputs that are not files: never a hang, never a signal (check() has a timeout).
        fifo = os.path.join(tmp, "fifo.json")
        os.mkfifo(fifo)
        for args in (["swimlane", "fifo.json"], ["sched-overhead", "fifo.json"]):
            check(dfx, tmp, f"FIFO without a writer ({args[0]})", args, "a pipe with no data", "fifo.json", failures)
            check(dfx, tmp, f"/dev/zero ({args[0]})", [args[0], "/dev/zero"], "not a regular file", "/dev/zero", failures)
        os.mkdir(os.path.join(tmp, "empty_dir"))
        check(dfx, tmp, "directory without records", ["swimlane", "empty_dir"], "not found",
              "empty_dir/chip_swimlane_records.json", failures)
        os.symlink(os.path.join(tmp, "gone.json"), os.path.join(tmp, "dangling.json"))
        check(dfx, tmp, "dangling symlink", ["swimlane", "dangling.json"], "not found", "dangling.json", failures)

        # A broken deps.json is an error; with --lenient a warning, as in the reference: it still converts.
        check(dfx, tmp, "truncated deps.json (swimlane)", ["swimlane", "records.json", "--deps-json", "bad_deps.json"],
              "truncated", "bad_deps.json", failures)
        run = subprocess.run([dfx, "swimlane", "records.json", "--deps-json", "bad_deps.json", "-o", "ok.json", "--lenient"],
                             cwd=tmp, capture_output=True, text=True, timeout=60, check=False)
        if run.returncode != 0 or "Warning: failed to read bad_deps.json" not in run.stderr:
            failures.append(f"broken deps.json with --lenient should warn and convert: rc={run.returncode} {run.stderr!r}")
        else:
            print("ok   broken deps.json, --lenient: warning, conversion done")
        for name, doc, fragment in DEPS_CASES:
            with open(os.path.join(tmp, "bad_deps.json"), "w", encoding="utf-8") as f:
                json.dump(doc, f)
            check(dfx, tmp, f"deps.json: {name}", ["swimlane", "records.json", "--deps-json", "bad_deps.json"],
                  fragment, "bad_deps.json", failures)
            check(dfx, tmp, f"deps.json: {name} (sched-overhead)",
                  ["sched-overhead", "--chip-swimlane-records-json", "records.json", "--deps-json", "bad_deps.json"],
                  fragment, "bad_deps.json", failures)
            run = subprocess.run([dfx, "swimlane", "records.json", "--deps-json", "bad_deps.json", "-o", "ok.json",
                                  "--lenient"], cwd=tmp, capture_output=True, text=True, timeout=60, check=False)
            if run.returncode != 0:
                failures.append(f"deps.json: {name} with --lenient should convert: rc={run.returncode} {run.stderr!r}")
        # --lenient keeps the reference's reading of a negative time (absent).
        with open(records, "w", encoding="utf-8") as f:
            f.write(with_change(lambda d: d["aicpu_scheduler_phases"][0][0].update(start_cycles=-5)))
        run = subprocess.run([dfx, "swimlane", "records.json", "-o", "ok.json", "--lenient"],
                             cwd=tmp, capture_output=True, text=True, timeout=60, check=False)
        if run.returncode != 0:
            failures.append(f"negative start with --lenient should convert: rc={run.returncode} {run.stderr!r}")

        # Counters near 2^63 in several records and threads: the sums are exact
        # (Python's are), with no overflow and nothing on stderr (UBSan reports there).
        top = 2**63 - 1
        big = json.loads(json.dumps(VALID))
        lanes = big["aicpu_scheduler_phases"]
        lanes[0][0].update(pop_hit=top, pop_miss=top, loop_iter=top)
        lanes[0][1].update(tasks_processed=top)
        lanes[1] = [dict(lanes[0][0], start_cycles=1000200, end_cycles=1000210),
                    dict(lanes[0][1], start_cycles=1000700, end_cycles=1000710)]
        with open(records, "w", encoding="utf-8") as f:
            json.dump(big, f)
        run = subprocess.run([dfx, "sched-overhead", "--chip-swimlane-records-json", "records.json"],
                             cwd=tmp, capture_output=True, text=True, timeout=60, check=False)
        wanted = [f"Pop: hit={2 * top}, miss={2 * top}, hit_rate=50.0%", f"FINs observed (Complete phase): {2 * top}"]
        missing = [w for w in wanted if w not in run.stdout]
        if run.returncode != 0 or run.stderr or missing:
            failures.append(f"counters near 2^63: rc={run.returncode} stderr={run.stderr[:300]!r} missing={missing}")
        else:
            print("ok   counters near 2^63: exact sums")

    for f in failures:
        print("FAIL " + f)
    print(f"{len(CASES) * 2 + 17 + len(DEPS_CASES) * 3 - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
