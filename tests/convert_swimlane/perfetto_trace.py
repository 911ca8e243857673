#!/usr/bin/env python3
"""A small decoder of Perfetto protobuf traces as `dfx swimlane --format perfetto`
writes them, and their comparison with the JSON trace of the same capture.

The decoder knows the protobuf wire format and the few Perfetto field numbers
the writer uses (include/dfx/convert/swimlane/trace/perfetto_fields.hpp, from
Perfetto's protos/perfetto/trace/); it implements the semantics a reader must:
track descriptors, interned data (valid only after SEQ_INCREMENTAL_STATE_CLEARED
on the sequence), the sequence-scoped incremental clock, the order
trace_processor reads events in (by timestamp, then position in the file),
slice begin / end nesting per track, flows by id (on a slice's begin or its
end; a terminating id read before its flow started is dropped, as
trace_processor drops it, and must be an arrow the JSON loses too: one that
ends before it starts), counters. It reports structural problems (an
event without SEQ_NEEDS_INCREMENTAL_STATE, an unknown iid, an END without a
BEGIN, a flow without both ends, ...).

Both traces are normalised to the same shape and compared as multisets:
  process / thread names;
  slices (pid, tid, name, cat, ts, dur in ns) with the args the protobuf
    carries, which must equal the JSON's (floats to 3 decimals); the JSON args
    the protobuf leaves out must be in DERIVED_ARGS (they repeat the name, the
    track, the times or the flows);
  counter points (pid, "<name> <arg>", ts, value);
  flows as (start slice, end slice), JSON endpoints bound by bind_id or else
    to the innermost slice of their track holding their ts.

Usage:
  perfetto_trace.py compare TRACE.json TRACE.pftrace   exit 0 when equivalent
  perfetto_trace.py dump TRACE.pftrace                 the normalised events
"""

import json
import math
import struct
import sys
from collections import Counter, defaultdict

# ---- field numbers (Perfetto's protos) ----
TRACE_PACKET = 1
P_CLOCK_SNAPSHOT, P_TIMESTAMP, P_SEQ_ID, P_TRACK_EVENT = 6, 8, 10, 11
P_INTERNED, P_FLAGS, P_DEFAULTS, P_TRACK_DESCRIPTOR = 12, 13, 59, 60
SEQ_CLEARED, SEQ_NEEDS = 1, 2
CS_CLOCKS, CLK_ID, CLK_TS, CLK_INCREMENTAL = 1, 1, 2, 3
DEF_CLOCK_ID = 58
TD_UUID, TD_NAME, TD_PROCESS, TD_THREAD, TD_PARENT, TD_COUNTER = 1, 2, 3, 4, 5, 8
PD_PID, PD_NAME = 1, 6
THD_PID, THD_TID, THD_NAME = 1, 2, 5
TE_CATEGORY_IIDS, TE_ANNOTATIONS, TE_TYPE, TE_NAME_IID, TE_TRACK = 3, 4, 9, 10, 11
TE_NAME, TE_COUNTER, TE_FLOW_IDS, TE_TERMINATING = 23, 30, 47, 48
TE_EXTRA_VALUES, TE_EXTRA_TRACKS = 12, 31  # repeated int64 / uint64, pairwise
TYPE_BEGIN, TYPE_END, TYPE_INSTANT, TYPE_COUNTER = 1, 2, 3, 4
DA_NAME_IID, DA_INT, DA_DOUBLE, DA_STRING = 1, 4, 5, 6
ID_CATEGORIES, ID_NAMES, ID_ARG_NAMES, ID_IID, ID_NAME = 1, 2, 3, 1, 2

# JSON args the protobuf trace leaves out, and why (perfetto_packets.hpp).
DERIVED_ARGS = {
    "event-hint",  # "Task:<disp>, FuncId:<f>, CoreId:<c>": the name, func_id, the track
    "fanout-hint", "fanin-hint",  # the dependency flows
    "duration-us",  # dur
    "dispatch-time-us", "finish-time-us", "aicpu-duration-us",  # ts, ts + dur, dur
    "phase", "predicated_pass",  # the name / category
    "shared_at_start (aic,aiv,mix)", "shared_at_end (aic,aiv,mix)",  # the ready-queue counters
    "synthetic_id_layout",  # a fixed note
}


