#!/usr/bin/env python3
"""`dfx swimlane --format perfetto` writes the same trace as the JSON, event for event.

For each capture: convert it to JSON and to Perfetto protobuf (once by --format,
once by the .pftrace output name, which must give the same bytes), then compare
them with perfetto_trace.py (its own decoder, against Perfetto's field numbers):
the same process / thread names, slices with their args, counter points and flow
arrows. When protoc is installed (protobuf-compiler), the protobuf is also decoded
by `protoc --decode` against perfetto_subset.proto: it must parse, hold no field
outside the subset, and have the same packet, descriptor, event and flow counts.

Captures: the five conformance cases (l4_deps also with --overhead, for the
counter tracks) and a generated level-4 capture with SPMD, MIX, dummy tasks and
early-dispatch phases (bench/gen_swimlane_records.py --variety).

Usage: perfetto_equivalence.py DFX CONFORMANCE_DIR GENERATOR
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import perfetto_trace  # noqa: E402


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stderr}")


def protoc_check(pb_path, decoded, failures, label):
    protoc = shutil.which("protoc")
    if not protoc:
        print(f"{label}: protoc not installed (protobuf-compiler): cross-check skipped")
        return
    with open(pb_path, "rb") as f:
        r = subprocess.run([protoc, f"--proto_path={HERE}", "--decode=perfetto.protos.Trace", "perfetto_subset.proto"],
                           stdin=f, capture_output=True, check=False)
    if r.returncode != 0:
        failures.append(f"{label}: protoc --decode failed: {r.stderr.decode()[:500]}")
        return
    text = r.stdout.decode()
    unknown = re.findall(r"^\s*\d+[:{ ]", text, re.M)
    counts = {
        "packet": len(re.findall(r"^packet \{", text, re.M)),
        "track_descriptor": len(re.findall(r"^\s*track_descriptor \{", text, re.M)),
        "track_event": len(re.findall(r"^\s*track_event \{", text, re.M)),
        "flow_ids": len(re.findall(r"^\s*flow_ids: ", text, re.M)),
        "terminating_flow_ids": len(re.findall(r"^\s*terminating_flow_ids: ", text, re.M)),
    }
    ours = dict(decoded.counts, packet=decoded.packets)
    mismatch = {k: (v, ours.get(k, 0)) for k, v in counts.items() if v != ours.get(k, 0)}
    if unknown:
        failures.append(f"{label}: protoc saw fields outside the subset: {unknown[:5]}")
    if mismatch:
        failures.append(f"{label}: protoc and perfetto_trace.py disagree (protoc, ours): {mismatch}")
    if not unknown and not mismatch:
        print(f"{label}: protoc --decode agrees: {counts}")


def check(dfx, case_dir, label, extra, failures, tmp):
    js = os.path.join(tmp, label + ".json")
    pb = os.path.join(tmp, label + ".pftrace")
    pb2 = os.path.join(tmp, label + ".by_flag.bin")
    records = "chip_swimlane_records.json"
    run([dfx, "swimlane", records, "-o", js] + extra, case_dir)
    run([dfx, "swimlane", records, "-o", pb] + extra, case_dir)
    run([dfx, "swimlane", records, "-o", pb2, "--format", "perfetto"] + extra, case_dir)
    with open(pb, "rb") as a, open(pb2, "rb") as b:
        if a.read() != b.read():
            failures.append(f"{label}: --format perfetto and the .pftrace name give different bytes")
    print(f"== {label}: JSON {os.path.getsize(js)} bytes, protobuf {os.path.getsize(pb)} bytes")
    problems, decoded = perfetto_trace.compare(js, pb)
    if problems:
        failures.append(f"{label}: {len(problems)} difference(s): {problems[:3]}")
    if not decoded.slices:
        failures.append(f"{label}: the protobuf trace has no slices")
    protoc_check(pb, decoded, failures, label)


def main(argv):
    dfx, conformance, generator = (os.path.abspath(a) for a in argv[1:4])
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in sorted(os.listdir(conformance)):
            d = os.path.join(conformance, case)
            if os.path.exists(os.path.join(d, "chip_swimlane_records.json")):
                check(dfx, d, case, [], failures, tmp)
        check(dfx, os.path.join(conformance, "l4_deps"), "l4_deps_overhead", ["--overhead"], failures, tmp)
        gen = os.path.join(tmp, "variety")
        subprocess.run([sys.executable, generator, "600", gen, "--variety"], check=True)
        check(dfx, gen, "generated_l4_variety", ["--overhead"], failures, tmp)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
