#!/usr/bin/env python3
"""Every stamp, converter and end-to-end benchmark is one the report can read.

    report_names_test.py BENCH_REPORT_PY BENCH_EXE...

Lists each benchmark program's benchmarks (--benchmark_list_tests) and
checks that scripts/bench_report.py parses every stamp benchmark's name
(BM_worker_*, BM_scheduler_*, BM_orchestrator_*: its STAMP pattern), every
converter benchmark's (BM_convert_*: CONVERT) and every end-to-end one's
(BM_sim/*: SIM). A name the patterns
miss drops out of docs/benchmarks.md without a word, as the args dump's
floor_run rows did until 2026-12-06. Exit 1 naming each such benchmark.
"""
import importlib.util
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    spec = importlib.util.spec_from_file_location("bench_report", sys.argv[1])
    report = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(report)
    except OSError as e:
        sys.exit(f"report_names_test: cannot read the report script: {e}")
    families = [(re.compile(r"^BM_(worker|scheduler|orchestrator)_"), report.STAMP, "STAMP"),
                (re.compile(r"^BM_convert_"), report.CONVERT, "CONVERT"),
                (re.compile(r"^BM_sim/"), report.SIM, "SIM")]
    checked, missed = 0, []
    for exe in sys.argv[2:]:
        try:
            listed = subprocess.run([exe, "--benchmark_list_tests"], capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            sys.exit(f"report_names_test: {exe}: cannot list its benchmarks: {e}")
        if listed.returncode != 0:
            sys.exit(f"report_names_test: {exe} --benchmark_list_tests exited {listed.returncode}: {listed.stderr.strip()}")
        names = [line.strip() for line in listed.stdout.splitlines() if line.strip()]
        if not names:
            sys.exit(f"report_names_test: {exe} listed no benchmarks")
        for name in names:
            for family, pattern, pattern_name in families:
                if family.match(name):
                    checked += 1
                    if not pattern.match(name):
                        missed.append(f"{exe}: {name} (not matched by bench_report.py's {pattern_name})")
    for line in missed:
        print(line)
    print(f"{checked} benchmark names checked, {len(missed)} the report would drop")
    if checked == 0:
        sys.exit("report_names_test: no stamp, converter or end-to-end benchmark listed")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