def varint(buf, i):
    v, shift = 0, 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def fields(buf):
    """Yields (field, wire type, value) of one message; length-delimited values are bytes."""
    i, n = 0, len(buf)
    while i < n:
        key, i = varint(buf, i)
        field, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 1:
            v = struct.unpack_from("<Q", buf, i)[0]
            i += 8
        elif wt == 2:
            length, i = varint(buf, i)
            v = bytes(buf[i:i + length])
            if len(v) != length:
                raise ValueError("length-delimited field runs past its message")
            i += length
        elif wt == 5:
            v = struct.unpack_from("<I", buf, i)[0]
            i += 4
        else:
            raise ValueError(f"unsupported wire type {wt}")
        yield field, wt, v


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


class Decoded:
    def __init__(self):
        self.processes = {}  # pid -> name
        self.threads = {}  # (pid, tid) -> name
        self.slices = []  # dicts
        self.counters = []  # (pid, name, ts, value)
        self.flows = defaultdict(lambda: {"s": [], "f": []})  # id -> ends (slice keys)
        self.problems = []
        self.dropped_flows = []  # ended before they started: trace_processor drops them
        self.packets = 0
        self.counts = Counter()  # for the protoc cross-check


def decode(path):
    with open(path, "rb") as f:
        data = f.read()
    d = Decoded()
    tracks = {}  # uuid -> dict(kind, pid, tid, name)
    state = None  # per-sequence incremental state, None until cleared
    stacks = defaultdict(list)  # uuid -> open slices
    clock_ts = {}  # incremental clock id -> last value
    pending = []  # events, resolved once all descriptors are known
    for field, wt, packet in fields(data):
        if field != TRACE_PACKET or wt != 2:
            d.problems.append(f"top-level field {field} is not a packet")
            continue
        d.packets += 1
        p = defaultdict(list)
        for f, _, v in fields(packet):
            p[f].append(v)
        flags = p[P_FLAGS][0] if p[P_FLAGS] else 0
        if p[P_SEQ_ID] != [1]:
            d.problems.append(f"packet {d.packets}: trusted_packet_sequence_id {p[P_SEQ_ID]}")
        if flags & SEQ_CLEARED:
            state = {"cat": {}, "name": {}, "arg": {}, "clock": None}
            clock_ts = {}
        if p[P_CLOCK_SNAPSHOT]:
            for f, _, clk in fields(p[P_CLOCK_SNAPSHOT][0]):
                if f != CS_CLOCKS:
                    continue
                c = {f2: v for f2, _, v in fields(clk)}
                if c.get(CLK_INCREMENTAL):
                    clock_ts[c[CLK_ID]] = c.get(CLK_TS, 0)
        if p[P_DEFAULTS]:
            for f, _, v in fields(p[P_DEFAULTS][0]):
                if f == DEF_CLOCK_ID and state is not None:
                    state["clock"] = v
        if p[P_INTERNED]:
            if state is None:
                d.problems.append(f"packet {d.packets}: interned data before the state was cleared")
                state = {"cat": {}, "name": {}, "arg": {}, "clock": None}
            for f, _, entry in fields(p[P_INTERNED][0]):
                e = {f2: v for f2, _, v in fields(entry)}
                table = {ID_CATEGORIES: "cat", ID_NAMES: "name", ID_ARG_NAMES: "arg"}.get(f)
                if table:
                    state[table][e[ID_IID]] = e[ID_NAME].decode()
        if p[P_TRACK_DESCRIPTOR]:
            d.counts["track_descriptor"] += 1
            t = {"kind": "track", "pid": None, "tid": None, "name": None, "parent": None}
            for f, _, v in fields(p[P_TRACK_DESCRIPTOR][0]):
                if f == TD_UUID:
                    t["uuid"] = v
                elif f == TD_NAME:
                    t["name"] = v.decode()
                elif f == TD_PARENT:
                    t["parent"] = v
                elif f == TD_COUNTER:
                    t["kind"] = "counter"
                elif f == TD_PROCESS:
                    t["kind"] = "process"
                    for f2, _, v2 in fields(v):
                        if f2 == PD_PID:
                            t["pid"] = signed(v2)
                        elif f2 == PD_NAME:
                            t["name"] = v2.decode()
                elif f == TD_THREAD:
                    t["kind"] = "thread"
                    for f2, _, v2 in fields(v):
                        if f2 == THD_PID:
                            t["pid"] = signed(v2)
                        elif f2 == THD_TID:
                            t["tid"] = signed(v2)
                        elif f2 == THD_NAME:
                            t["name"] = v2.decode()
            tracks[t["uuid"]] = t
        if p[P_TRACK_EVENT]:
            d.counts["track_event"] += 1
            if state is None or not flags & SEQ_NEEDS:
                d.problems.append(f"packet {d.packets}: track event without SEQ_NEEDS_INCREMENTAL_STATE after a clear")
                continue
            ts = p[P_TIMESTAMP][0] if p[P_TIMESTAMP] else 0
            clock = state["clock"]
            if clock in clock_ts:
                clock_ts[clock] += ts
                ts = clock_ts[clock]
            ev = {"ts": ts, "cats": [], "args": {}, "flows": [], "terms": [], "xtracks": [], "xvalues": []}
            for f, _, v in fields(p[P_TRACK_EVENT][0]):
                if f == TE_TYPE:
                    ev["type"] = v
                elif f == TE_TRACK:
                    ev["track"] = v
                elif f == TE_CATEGORY_IIDS:
                    ev["cats"].append(lookup(state, "cat", v, d))
                elif f == TE_NAME_IID:
                    ev["name"] = lookup(state, "name", v, d)
                elif f == TE_NAME:
                    ev["name"] = v.decode()
                elif f == TE_COUNTER:
                    ev["value"] = signed(v)
                elif f == TE_EXTRA_TRACKS:
                    ev["xtracks"].append(v)
                elif f == TE_EXTRA_VALUES:
                    ev["xvalues"].append(signed(v))
                elif f == TE_FLOW_IDS:
                    ev["flows"].append(v)
                    d.counts["flow_ids"] += 1
                elif f == TE_TERMINATING:
                    ev["terms"].append(v)
                    d.counts["terminating_flow_ids"] += 1
                elif f == TE_ANNOTATIONS:
                    name, value = None, None
                    for f2, _, v2 in fields(v):
                        if f2 == DA_NAME_IID:
                            name = lookup(state, "arg", v2, d)
                        elif f2 == DA_INT:
                            value = signed(v2)
                        elif f2 == DA_DOUBLE:
                            value = struct.unpack("<d", struct.pack("<Q", v2))[0]
                        elif f2 == DA_STRING:
                            value = v2.decode()
                    ev["args"][name] = value
            pending.append(ev)
    for t in tracks.values():  # an overflow track: its thread's pid and tid
        parent = tracks.get(t["parent"])
        if t["kind"] == "track" and parent is not None and parent["kind"] == "thread":
            t["pid"], t["tid"] = parent["pid"], parent["tid"]
    # trace_processor sorts the whole trace by (timestamp, position in the
    # file) before it reads it (its TraceSorter, for a file without flush
    # events): so does this (sorted() is stable).
    active = {}  # flow id -> started and not ended
    for ev in sorted(pending, key=lambda ev: ev["ts"]):
        if len(ev["xtracks"]) != len(ev["xvalues"]):
            d.problems.append(f"{len(ev['xtracks'])} extra counter tracks, {len(ev['xvalues'])} values")
        for uuid, value in zip(ev["xtracks"], ev["xvalues"]):
            xt = tracks.get(uuid)
            if xt is None or xt["kind"] != "counter":
                d.problems.append(f"extra counter value on track {uuid}, not a counter track")
                continue
            d.counters.append((tracks.get(xt["parent"], {}).get("pid"), xt["name"], ev["ts"], value))
        t = tracks.get(ev.get("track"))
        if t is None:
            d.problems.append(f"event on undescribed track {ev.get('track')}")
            continue
        # trace_processor starts a flow at the first event that names it in
        # flow_ids and drops a terminating id read before that.
        for fid in ev["flows"]:
            if active.get(fid):
                d.problems.append(f"flow {fid} started twice")
            active[fid] = True
        for fid in ev["terms"]:
            if not active.get(fid):
                d.dropped_flows.append(fid)
            active[fid] = False
        kind = ev.get("type")
        if kind == TYPE_BEGIN:
            stacks[ev["track"]].append(ev)
        elif kind == TYPE_END:
            if not stacks[ev["track"]]:
                d.problems.append(f"slice end without a begin on track {ev['track']} at {ev['ts']}")
                continue
            b = stacks[ev["track"]].pop()
            s = {"pid": t["pid"], "tid": t["tid"], "name": b.get("name"), "cat": ",".join(b["cats"]),
                 "ts": b["ts"], "dur": ev["ts"] - b["ts"], "args": b["args"]}
            d.slices.append(s)
            key = slice_key(s)
            for fid in b["flows"] + ev["flows"]:  # a slice's flows may ride on its begin or its end
                d.flows[fid]["s"].append(key)
            for fid in b["terms"] + ev["terms"]:
                d.flows[fid]["f"].append(key)
        elif kind == TYPE_INSTANT:
            key = ("instant", t["pid"], t["tid"], ev["ts"])
            for fid in ev["flows"]:
                d.flows[fid]["s"].append(key)
            for fid in ev["terms"]:
                d.flows[fid]["f"].append(key)
        elif kind == TYPE_COUNTER:
            parent = tracks.get(t["parent"], {})
            d.counters.append((parent.get("pid"), t["name"], ev["ts"], ev["value"]))
    for uuid, st in stacks.items():
        if st:
            d.problems.append(f"{len(st)} slice(s) never ended on track {uuid}")
    for t in tracks.values():
        if t["kind"] == "process" and t["name"] is not None:
            d.processes[t["pid"]] = t["name"]
        elif t["kind"] == "thread" and t["name"] is not None:
            d.threads[(t["pid"], t["tid"])] = t["name"]
    return d


