#!/usr/bin/env python3
"""Mutation corpus: every artefact of a real capture, broken in many ways, through every converter that reads it.

A small capture is made with the built dfx-sim (swimlane level 4, dep_gen, args dump, PMU and
scope stats on; --two-pass, since dep_gen does not co-run with the swimlane). For every artefact
(chip_swimlane_records.json, deps.json, the name map, args_dump.json, args.bin, pmu.csv,
scope_stats.jsonl) mutants are generated:

  truncations at many offsets, single-byte flips, for every field a wrong type and an
  out-of-range value, a duplicated top-level key, empty, whitespace only, a directory,
  a FIFO with no writer, a symlink to /dev/zero, a symlink loop

and each converter that reads the artefact runs on a copy of the capture holding the mutant,
with a timeout. Pass means: no signal, no hang, no exit 0 on invalid input, and every failure is
one line on stderr that names the file.

Which mutants are still valid input is decided by one stated rule (`still_valid`), never a list:
  * binary payload (args.bin): a byte flip changes data, not structure: valid;
  * a text artefact is valid iff it decodes strictly (UTF-8; JSON without duplicate keys, NaN or
    trailing data; the same CSV header / JSONL line count) to a value of the original's shape:
    the same containers with the same lengths and keys, and every leaf in the class of the
    original leaf -- a non-negative integer stays one (below 2^63), another integer stays an
    integer in int64, a string of digits (an id) stays one (below 2^64), any other string stays
    a string, a boolean a boolean; a number with a fraction stays a number; null (an absent
    value: the field's class is not known from it) may become any scalar.
    Only fields some converter reads are held to their class (USED below, the readers' schema:
    member names with array indices dropped); any JSON value is valid in a field none reads,
    as the grammar is all that is checked there. Where the format gives a negative value a
    meaning (SIGNED: an orchestrator record's task_id < 0 is "no task", else a u64 id), an
    integer may be any integer of that field's range. A member that is added is an unknown member
    (valid: readers skip them); one that disappears is valid unless REQUIRED lists it.
  * a CSV cut at a row boundary is a shorter valid file (pmu.csv records no row count; the
    JSONL metadata line does, so scope_stats.jsonl gets no such allowance).
    (So a truncation of trailing whitespace, or a flip of a digit or inside a name, is valid; a
    flip that makes a digit a letter, a key unknown or a quote a byte of garbage is not.)
Valid mutants must not crash or hang; their exit status is counted, not judged.

Seeded (--seed) and sampled (--max-per-artefact) so that it takes a few minutes on two cores.

Usage: mutate.py DFX DFX_SIM [--seed N] [--max-per-artefact N] [--keep DIR]
"""

import argparse
import concurrent.futures
import csv
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter

TIMEOUT_S = 30  # a FIFO without a writer is given up after 10 s (input_file.hpp)

# ---------------------------------------------------------------- the capture


