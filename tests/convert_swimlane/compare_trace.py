#!/usr/bin/env python3
"""Semantic comparison of two Chrome / Perfetto trace files (tests/conformance/README.md).

Two traces are equal when they hold the same multiset of metadata (M), slice (X),
counter (C) events and flow arrows, with ts / dur (and every other float) equal to
3 decimals. Event order and the numeric values of `id` / `bind_id` may differ:
instead of the raw ids, each flow arrow is compared as its (start, finish) pair,
and a `bind_id` is replaced by the slice it points at (which must exist and sit on
the same track as the flow event, else the trace is reported as broken).

Usage: compare_trace.py EXPECTED ACTUAL   (exit 0 when equal, 1 with a report otherwise)
"""

import json
import sys
from collections import Counter, defaultdict


def rounded(value):
    """Floats to 3 decimals, recursively; everything else unchanged."""
    if isinstance(value, float):
        r = round(value, 3)
        return 0.0 if r == 0 else r
    if isinstance(value, list):
        return [rounded(v) for v in value]
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    return value


def slice_key(ev):
    return (ev.get("pid"), ev.get("tid"), ev.get("name"), rounded(ev.get("ts")))


def normalise(path):
    """Returns (Counter of canonical events, list of structural problems)."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    problems = []
    slices_by_id = {}
    for ev in events:
        if ev.get("ph") == "X" and "id" in ev:
            if ev["id"] in slices_by_id:
                problems.append(f"duplicate slice id {ev['id']}")
            slices_by_id[ev["id"]] = ev

    def canonical(ev):
        out = {k: v for k, v in ev.items() if k not in ("id", "bind_id")}
        if "bind_id" in ev:
            target = slices_by_id.get(ev["bind_id"])
            if target is None:
                problems.append(f"bind_id {ev['bind_id']} points at no slice: {ev}")
                out["bind"] = None
            else:
                if (target.get("pid"), target.get("tid")) != (ev.get("pid"), ev.get("tid")):
                    problems.append(f"bind_id {ev['bind_id']} points at a slice on another track: {ev}")
                out["bind"] = list(slice_key(target))
        return rounded(out)

    counter = Counter()
    flows = defaultdict(list)
    for ev in events:
        ph = ev.get("ph")
        if ph in ("s", "f"):
            flows[(ev.get("cat"), ev.get("name"), ev.get("id"))].append(ev)
        else:
            counter[json.dumps(canonical(ev), sort_keys=True, ensure_ascii=False)] += 1
    for key, pair in flows.items():
        starts = [canonical(e) for e in pair if e["ph"] == "s"]
        finishes = [canonical(e) for e in pair if e["ph"] == "f"]
        if len(starts) != 1 or len(finishes) != 1:
            problems.append(f"flow {key} has {len(starts)} start(s) and {len(finishes)} finish(es)")
        arrow = {"flow": key[1], "s": starts, "f": finishes}
        counter[json.dumps(arrow, sort_keys=True, ensure_ascii=False)] += 1
    meta = rounded(doc.get("metadata")) if isinstance(doc, dict) else None
    return counter, problems, meta


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    expected, exp_problems, exp_meta = normalise(argv[1])
    actual, act_problems, act_meta = normalise(argv[2])
    ok = True
    if act_problems:
        ok = False
        print(f"{len(act_problems)} structural problem(s) in {argv[2]}:")
        for p in act_problems[:10]:
            print("  " + p[:400])
    if exp_problems:
        print(f"note: {len(exp_problems)} structural problem(s) in the expected trace")
    if exp_meta != act_meta:
        ok = False
        print(f"top-level metadata differs:\n  expected {exp_meta}\n  actual   {act_meta}")
    missing = expected - actual
    extra = actual - expected
    if missing or extra:
        ok = False
        print(f"{sum(missing.values())} expected event(s)/arrow(s) missing, {sum(extra.values())} unexpected")
        for label, items in (("missing", missing), ("unexpected", extra)):
            for text, n in list(items.items())[:8]:
                print(f"  {label} x{n}: {text[:600]}")
    if ok:
        print(f"traces match: {sum(expected.values())} events and arrows")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