def lookup(state, table, iid, d):
    if iid not in state[table]:
        d.problems.append(f"{table} iid {iid} used before it was interned")
        return None
    return state[table][iid]


def ns(us):
    """µs -> ns as the protobuf writer rounds (perfetto_begins.hpp pf_ns) and as
    trace_processor reads a JSON time in its current versions (the JSON
    tokenizer's CoerceToTs: std::llround(us * 1000.0), halves away from zero;
    older versions truncated). Python's round() takes halves to even: 2064.9065
    µs would be 2064906 ns where both read 2064907."""
    scaled = us * 1000
    whole = math.trunc(scaled)
    rest = scaled - whole  # exact: |rest| < 1 and it shares the sign of scaled
    if abs(rest) >= 0.5:
        whole += 1 if scaled > 0 else -1
    return int(whole)


def slice_key(s):
    return (s["pid"], s["tid"], s["name"], s["ts"], s["dur"])


def rounded(v):
    return round(v, 3) if isinstance(v, float) else v


def normalise_pb(d):
    slices = Counter()
    for s in d.slices:
        args = {k: rounded(v) for k, v in s["args"].items()}
        slices[json.dumps([slice_key(s), s["cat"], args], sort_keys=True)] += 1
    flows = Counter()
    for fid, ends in d.flows.items():
        if len(ends["s"]) != 1 or len(ends["f"]) != 1:
            d.problems.append(f"flow {fid}: {len(ends['s'])} start(s), {len(ends['f'])} end(s)")
        flows[json.dumps([ends["s"], ends["f"]])] += 1
    return {"processes": d.processes, "threads": d.threads, "slices": slices,
            "counters": Counter(d.counters), "flows": flows}