def make_capture(dfx_sim, work):
    cmd = [dfx_sim, "--workload", "chain", "--work-dir", work, "--two-pass", "--chip-swimlane-level", "4",
           "--enable-dep-gen", "--dump-args", "--enable-pmu", "--enable-scope-stats", "--aicore-num", "1,2"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    if r.returncode != 0:
        sys.exit(f"dfx-sim failed ({r.returncode}): {' '.join(cmd)}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    out = os.path.join(work, "dfx_outputs")
    names = [n for n in os.listdir(out) if n.startswith("name_map") and n.endswith(".json")]
    art = {
        "records": "chip_swimlane_records.json",
        "deps": "deps.json",
        "name_map": names[0] if names else None,
        "manifest": "args_dump/args_dump.json",
        "args_bin": "args_dump/args.bin",
        "pmu": "pmu.csv",
        "scope_stats": "scope_stats/scope_stats.jsonl",
    }
    missing = [k for k, v in art.items() if not v or not os.path.exists(os.path.join(out, v))]
    if missing:
        sys.exit(f"the capture lacks {missing}: {sorted(os.listdir(out))}")
    return out, art


# Every converter that reads an artefact: argv after `dfx`, run in the capture copy.
def consumers(art):
    return {
        "records": [["swimlane", ".", "-o", "trace.json"], ["sched-overhead", "."], ["critical-path", "."],
                    ["deps", "."]],
        "deps": [["deps", "."], ["swimlane", ".", "-o", "trace.json"], ["sched-overhead", "."],
                 ["critical-path", "."]],
        "name_map": [["swimlane", ".", "-o", "trace.json"], ["deps", "."], ["critical-path", "."], ["pmu", "."]],
        "manifest": [["dump", "args_dump"], ["dump", "args_dump", "-e"]],
        "args_bin": [["dump", "args_dump"], ["dump", "args_dump", "-e"]],
        "pmu": [["pmu", "."]],
        "scope_stats": [["scope-stats", ".", "-o", "report.html"]],
    }


# ---------------------------------------------------------------- decoding and the validity rule


class Invalid(Exception):
    pass


def _no_dupes(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise Invalid("duplicate key")
    return dict(pairs)


def _no_constant(name):
    raise Invalid(f"non-standard constant {name}")


def decode_json(data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Invalid("invalid UTF-8") from e
    try:
        return json.loads(text, object_pairs_hook=_no_dupes, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise Invalid(f"not JSON: {e.msg}") from e


def decode_jsonl(data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Invalid("invalid UTF-8") from e
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [decode_json(line.encode()) if line.strip() else None for line in lines]


def decode_csv(data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Invalid("invalid UTF-8") from e
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as e:  # a lone CR inside a row, say
        raise Invalid(f"not CSV: {e}") from e
    return [[_csv_cell(c) for c in row] for row in rows]


def _csv_cell(c):
    for conv in (int, float):
        try:
            return conv(c)
        except ValueError:
            pass
    return c


# The fields the converters read, per artefact (member names on the path, indices dropped);
# "*" stands for a whole subtree that is read.
USED = {
    "records": {("chip_swimlane_level",), ("metadata", "clock_freq_hz"), ("metadata", "core_types"),
                ("metadata", "core_to_thread"), ("aicore_tasks",), ("aicpu_tasks",),
                ("aicpu_scheduler_phases", "*"), ("aicpu_orchestrator_phases", "*")},
    "deps": {("tasks", "task_id"), ("tasks", "kernel_ids"), ("tasks", "block_num"), ("edges", "pred"),
             ("edges", "succ"), ("tensors", "tensor_id")},
    "name_map": {("*",)},
    "manifest": {("args", "task_id"), ("args", "arg_index"), ("args", "role"), ("args", "stage"),
                 ("args", "kind"), ("args", "dtype"), ("args", "shape"), ("args", "strides"),
                 ("args", "start_offset"), ("args", "is_contiguous"), ("args", "bin_offset"),
                 ("args", "bin_size"), ("args", "truncated"), ("args", "overwritten"), ("args", "value"),
                 ("bin_file",)},
    "pmu": {("*",)},
    "scope_stats": {("*",)},
}
# Where a converter reads less of an artefact than the others, it is held to what it reads.
# (deps.json and the name map have one reader each, which checks the same for every command:
# what one converter reads, all are held to.)
USED_BY = {
    ("name_map", command): {("callable_id_to_name",), ("orchestrator_name",)}
    for command in ("swimlane", "deps", "critical-path", "pmu")
}
# The deps viewer's records sidecar: the level, the metadata and the task rows (records_reader's
# tasks_only(); the phases are held to the grammar only).
USED_BY[("records", "deps")] = {u for u in USED["records"] if not u[0].endswith("_phases")}


# Members the readers require (a missing one is an error), as USED; only for a converter that reads them.
REQUIRED = {
    "records": {("chip_swimlane_level",), ("metadata",), ("metadata", "clock_freq_hz")},
    "deps": {("edges",), ("edges", "pred"), ("edges", "succ"), ("tasks", "task_id"), ("tensors", "tensor_id")},
    "manifest": {("args",), ("args", "task_id"), ("args", "arg_index"), ("args", "role"), ("args", "stage"),
                 ("args", "dtype"), ("args", "shape"), ("args", "bin_size")},
    "scope_stats": {("site",), ("phase",), ("ring",)},
}


# Fields where a negative integer means something, and the class their integers keep
# whatever the capture holds. An orchestrator record's task_id is a u64 on disk (spec
# chip-swimlane.md, the 32-byte orchestrator record: the full PTO2 id, 2^63 and above
# included) that the converters read as "no task" when it is negative: any integer in
# [-2^63, 2^64). core_to_thread's -1 is a core no scheduler thread owns: an int64.
SIGNED = {
    ("records", ("aicpu_orchestrator_phases", "task_id")): "id64",
    ("records", ("metadata", "core_to_thread")): "int",
}


def is_required(kind, path):
    names = tuple(p for p in path if isinstance(p, str))
    return names in REQUIRED.get(kind, set())


def is_used(kind, path, command=None):
    names = tuple(p for p in path if isinstance(p, str))
    for used in USED_BY.get((kind, command), USED[kind]):
        if used == ("*",):
            return True
        if used[-1] == "*" and names[:len(used) - 1] == used[:-1]:
            return True
        if names[:len(used)] == used or used[:len(names)] == names:  # the field, inside it, or a container of it
            return True
    return False


def leaf_class(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "uint" if v >= 0 else "int"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "digits" if v.isdigit() and v.isascii() else "str"
    return type(v).__name__


def in_class(cls, v):
    if cls == "null":
        return not isinstance(v, (dict, list))
    if cls == "bool":
        return isinstance(v, bool)
    if isinstance(v, bool):
        return False
    if cls == "uint":
        return isinstance(v, int) and 0 <= v < 2**63
    if cls == "int":
        return isinstance(v, int) and -(2**63) <= v < 2**63
    if cls == "id64":
        return isinstance(v, int) and -(2**63) <= v < 2**64
    if cls == "number":
        return isinstance(v, (int, float)) and v == v and abs(v) != float("inf")
    if cls == "digits":
        return isinstance(v, str) and v.isascii() and v.isdigit() and int(v) < 2**64
    if cls == "str":
        return isinstance(v, str)
    return False


def same_shape(kind, orig, new, path=(), command=None):
    """None when `new` keeps the shape and leaf classes of `orig` where it is read, else why not."""
    if kind in ("records", "deps", "name_map", "manifest") and path and not is_used(kind, path, command):
        return None
    if isinstance(orig, dict):
        if not isinstance(new, dict):
            return f"{path}: an object became {type(new).__name__}"
        for k in orig:
            if k not in new:
                if is_required(kind, path + (k,)) and (kind not in USED or is_used(kind, path + (k,), command)):
                    return f"{path}: required member {k} missing"
                continue  # an optional member left out
            why = same_shape(kind, orig[k], new[k], path + (k,), command)
            if why:
                return why
        return None
    if isinstance(orig, list):
        if not isinstance(new, list) or len(orig) != len(new):
            return f"{path}: array changed"
        for i, (a, b) in enumerate(zip(orig, new)):
            why = same_shape(kind, a, b, path + (i,), command)
            if why:
                return why
        return None
    cls = leaf_class(orig)
    if isinstance(orig, int) and not isinstance(orig, bool):
        cls = SIGNED.get((kind, tuple(p for p in path if isinstance(p, str))), cls)
    return None if in_class(cls, new) else f"{path}: {cls} became {new!r:.40}"


def still_valid(kind, original, data, command=None):
    """(valid, reason): the stated rule of the module docstring."""
    if kind == "args_bin":
        if len(data) != len(original):
            return False, "args.bin size changed"
        return True, "args.bin payload bytes are data"
    if data == original:
        return True, "identical bytes"
    decode = decode_jsonl if kind == "scope_stats" else decode_csv if kind == "pmu" else decode_json
    try:
        new = decode(data)
    except Invalid as e:
        return False, str(e)
    orig = decode(original)
    if kind == "pmu" and len(new) < len(orig) and new == orig[:len(new)] and len(new) >= 1:
        return True, "a CSV cut at a row boundary"
    why = same_shape(kind, orig, new, (), command)
    if why:
        return False, why
    if new == orig:
        return True, "decodes to the same value"
    if kind not in ("pmu", "scope_stats") and same_shape_used_only(kind, orig, new, command):
        return True, "changes only fields no converter reads"
    return True, "same shape, every read leaf in its class"


def same_shape_used_only(kind, orig, new, command=None):
    """True when every read leaf is unchanged (what changed is in unread fields)."""
    a = {p: v for p, v in leaves(orig) if is_used(kind, p, command)}
    try:
        b = {p: v for p, v in leaves(new) if is_used(kind, p, command)}
    except Exception:
        return False
    return a == b


# ---------------------------------------------------------------- mutants


def leaves(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, path + (i,))
    else:
        yield path, value


def set_path(doc, path, new):
    doc = json.loads(json.dumps(doc))
    cur = doc
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = new
    return doc


def wrong_type(v):
    if isinstance(v, bool):
        return "yes"
    if isinstance(v, (int, float)):
        return random.choice([True, "12x", [v], 1.5 if isinstance(v, int) else "1.5"])
    if isinstance(v, str):
        return random.choice([True, {"a": 1}, 1.5 if v.isdigit() else 7])
    return "x"


def out_of_range(v):
    if isinstance(v, bool):
        return 2
    if isinstance(v, int):
        return random.choice([-5, 2**64, -(2**63) - 1, 2**63]) if v >= 0 else random.choice([2**64, -(2**63) - 1])
    if isinstance(v, float):
        return 1e400  # not representable: a JSON number that overflows
    if isinstance(v, str) and v.isdigit():
        return random.choice(["-1", str(2**64), "1.5"])
    return None


def field_mutants(kind, original, limit):
    """(label, bytes) for a wrong type and an out-of-range value of sampled fields."""
    out = []
    if kind == "pmu":
        rows = list(csv.reader(io.StringIO(original.decode())))
        cells = [(r, c) for r in range(1, len(rows)) for c in range(len(rows[r]))]
        for r, c in random.sample(cells, min(limit, len(cells))):
            for label, new in (("wrong type", "x1"), ("out of range", random.choice(["-1", str(2**64), "1e400"]))):
                m = [list(row) for row in rows]
                m[r][c] = new
                buf = io.StringIO()
                csv.writer(buf, lineterminator="\n").writerows(m)
                out.append((f"{label} {rows[0][c] if c < len(rows[0]) else c}", buf.getvalue().encode()))
        return out
    if kind == "scope_stats":
        lines = original.decode().split("\n")
        docs = [(i, json.loads(line)) for i, line in enumerate(lines) if line.strip()]
        targets = [(i, p, v) for i, d in docs for p, v in leaves(d)]
        for i, p, v in random.sample(targets, min(limit, len(targets))):
            for label, new in (("wrong type", wrong_type(v)), ("out of range", out_of_range(v))):
                if new is None:
                    continue
                m = list(lines)
                m[i] = json.dumps(set_path(json.loads(lines[i]), p, new))
                out.append((f"{label} line {i + 1} {'.'.join(map(str, p))}", "\n".join(m).encode()))
        return out
    doc = json.loads(original)
    # One field per distinct (path with indices dropped): every kind of field, not every row.
    by_field = {}
    for p, v in leaves(doc):
        by_field.setdefault(tuple(x for x in p if isinstance(x, str)) + (len(p),), []).append((p, v))
    fields = list(by_field.values())
    random.shuffle(fields)
    for group in fields[:limit]:
        p, v = random.choice(group)
        for label, new in (("wrong type", wrong_type(v)), ("out of range", out_of_range(v))):
            if new is None:
                continue
            out.append((f"{label} {'.'.join(map(str, p))}", json.dumps(set_path(doc, p, new)).encode()))
    return out


def duplicate_key(kind, original):
    if kind in ("pmu", "args_bin"):
        return []
    if kind == "scope_stats":
        lines = original.decode().split("\n")
        first = lines[0]
        d = json.loads(first)
        k = next(iter(d))
        lines[0] = first.rstrip()[:-1] + f', "{k}": {json.dumps(d[k])}}}'
        return [(f"duplicate key {k} (metadata line)", "\n".join(lines).encode())]
    text = original.decode().rstrip()
    d = json.loads(text)
    out = []
    for k in list(d)[:4]:
        out.append((f"duplicate top-level key {k}", (text[:-1] + f', "{k}": {json.dumps(d[k])}}}').encode()))
    return out


def byte_mutants(original, count):
    out = []
    n = len(original)
    offsets = sorted(set([0, 1, n // 2, n - 1, n - 2] + [random.randrange(n) for _ in range(count)]))
    for off in offsets:
        if 0 <= off < n:
            out.append((f"truncated at {off}", original[:off]))
    for off in random.sample(range(n), min(count, n)):
        b = bytearray(original)
        b[off] ^= random.randrange(1, 256)
        out.append((f"byte flip at {off}", bytes(b)))
    return out


def mutants(kind, original, per_artefact):
    """(label, bytes-or-special). Specials: ('dir',) ('fifo',) ('devzero',) ('loop',)."""
    ms = [("empty", b""), ("whitespace only", b" \n\t \n")]
    ms += [("a directory", ("dir",)), ("a FIFO without a writer", ("fifo",)), ("/dev/zero", ("devzero",)),
           ("a symlink loop", ("loop",))]
    ms += duplicate_key(kind, original)
    if kind != "args_bin":
        ms += field_mutants(kind, original, per_artefact // 4)
    ms += byte_mutants(original, per_artefact // 3)
    return ms


# ---------------------------------------------------------------- running


def place(base, rel, payload):
    path = os.path.join(base, rel)
    os.remove(path)
    if isinstance(payload, bytes):
        with open(path, "wb") as f:
            f.write(payload)
    elif payload[0] == "dir":
        os.mkdir(path)
    elif payload[0] == "fifo":
        os.mkfifo(path)
    elif payload[0] == "devzero":
        os.symlink("/dev/zero", path)
    elif payload[0] == "loop":
        os.symlink(os.path.basename(path), path)


def run_one(dfx, capture, rel, payload, argv):
    work = tempfile.mkdtemp(prefix="mut_")
    try:
        base = os.path.join(work, "c")
        shutil.copytree(capture, base, symlinks=True)
        place(base, rel, payload)
        start = time.monotonic()
        try:
            r = subprocess.run([dfx, *argv], cwd=base, capture_output=True, timeout=TIMEOUT_S, check=False,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return {"hang": True, "rc": None, "stderr": "", "secs": TIMEOUT_S}
        return {"hang": False, "rc": r.returncode, "stderr": r.stderr.decode("utf-8", "replace"),
                "secs": time.monotonic() - start}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def judge(res, valid, rel):
    """None when the run passes, else why it fails."""
    if res["hang"]:
        return f"hang (> {TIMEOUT_S} s)"
    rc = res["rc"]
    if rc < 0 or rc >= 128:
        return f"signal {-rc if rc < 0 else rc - 128}"
    lines = [line for line in res["stderr"].splitlines() if line.strip()]
    if rc == 0:
        return None if valid else "exit 0 on invalid input"
    if len(lines) != 1:
        return f"{len(lines)} stderr lines: {lines[:3]}"
    names = {os.path.basename(rel), rel}
    if not any(n in lines[0] for n in names):
        return f"the error does not name {os.path.basename(rel)}: {lines[0][:200]}"
    return None


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("dfx")
    ap.add_argument("dfx_sim")
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--max-per-artefact", type=int, default=160)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", help="also write the failing mutants here")
    args = ap.parse_args(argv[1:])
    random.seed(args.seed)
    dfx = os.path.abspath(args.dfx)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        capture, art = make_capture(os.path.abspath(args.dfx_sim), os.path.join(tmp, "work"))
        users = consumers(art)
        jobs = []  # (kind, label, payload, valid, reason, argv)
        excluded = Counter()
        n_mutants = 0
        for kind, rel in art.items():
            with open(os.path.join(capture, rel), "rb") as f:
                original = f.read()
            for label, payload in mutants(kind, original, args.max_per_artefact):
                n_mutants += 1
                for a in users[kind]:
                    if isinstance(payload, bytes):
                        valid, reason = still_valid(kind, original, payload, a[0])
                    else:
                        valid, reason = False, "not a regular file"
                    if valid:
                        excluded[reason] += 1
                    jobs.append((kind, rel, label, payload, valid, a))
        # FIFO runs mostly wait (10 s each): their own wide pool, so they overlap the rest.
        slow = [j for j in jobs if not isinstance(j[3], bytes) and j[3][0] == "fifo"]
        fast = [j for j in jobs if j not in slow]
        failures = []
        outcomes = Counter()
        with concurrent.futures.ThreadPoolExecutor(max_workers=16) as waiters, \
                concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as workers:
            futs = {waiters.submit(run_one, dfx, capture, j[1], j[3], j[5]): j for j in slow}
            futs.update({workers.submit(run_one, dfx, capture, j[1], j[3], j[5]): j for j in fast})
            for fut in concurrent.futures.as_completed(futs):
                kind, rel, label, payload, valid, a = futs[fut]
                res = fut.result()
                why = judge(res, valid, rel)
                outcomes[("valid" if valid else "invalid", "exit 0" if res["rc"] == 0 else "error")] += 1
                if why:
                    failures.append(f"{kind} / {label} / dfx {' '.join(a)}: {why}")
                    if args.keep and isinstance(payload, bytes):
                        os.makedirs(args.keep, exist_ok=True)
                        with open(os.path.join(args.keep, f"{len(failures):04d}_{os.path.basename(rel)}"), "wb") as f:
                            f.write(payload)
    failures.sort()
    by_kind = Counter(f.split(" / ")[0] for f in failures)
    by_reason = Counter(f.split(": ", 1)[1].split(":")[0] for f in failures)
    for f in failures[:200]:
        print("FAIL " + f)
    print(f"\nmutants: {n_mutants}, runs: {len(jobs)}, passes: {len(jobs) - len(failures)}, "
          f"failures: {len(failures)}, seconds: {time.monotonic() - t0:.0f}")
    print("runs on mutants that are still valid (exit status not judged), by reason: " +
          (", ".join(f"{n} {r}" for r, n in excluded.most_common()) or "none"))
    print("outcomes: " + ", ".join(f"{k[0]} input -> {k[1]}: {n}" for k, n in sorted(outcomes.items())))
    if failures:
        print("failures by artefact: " + ", ".join(f"{k} {n}" for k, n in by_kind.most_common()))
        print("failures by kind: " + ", ".join(f"{k} {n}" for k, n in by_reason.most_common()))
    return 1 if failures else 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main(sys.argv))
