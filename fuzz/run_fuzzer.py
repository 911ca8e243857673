#!/usr/bin/env python3
"""Runs one libFuzzer target as a test: replay, then a bounded fuzzing run.

usage: run_fuzzer.py --fuzzer EXE --name NAME [--seconds N] [--max-len BYTES]
                     [--seed PATH]... [--regressions DIR] [--artifacts DIR]
                     [-- libFuzzer options...]

1. Replay: every file under --regressions (inputs that once crashed, hung or
   broke the error contract) runs once, whole (no --max-len cut). Any finding
   fails the test.
2. Fuzz: a scratch corpus is filled with copies of the seeds (files, or the
   files of a directory; the source tree is never written to) and the
   regressions, and the target runs on it for N seconds. Any finding (crash,
   sanitizer report, leak, uncaught exception, an input slower than 5 s, more
   than 2 GB of memory) stops it and fails the test; libFuzzer writes the
   input to --artifacts (crash-*, timeout-*, oom-*, leak-*) and this script
   prints how to replay it.

Environment:
  DFX_FUZZ_SECONDS     overrides --seconds (scripts/fuzz.sh sets it)
  DFX_FUZZ_CORPUS_DIR  keep the corpus in DIR/NAME across runs instead of a
                       scratch directory (scripts/fuzz.sh sets it)
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

# Per input: 5 s of CPU is a hang (the largest seed reads in milliseconds);
# 2 GB is a runaway allocation (a single malloc above it is reported too).
LIMITS = ["-timeout=5", "-rss_limit_mb=2048"]


def files_of(path):
    if os.path.isfile(path):
        return [path]
    if os.path.isdir(path):
        return sorted(os.path.join(path, f) for f in os.listdir(path)
                      if os.path.isfile(os.path.join(path, f)) and not f.startswith("."))
    return []


def run(cmd, env):
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.call(cmd, env=env)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fuzzer", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--max-len", type=int, default=0)
    ap.add_argument("--seed", action="append", default=[])
    ap.add_argument("--regressions", default="")
    ap.add_argument("--artifacts", default="")
    ap.add_argument("extra", nargs="*", help="libFuzzer options (after --)")
    args = ap.parse_args()

    seconds = int(os.environ.get("DFX_FUZZ_SECONDS", args.seconds))
    artifacts = os.path.abspath(args.artifacts or f"fuzz-artifacts/{args.name}")
    os.makedirs(artifacts, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    common = LIMITS + [f"-artifact_prefix={artifacts}/"] + args.extra

    # The targets write each input to a file under DFX_FUZZ_SCRATCH; a crash
    # cannot clean up after itself, so this script does.
    scratch = tempfile.mkdtemp(prefix=f"dfx-fuzz-{args.name}-", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
    env["DFX_FUZZ_SCRATCH"] = scratch
    try:
        return fuzz(args, seconds, artifacts, env, common)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def fuzz(args, seconds, artifacts, env, common):
    regressions = files_of(args.regressions) if args.regressions else []
    if regressions:
        print(f"== {args.name}: replaying {len(regressions)} regression input(s)", flush=True)
        if run([args.fuzzer] + common + regressions, env) != 0:
            print(f"FAILED: {args.name}: a regression input fails again", flush=True)
            return 1

    keep = os.environ.get("DFX_FUZZ_CORPUS_DIR")
    corpus = os.path.join(keep, args.name) if keep else tempfile.mkdtemp(prefix=f"dfx-fuzz-{args.name}-")
    os.makedirs(corpus, exist_ok=True)
    try:
        seeds = [f for s in args.seed for f in files_of(s)] + regressions
        missing = [s for s in args.seed if not files_of(s)]
        if missing:
            print(f"FAILED: {args.name}: seed(s) not found: {', '.join(missing)}", flush=True)
            return 1
        for i, src in enumerate(seeds):
            # Numbered: different directories hold files of the same name.
            shutil.copyfile(src, os.path.join(corpus, f"seed-{i:03d}-{os.path.basename(src)}"))
        cmd = [args.fuzzer] + common + [f"-max_total_time={seconds}", "-print_final_stats=1"]
        if args.max_len:
            cmd.append(f"-max_len={args.max_len}")
        print(f"== {args.name}: fuzzing for {seconds} s from {len(seeds)} seed(s)", flush=True)
        before = set(os.listdir(artifacts))
        rc = run(cmd + [corpus], env)
        if rc != 0:
            found = sorted(set(os.listdir(artifacts)) - before)
            print(f"FAILED: {args.name}: libFuzzer exit {rc}; input(s) in {artifacts}: {', '.join(found) or '-'}",
                  flush=True)
            print(f"replay: {args.fuzzer} {artifacts}/<file>; keep it under fuzz/regressions/{args.name}/ "
                  "once the reader is fixed", flush=True)
            return 1
        return 0
    finally:
        if not keep:
            shutil.rmtree(corpus, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
