#!/usr/bin/env python3
"""Generate a synthetic level-4 swimlane capture for converter benchmarks.

Writes <out>/chip_swimlane_records.json and <out>/deps.json in the reference schema
(spec chip-swimlane.md §2, dep-gen.md): N tasks on 24 cores (8 AIC + 16 AIV) and 3
scheduler threads, about 3 AICore rows per task (plain, MIX and SPMD tasks), scheduler
dispatch / complete phases, one orchestrator submit per task, and 1-3 predecessor
edges per task with tensor annotations. The shape follows the inputs of
../shared/spec/reference-performance.md (10k tasks ~ 12 MB of records, 11 MB of deps).

With --variety, every 20th task is a dummy (a dummy_task scheduler marker, no
AICore rows, kernel ids -1) and every 7th dispatch phase an early_dispatch one,
so the traces also hold marker slices, arrows into and out of markers and the
early-dispatch phase (the Perfetto equivalence test uses it).

Usage: gen_swimlane_records.py N OUT_DIR [--seed S] [--variety]
"""

import argparse
import os
import random

AIC = list(range(8))
AIV = list(range(8, 24))
THREADS = 3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tasks", type=int)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--variety", action="store_true", help="dummy tasks and early_dispatch phases too")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)

    core_free = [1_000_000] * 24
    core_reg = [0] * 24
    aicore = [[] for _ in range(24)]  # per core: rows
    aicpu = [[] for _ in range(24)]
    sched = [[] for _ in range(THREADS)]
    orch = []
    task_meta = []
    end_of = {}
    orch_t = 900_000
    loop = [0] * THREADS

    for i in range(args.tasks):
        tid = (1 << 32) | i
        kind = rng.random()
        if kind < 0.2:
            cores, kids, blocks = [rng.choice(AIC)], [rng.randrange(0, 4), -1, -1], 1
        elif kind < 0.35:  # MIX: one AIC + two AIV of a cluster
            c = rng.randrange(8)
            cores, kids, blocks = [c, 8 + 2 * c, 9 + 2 * c], [11, 12, 12], 1
        elif kind < 0.55:  # SPMD over several AIV cores
            blocks = rng.randrange(4, 9)
            cores, kids = rng.sample(AIV, blocks), [-1, 10, -1]
        else:
            cores, kids, blocks = [rng.choice(AIV)], [-1, rng.randrange(4, 10), -1], 1
        preds = rng.sample(range(max(0, i - 50), i), min(i, rng.randrange(1, 4))) if i else []
        ready = max([end_of[p] for p in preds], default=1_000_000)
        if args.variety and i and i % 20 == 0:  # a dummy: one scheduler marker, no rows
            thread = i % THREADS
            at = ready + rng.randrange(5, 30)
            loop[thread] += 1
            sched[thread].append(
                '{"kind": "dummy_task", "start_cycles": %d, "end_cycles": %d, "loop_iter": %d, "tasks_processed": 1, '
                '"task_id": %d, "shared_at_start": [0,0,0], "shared_at_end": [0,0,0]}' % (at, at, loop[thread], tid))
            orch.append((i, tid, orch_t, orch_t + 60))
            orch_t += 70
            end_of[i] = at
            task_meta.append((tid, [-1, -1, -1], 1, [(1 << 32) | p for p in preds]))
            continue
        orch.append((i, tid, orch_t, orch_t + 60))
        orch_t += 70
        end = 0
        for c in cores:
            thread = c % THREADS
            dispatch = max(ready, core_free[c]) + rng.randrange(5, 30)
            start = dispatch + rng.randrange(15, 40)
            stop = start + rng.randrange(150, 1200)
            finish = stop + rng.randrange(5, 25)
            core_reg[c] += 1
            aicore[c].append((c, tid, core_reg[c], start, stop, rng.randrange(5, 20)))
            aicpu[c].append((c, core_reg[c], dispatch, finish))
            loop[thread] += rng.randrange(1, 40)
            early = args.variety and core_reg[c] % 7 == 0
            sched[thread].append(
                '{"kind": "%s", "start_cycles": %d, "end_cycles": %d, "loop_iter": %d, "tasks_processed": 1, '
                '"pop_hit": 1, "pop_miss": %d, "shared_at_start": [1,0,0], "shared_at_end": [0,0,0]}'
                % ("early_dispatch" if early else "dispatch", dispatch - 8, dispatch + 2, loop[thread],
                   rng.randrange(0, 50)))
            loop[thread] += rng.randrange(1, 40)
            sched[thread].append(
                '{"kind": "complete", "start_cycles": %d, "end_cycles": %d, "loop_iter": %d, "tasks_processed": 1, '
                '"shared_at_start": [0,0,0], "shared_at_end": [0,1,0]}' % (finish - 3, finish + 12, loop[thread]))
            core_free[c] = finish
            end = max(end, stop)
        end_of[i] = end
        task_meta.append((tid, kids, blocks, [(1 << 32) | p for p in preds]))

    with open(os.path.join(args.out, "chip_swimlane_records.json"), "w") as f:
        f.write('{\n  "chip_swimlane_level": 4,\n  "metadata": {\n    "clock_freq_hz": 50000000,\n')
        f.write('    "num_cores": 24,\n    "core_types": [%s],\n' % ", ".join(['"aic"'] * 8 + ['"aiv"'] * 16))
        f.write('    "core_to_thread": [%s]\n  },\n' % ", ".join(str(c % THREADS) for c in range(24)))
        f.write('  "aicore_tasks": [\n')
        f.write(",\n".join("    [%d, %d, %d, %d, %d, %d]" % r for rows in aicore for r in rows))
        f.write('\n  ],\n  "aicpu_tasks": [\n')
        f.write(",\n".join("    [%d, %d, %d, %d]" % r for rows in aicpu for r in rows))
        f.write('\n  ],\n  "aicpu_scheduler_phases": [\n')
        for t in range(4):
            recs = sched[t] if t < THREADS else []
            # phases are emitted in production order per thread: sort by start
            recs = sorted(recs, key=lambda s: int(s.split('"start_cycles": ')[1].split(",")[0]))
            f.write("    [\n" + ",\n".join("      " + r for r in recs) + "\n    ]" + (",\n" if t < 3 else "\n"))
        f.write('  ],\n  "aicpu_orchestrator_phases": [\n    [\n')
        f.write(",\n".join('      {"submit_idx": %d, "task_id": %d, "start_cycles": %d, "end_cycles": %d}' % o
                           for o in orch))
        f.write("\n    ]\n  ]\n}\n")

    with open(os.path.join(args.out, "deps.json"), "w") as f:
        f.write('{\n  "tasks": [\n')
        f.write(",\n".join(
            '    {"task_id": "%d", "scope": "auto", "early_dispatch": false, "kernel_ids": [%d, %d, %d], '
            '"block_num": %d, "args": [{"idx": 0, "type": "INPUT", "tensor_id": "%d", "dtype": "FLOAT16", '
            '"shape": [16, 128], "start_offset": "0", "strides": [128, 1]}, {"idx": 1, "type": "OUTPUT"}]}'
            % (tid, k[0], k[1], k[2], b, rng.getrandbits(63)) for tid, k, b, _ in task_meta))
        f.write('\n  ],\n  "tensors": [],\n  "edges": [\n')
        f.write(",\n".join(
            '    {"pred": "%d", "succ": "%d", "arg": 0, "source": "creator", "flags": ["wait", "retain"], '
            '"tensor_id": "%d", "consumer_dtype": "FLOAT16", "consumer_shape": [16, 128], '
            '"consumer_start_offset": "0", "consumer_strides": [128, 1]}' % (p, tid, rng.getrandbits(63))
            for tid, _, _, preds in task_meta for p in preds))
        f.write("\n  ]\n}\n")


if __name__ == "__main__":
    main()