def normalise_json(path, pb_args_of, problems):
    """The JSON trace in the protobuf's shape; `pb_args_of(key)` gives the arg
    names the protobuf slice with that key carries (to restrict the JSON's)."""
    with open(path, encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    processes, threads = {}, {}
    slices, by_id, by_track = [], {}, defaultdict(list)
    counters, flow_ends = Counter(), defaultdict(lambda: {"s": [], "f": []})
    for ev in events:
        ph = ev.get("ph")
        if ph == "M":
            if ev["name"] == "process_name":
                processes[ev["pid"]] = ev["args"]["name"]
            elif ev["name"] == "thread_name":
                threads[(ev["pid"], ev["tid"])] = ev["args"]["name"]
        elif ph == "X":
            s = {"pid": ev["pid"], "tid": ev["tid"], "name": ev["name"], "cat": ev["cat"],
                 "ts": ns(ev["ts"]), "dur": ns(ev["dur"]), "args": ev.get("args", {})}
            s["end"] = s["ts"] + s["dur"]
            slices.append(s)
            if "id" in ev:
                by_id[ev["id"]] = s
            by_track[(s["pid"], s["tid"])].append(s)
        elif ph == "C":
            for k, v in ev["args"].items():
                counters[(ev["pid"], f"{ev['name']} {k}", ns(ev["ts"]), v)] += 1
    for track in by_track.values():
        track.sort(key=lambda s: (s["ts"], -s["end"]))
    flow_ts = defaultdict(dict)  # JSON flow id -> {"s": ts, "f": ts}
    for ev in events:
        ph = ev.get("ph")
        if ph not in ("s", "f"):
            continue
        flow_ts[ev["id"]][ph] = ev["ts"]
        target = by_id.get(ev.get("bind_id"))
        if target is not None and (target["pid"], target["tid"]) != (ev["pid"], ev["tid"]):
            target = None
        if target is None:
            t = ns(ev["ts"])
            for s in by_track[(ev["pid"], ev["tid"])]:  # the innermost holding t: the last in begin order
                if s["ts"] <= t <= s["end"]:
                    target = s
                elif s["ts"] > t:
                    break
        key = slice_key(target) if target is not None else ("instant", ev["pid"], ev["tid"], ns(ev["ts"]))
        flow_ends[ev["id"]][ph].append(key)
    out = Counter()
    for s in slices:
        key = slice_key(s)
        carried = pb_args_of(key)
        args = {}
        for k, v in s["args"].items():
            if k in carried:
                args[k] = rounded(v)
            elif k not in DERIVED_ARGS:
                problems.append(f"slice {key}: JSON arg {k!r} is not in the protobuf trace")
        if "func_id" in carried:  # carried apart from event-hint's "FuncId:<f>"
            hint = s["args"].get("event-hint", "")
            args["func_id"] = int(hint.split("FuncId:")[1].split(",")[0]) if "FuncId:" in hint else None
        if "bytes" in carried and not isinstance(args.get("bytes"), int):  # else the JSON text
            args["bytes"] = json.dumps(s["args"].get("bytes"), separators=(", ", ": "))
        out[json.dumps([key, s["cat"], args], sort_keys=True)] += 1
    flows = Counter()
    for ends in flow_ends.values():
        flows[json.dumps([ends["s"], ends["f"]])] += 1
    # Arrows that end before they start: trace_processor drops them from the
    # JSON too. (At a tie it reads the "s", written first, first: it keeps them.)
    backwards = {i for i, t in flow_ts.items() if "s" in t and "f" in t and t["f"] < t["s"]}
    return {"processes": processes, "threads": threads, "slices": out, "counters": counters, "flows": flows,
            "backwards": backwards}


def compare(json_path, pb_path, out=sys.stdout):
    d = decode(pb_path)
    pb = normalise_pb(d)
    carried = defaultdict(set)
    for s in d.slices:
        carried[slice_key(s)] |= set(s["args"])
    problems = list(d.problems)
    js = normalise_json(json_path, lambda key: carried.get(tuple(key), set()), problems)
    # A flow the protobuf loses in trace_processor must be one the JSON loses too.
    lost = [fid for fid in d.dropped_flows if fid - 1 not in js["backwards"]]
    if lost:
        problems.append(f"{len(lost)} flow(s) trace_processor would drop from the protobuf but not from the JSON, "
                        f"e.g. {lost[:5]}")
    print(f"flows dropped by trace_processor: {len(d.dropped_flows)} (JSON arrows that run backwards: "
          f"{len(js['backwards'])})", file=out)
    for part in ("processes", "threads", "slices", "counters", "flows"):
        a, b = js[part], pb[part]
        if a == b:
            print(f"{part}: {sum(a.values()) if isinstance(a, Counter) else len(a)} equal", file=out)
            continue
        if isinstance(a, Counter):
            only_json, only_pb = a - b, b - a
            problems.append(f"{part}: {sum(only_json.values())} only in JSON, {sum(only_pb.values())} only in protobuf")
            for k in list(only_json)[:3]:
                print(f"  only in JSON: {k}", file=out)
            for k in list(only_pb)[:3]:
                print(f"  only in protobuf: {k}", file=out)
        else:
            problems.append(f"{part} differ")
            for k in sorted(set(a) | set(b), key=str):
                if a.get(k) != b.get(k):
                    print(f"  {k}: JSON {a.get(k)!r}, protobuf {b.get(k)!r}", file=out)
    for p in problems[:20]:
        print(f"problem: {p}", file=out)
    return problems, d


def main(argv):
    if len(argv) == 4 and argv[1] == "compare":
        problems, _ = compare(argv[2], argv[3])
        return 1 if problems else 0
    if len(argv) == 3 and argv[1] == "dump":
        d = decode(argv[2])
        pb = normalise_pb(d)
        for part in ("processes", "threads"):
            for k, v in sorted(pb[part].items(), key=str):
                print(part, k, v)
        for part in ("slices", "counters", "flows"):
            for k in sorted(pb[part], key=str):
                print(part, k)
        for p in d.problems:
            print("problem:", p)
        return 1 if d.problems else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
