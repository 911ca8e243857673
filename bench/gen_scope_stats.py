#!/usr/bin/env python3
"""Generate a synthetic scope_stats.jsonl (schema v6) for converter benchmarks.

An orchestrator that submits N tasks in scopes of 1-8 tasks over four rings (a
scope's ring is its depth), nested to depth 3, with the ring fills moving the
way a running runtime's do: each task takes a slot of the task window, some
heap and a few dep-pool entries, and the consumer side frees them a while later.
Each scope writes a begin and an end record (spec scope-stats-and-framework.md),
so a file holds about N / 2 records.

Usage: gen_scope_stats.py N OUT_FILE [--seed S]
"""

import argparse
import json
import os
import random

RINGS = 4
WINDOW = 16384
HEAP = 268435456
DEP_POOL = 16384
SITES = ["attn_orch.cpp:118", "attn_orch.cpp:131", "ffn_orch.cpp:42", "moe_orch.cpp:77", "norm_orch.cpp:12"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tasks", type=int)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)

    # Per ring: [window start, end, heap start, end, dep start, end]
    state = [[0, 0, 0, 0, 1, 1] for _ in range(RINGS)]
    tensormap = 0
    out_dir = os.path.dirname(args.out)
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)

    def record(site, phase, depth):
        w0, w1, h0, h1, d0, d1 = state[depth]
        return ('{"site": "%s", "phase": "%s", "depth": %d, "ring": %d, "task_window_start": %d, '
                '"task_window_end": %d, "heap_start": %d, "heap_end": %d, "dep_pool_start": %d, '
                '"dep_pool_end": %d, "tensormap": %d}\n'
                % (site, phase, depth, depth, w0, w1, h0, h1, d0, d1, tensormap))

    with open(args.out, "w") as f:
        header = {"version": 6, "fatal": False, "dropped": 0, "total": 0,
                  "task_window_max": [WINDOW] * RINGS, "heap_max": [HEAP] * RINGS,
                  "dep_pool_max": [DEP_POOL] * RINGS, "tensormap_max": 65536}
        body_records = 0
        tmp = args.out + ".body"
        with open(tmp, "w") as body:
            submitted = 0
            while submitted < args.tasks:
                depth = min(RINGS - 1, rng.choice([0, 1, 1, 2, 2, 3]))
                site = rng.choice(SITES)
                body.write(record(site, "begin", depth))
                n = min(rng.randint(1, 8), args.tasks - submitted)
                s = state[depth]
                for _ in range(n):
                    s[1] += 1
                    s[3] += rng.choice([512, 1024, 4096, 16384])
                    s[5] += rng.randint(1, 4)
                # The consumer retires older work: starts chase ends.
                s[0] += rng.randint(0, max(0, s[1] - s[0]))
                s[2] = s[2] + (s[3] - s[2]) * rng.randint(0, 4) // 4
                s[4] += rng.randint(0, max(0, s[5] - s[4]))
                # A full ring stalls the orchestrator until the consumer frees
                # room: occupancy never exceeds capacity.
                for lo, hi, cap in ((0, 1, WINDOW), (2, 3, HEAP), (4, 5, DEP_POOL)):
                    s[lo] = max(s[lo], s[hi] - cap)
                tensormap = max(0, min(65536, tensormap + rng.randint(-n, n + 1)))
                body.write(record(site, "end", depth))
                body_records += 2
                submitted += n
        header["total"] = body_records
        f.write(json.dumps(header) + "\n")
        with open(tmp) as body:
            while True:
                chunk = body.read(1 << 20)
                if not chunk:
                    break
                f.write(chunk)
        os.remove(tmp)


if __name__ == "__main__":
    main()
