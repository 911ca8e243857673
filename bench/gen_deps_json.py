#!/usr/bin/env python3
"""Generate a synthetic deps.json of N tasks in the reference schema (dep-gen.md §2).

Usage: gen_deps_json.py N OUT [--seed S]

The shape follows a task-graph runtime: tasks on ring 1 (a few on ring 0),
AIC / AIV / MIX kernels, some SPMD tasks, a few dummies and alloc tasks; each
task reads 1-3 recently produced tensors (creator edges), sometimes updates
one in place (INOUT, then tensormap edges with geometry), and sometimes has
an explicit dependency. About 1.1 KB per task, like the reference's inputs
(220 MB for 200k tasks). The file is one compact line, written in chunks.
"""

import argparse
import random


def fnv1a64(addr, version):
    h = 0xCBF29CE484222325
    for b in addr.to_bytes(8, "little") + (version & 0xFFFFFFFF).to_bytes(4, "little"):
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    n = a.n

    def tid(i):
        return (1 << 32) | i if i >= 16 else i  # the first tasks on ring 0

    outputs = []  # (producer task id, tensor id, addr)
    tasks, tensors, edges = [], [], []
    for i in range(n):
        t = tid(i)
        kind = rng.random()
        if kind < 0.02:
            kernel = [-1, -1, -1]  # dummy
        elif kind < 0.45:
            kernel = [rng.randrange(0, 8), -1, -1]
        elif kind < 0.9:
            k = rng.randrange(8, 24)
            kernel = [-1, k, k if rng.random() < 0.5 else -1]
        else:
            kernel = [rng.randrange(24, 28), rng.randrange(28, 32), -1]
        block_num = rng.choice([2, 4, 8]) if rng.random() < 0.08 else 1
        args = []
        preds = set()
        n_in = rng.randrange(1, 4)
        for idx in range(n_in):
            if outputs and rng.random() < 0.9:
                prod, tensor, addr = outputs[-1 - min(len(outputs) - 1, int(rng.expovariate(0.3)))]
            else:
                addr = 0x100000 + rng.randrange(1 << 30) * 64
                tensor = fnv1a64(addr, 0)
                prod = None
                tensors.append(f'{{"tensor_id":"{tensor}","buffer_addr":"{addr}","version":0,"dtype":"FLOAT16","buffer_numel":"4096"}}')
            args.append(f'{{"idx":{idx},"type":"INPUT","tensor_id":"{tensor}","dtype":"FLOAT16","shape":[64,64],'
                        f'"start_offset":"0","strides":[64,1]}}')
            if prod is not None and prod != t and prod not in preds:
                preds.add(prod)
                edges.append(f'{{"pred":"{prod}","succ":"{t}","arg":{idx},"source":"creator","flags":["wait","retain"],'
                             f'"tensor_id":"{tensor}","consumer_dtype":"FLOAT16","consumer_shape":[64,64],'
                             f'"consumer_start_offset":"0","consumer_strides":[64,1]}}')
        if outputs and rng.random() < 0.2:  # an in-place update: tensormap edge from the last writer
            prod, tensor, addr = outputs[-1]
            idx = n_in
            args.append(f'{{"idx":{idx},"type":"INOUT","tensor_id":"{tensor}","dtype":"FLOAT16","shape":[32,64],'
                        f'"start_offset":"0","strides":[64,1]}}')
            if prod != t:
                edges.append(f'{{"pred":"{prod}","succ":"{t}","arg":{idx},"source":"tensormap","flags":["wait"],'
                             f'"overlap":"other","tensor_id":"{tensor}","consumer_dtype":"FLOAT16","consumer_shape":[32,64],'
                             f'"consumer_start_offset":"0","consumer_strides":[64,1],"producer_shape":[64,64],'
                             f'"producer_start_offset":"0","producer_strides":[64,1]}}')
        if i > 4 and rng.random() < 0.1:  # an explicit dependency on a recent task
            p = tid(i - rng.randrange(1, 5))
            if p not in preds:
                edges.append(f'{{"pred":"{p}","succ":"{t}","arg":-1,"source":"explicit","flags":["wait","retain"]}}')
        if i % 500 == 499:  # an alloc task (never in tasks[]) feeding the next tasks
            alloc = (1 << 32) | (n + i)
            edges.append(f'{{"pred":"{alloc}","succ":"{t}","arg":0,"source":"creator","flags":["wait","retain"],'
                         f'"tensor_id":"1","consumer_dtype":"FLOAT16","consumer_shape":[64],'
                         f'"consumer_start_offset":"0","consumer_strides":[1]}}')
        args.append(f'{{"idx":{len(args)},"type":"OUTPUT"}}')
        out_addr = 0x80000000 + i * 8192
        out_tensor = fnv1a64(out_addr, 0)
        outputs.append((t, out_tensor, out_addr))
        tensors.append(f'{{"tensor_id":"{out_tensor}","buffer_addr":"{out_addr}","version":0,"dtype":"FLOAT16","buffer_numel":"4096"}}')
        tasks.append(f'{{"task_id":"{t}","scope":"auto","early_dispatch":{"true" if rng.random() < 0.05 else "false"},'
                     f'"kernel_ids":[{kernel[0]},{kernel[1]},{kernel[2]}],"block_num":{block_num},"args":[{",".join(args)}]}}')

    with open(a.out, "w") as f:
        f.write('{"tasks":[')
        f.write(",".join(tasks))
        f.write('],"tensors":[')
        f.write(",".join(tensors))
        f.write('],"edges":[')
        f.write(",".join(edges))
        f.write("]}\n")


if __name__ == "__main__":
    main()
