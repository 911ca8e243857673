#!/usr/bin/env python3
"""Golden test of `dfx swimlane` and `dfx sched-overhead` on one conformance case.

Runs the commands the reference was run with (tests/conformance/README.md), with the
working directory set to the case folder, and compares:
  - the merged trace with expected/merged_swimlane.json, semantically (compare_trace.py);
  - stdout / stderr with expected/swimlane_converter.{stdout,stderr}, line by line after
    normalising paths and trailing spaces;
  - the analysis stdout with expected/sched_overhead_analysis.stdout, when the case has one.

Usage: run_golden.py DFX CASE_DIR
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compare_trace  # noqa: E402


def lines(text):
    return [line.rstrip() for line in text.splitlines()]


def compare_text(label, expected_path, actual_text, failures):
    with open(expected_path, encoding="utf-8") as f:
        expected = lines(f.read())
    actual = lines(actual_text)
    if expected == actual:
        print(f"{label}: {len(expected)} lines match")
        return
    failures.append(label)
    print(f"{label}: differs from {expected_path}")
    for i in range(max(len(expected), len(actual))):
        e = expected[i] if i < len(expected) else "<missing>"
        a = actual[i] if i < len(actual) else "<missing>"
        if e != a:
            print(f"  line {i + 1}:\n    expected: {e!r}\n    actual:   {a!r}")
            break


def main(argv):
    dfx, case = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    expected = os.path.join(case, "expected")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "merged_swimlane.json")
        run = subprocess.run(
            [dfx, "swimlane_converter", "chip_swimlane_records.json", "-o", out],
            cwd=case, capture_output=True, text=True, check=False,
        )
        if run.returncode != 0:
            print(f"dfx swimlane exited {run.returncode}:\n{run.stderr}")
            return 1
        # The reference wrote to expected/merged_swimlane.json; we wrote to tmp.
        stdout = run.stdout.replace(out, "expected/merged_swimlane.json")
        compare_text("swimlane stdout", os.path.join(expected, "swimlane_converter.stdout"), stdout, failures)
        compare_text("swimlane stderr", os.path.join(expected, "swimlane_converter.stderr"), run.stderr, failures)
        if compare_trace.main(["compare_trace", os.path.join(expected, "merged_swimlane.json"), out]) != 0:
            failures.append("trace")

    analysis = os.path.join(expected, "sched_overhead_analysis.stdout")
    if os.path.exists(analysis):
        run = subprocess.run(
            [dfx, "sched_overhead_analysis", "--chip-swimlane-records-json", "chip_swimlane_records.json",
             "--deps-json", "deps.json"],
            cwd=case, capture_output=True, text=True, check=False,
        )
        if run.returncode != 0:
            failures.append("sched-overhead exit code")
            print(f"dfx sched-overhead exited {run.returncode}:\n{run.stderr}")
        compare_text("sched-overhead stdout", analysis, run.stdout, failures)

    if failures:
        print("FAILED: " + ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
