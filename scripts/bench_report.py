#!/usr/bin/env python3
"""Write docs/benchmarks.md and its SVG plots from Google Benchmark JSON.

    python3 scripts/bench_report.py [RESULTS_DIR] [--out docs]

RESULTS_DIR (default build-bench/results) holds the <bench>.json files that
scripts/bench.sh writes, and machine.txt. Every number in the report comes
from those files; the only constants here are the reference Python tools'
times from ../shared/spec/reference-performance.md, which the converter
table compares against. No plotting library: the SVG is written by hand.
"""

import argparse
import glob
import json
import math
import os
import re
import sys

# The reference tools on a 2-vCPU Debian 12 machine (seconds, peak MB), by task count.
REFERENCE = {
    "swimlane": {10_000: (7.7, 346), 50_000: (43.9, 1626), 200_000: (179.0, 6486)},
    "sched_overhead": {10_000: (11.1, 167), 50_000: (681.0, 751)},
    "deps_text": {10_000: (1.4, 177), 50_000: (8.8, 806), 200_000: (42.2, 3255)},
}
TOOL_TITLE = {
    "swimlane": "dfx swimlane (records + deps.json -> merged trace)",
    "swimlane_to_null": "dfx swimlane, trace to /dev/null (the converter without the disk)",
    "swimlane_perfetto": "dfx swimlane --format perfetto (records + deps.json -> Perfetto protobuf trace)",
    "sched_overhead": "dfx sched-overhead",
    "deps_text": "dfx deps (text)",
    "critical_path": "dfx critical-path (records + deps.json + name map -> report)",
    "scope_stats": "dfx scope-stats (HTML)",
}
STAMP = re.compile(r"^BM_(worker|scheduler|orchestrator)(?:_([a-z_]+?))?_(plain|typed|runtime_gated|floor_run|floor|no_wait|minimal)(?:<([^>]*)>)?(?:/(\d+))?(?:/iterations:\d+)?$")
CONVERT = re.compile(r"^BM_convert_([a-z_]+)/(\d+)")
SIM = re.compile(r"^BM_sim/([a-z_]+)/([a-z_0-9]+)")
COLORS = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#0891b2", "#be185d", "#4b5563"]


def load(results):
    """run_name -> the run to report: the median aggregate when there are repetitions."""
    runs = {}
    for path in sorted(glob.glob(os.path.join(results, "*.json"))):
        with open(path) as f:
            data = json.load(f)
        for b in data.get("benchmarks", []):
            name = b["run_name"]
            if b.get("run_type") == "aggregate":
                if b.get("aggregate_name") == "median":
                    runs[name] = b
            elif name not in runs:
                runs[name] = b
    return runs


def ns(b, key="cpu_time"):
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
    return b[key] * scale


def fmt(x, digits=3):
    if x is None:
        return "n/a"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - mag)
    return f"{x:,.{decimals}f}"


def signed(x):
    return ("+" if x >= 0 else "-") + fmt(abs(x))


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- SVG


def svg_bars(title, groups, series, values, unit, path, color_of=None):
    """Grouped horizontal bars: values[(group, series)] -> number; a series a
    group lacks is left out. color_of(series) -> (legend label, colour)."""
    if color_of is None:
        def color_of(s):
            return s, COLORS[series.index(s) % len(COLORS)]
    legend = []
    for s in series:
        if color_of(s) not in legend:
            legend.append(color_of(s))
    row_h, bar_h, left, width, per_row = 16, 12, 260, 900, 4
    legend_rows = (len(legend) + per_row - 1) // per_row
    rows = sum(1 + sum((g, s) in values for s in series) for g in groups)
    height = 50 + 18 * legend_rows + rows * row_h
    vmax = max([v for v in values.values() if v is not None] + [1e-9])
    plot_w = width - left - 90
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="20" font-size="15" font-weight="bold">{esc(title)}</text>']
    for i, (label, color) in enumerate(legend):
        x, y = 10 + 220 * (i % per_row), 40 + 18 * (i // per_row)
        out.append(f'<rect x="{x}" y="{y - 10}" width="12" height="12" fill="{color}"/><text x="{x + 16}" y="{y}">{esc(label)}</text>')
    y = 40 + 18 * legend_rows
    for g in groups:
        out.append(f'<text x="10" y="{y + 11}" font-weight="bold">{esc(g)}</text>')
        y += row_h
        for s in series:
            if (g, s) not in values:
                continue
            v = values[(g, s)]
            w = 0 if v is None else max(1.0, plot_w * v / vmax)
            out.append(f'<text x="{left - 6}" y="{y + 10}" text-anchor="end">{esc(s)}</text>')
            out.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{color_of(s)[1]}"/>')
            out.append(f'<text x="{left + w + 4:.1f}" y="{y + 10}">{"n/a" if v is None else fmt(v)} {esc(unit)}</text>')
            y += row_h
    out.append("</svg>")
    write(path, "\n".join(out))


def svg_lines(title, series, x_label, y_label, path, log_y=False):
    """series: name -> [(x, y)], log x axis; log y optional."""
    width, height, left, right, top, bottom = 900, 360, 80, 200, 40, 50
    pts = [p for s in series.values() for p in s if p[1] > 0]
    if not pts:
        return
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    x0, x1 = math.log10(min(xs)), math.log10(max(xs))
    if x1 == x0:
        x1 = x0 + 1
    if log_y:
        y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
        if y1 == y0:
            y1 = y0 + 1
    else:
        y0, y1 = 0, max(ys) * 1.1
    pw, ph = width - left - right, height - top - bottom

    def X(x):
        return left + pw * (math.log10(x) - x0) / (x1 - x0)

    def Y(y):
        v = math.log10(y) if log_y else y
        return top + ph * (1 - (v - y0) / (y1 - y0))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="20" font-size="15" font-weight="bold">{esc(title)}</text>',
           f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#888"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#888"/>',
           f'<text x="{left + pw / 2}" y="{height - 10}" text-anchor="middle">{esc(x_label)}</text>',
           f'<text x="14" y="{top + ph / 2}" transform="rotate(-90 14 {top + ph / 2})" text-anchor="middle">{esc(y_label)}</text>']
    for e in range(math.floor(x0), math.ceil(x1) + 1):
        x = 10 ** e
        if x0 <= e <= x1:
            out.append(f'<text x="{X(x):.1f}" y="{top + ph + 16}" text-anchor="middle">1e{e}</text>')
    ticks = [10 ** e for e in range(int(y0), int(y1) + 1)] if log_y else [y0 + (y1 - y0) * k / 5 for k in range(6)]
    for t in ticks:
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{Y(t):.1f}" y2="{Y(t):.1f}" stroke="#eee"/>'
                   f'<text x="{left - 6}" y="{Y(t) + 4:.1f}" text-anchor="end">{fmt(t, 2)}</text>')
    for i, (name, s) in enumerate(series.items()):
        c = COLORS[i % len(COLORS)]
        s = sorted(p for p in s if p[1] > 0)
        if not s:
            continue
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="'
                   + " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in s) + '"/>')
        out += [f'<circle cx="{X(x):.1f}" cy="{Y(y):.1f}" r="3" fill="{c}"><title>{esc(name)}: {fmt(y)} at {x}</title></circle>'
                for x, y in s]
        out.append(f'<text x="{left + pw + 10}" y="{top + 14 + 16 * i}" fill="{c}">{esc(name)}</text>')
    out.append("</svg>")
    write(path, "\n".join(out))


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write(path, text):
    with open(path, "w") as f:
        f.write(text + "\n")


# ---------------------------------------------------------------- sections


def stamp_section(runs, out_dir):
    groups = {}
    for name, b in runs.items():
        m = STAMP.match(name)
        if not m:
            continue
        role, collector, kind, tparam, arg = m.groups()
        key = f"{role} / {collector or 'swimlane'}"
        variant = kind + (f"<{tparam}>" if tparam else "") + (f"/{arg}" if arg else "")
        groups.setdefault(key, []).append((variant, b))
    if not groups:
        return ""
    text = ["## Stamp cost per task, per role\n",
            "CPU time of the producing thread per task (median), records going through the real transport "
            "with a live host. `plain` is the uninstrumented loop; `typed<N>` the collector compiled at N "
            "(level, dump level, PMU source, or on/off); `runtime_gated/N` every stamp compiled and each behind "
            "an `if` on a run-time int set to N, as the reference runtime gates them; `floor<N>` the least a "
            "collector at N must do (bench/floor.hpp): the plain loop plus the bare clock reads of its stamps and a "
            "memcpy of the bytes it captures, no transport; `no_wait<N>` is `typed<N>` on channels that hold the whole run "
            "(bench/no_wait_channels.hpp), so the producer never waits for the host: the stamps' own cost, with the "
            "host's drain and wake-up latency taken out; `floor_run<N>` (args dump) the floor's copies into memory "
            "as large as the run's, each byte written once as `no_wait`'s are; `minimal<N>` (args dump) `no_wait<N>` "
            "with the capture replaced by the least code that writes the same bytes. `+ns` is over `plain`; "
            "`x floor` is a variant's `+ns` over the floor's `+ns` at the same N, `x run floor` over `floor_run`'s "
            "(the goal: at most 1.3x the floor + 5 ns; docs/hot-paths.md has the "
            "before/after of that work and why a collector is above it).\n"]
    bars = {}
    for key in sorted(groups):
        rows = []
        plain = next((b for v, b in groups[key] if v == "plain"), None)
        base = ns(plain) if plain and not plain.get("error_occurred") else None
        floors, run_floors = {}, {}
        for variant, b in groups[key]:
            if base is None or b.get("error_occurred"):
                continue
            if variant.startswith("floor<"):
                floors[variant[len("floor"):]] = ns(b) - base
            if variant.startswith("floor_run<"):
                run_floors[variant[len("floor_run"):]] = ns(b) - base
        for variant, b in groups[key]:
            if b.get("error_occurred"):
                rows.append((f"`{variant}`", "not run", "", "", "", "", "", b.get("error_message", "")))
                continue
            cpu = ns(b)
            added = None if base is None or variant == "plain" else cpu - base
            level = variant[variant.index("<"):] if variant.startswith(("typed<", "no_wait<", "minimal<", "floor_run<")) else (
                f"<{variant.split('/')[1]}>" if variant.startswith("runtime_gated/") else None)
            floor = floors.get(level) if level else None
            ratio = f"{added / floor:.2f}x" if added is not None and floor and floor > 0 else ""
            run_floor = run_floors.get(level) if level and variant.startswith(("no_wait<", "minimal<")) else None
            run_ratio = f"{added / run_floor:.2f}x" if added is not None and run_floor and run_floor > 0 else ""
            rows.append((f"`{variant}`", fmt(cpu), fmt(ns(b, "real_time")), "" if added is None else signed(added),
                         "" if floor is None else fmt(floor), ratio, run_ratio, b.get("label", "")))
            if added is not None:
                bars[(key, variant)] = max(0.0, added)
        text.append(f"### {key}\n")
        text.append(table(["variant", "CPU ns/task", "wall ns/task", "+ns over plain", "floor +ns", "x floor",
                           "x run floor", "note"], rows))
    order = sorted(groups)
    variants = []
    for key in order:
        for v, _ in groups[key]:
            if v != "plain" and v not in variants:
                variants.append(v)
    # Floors first, then compiled choices, then their runtime-gated twins.
    variants = ([v for v in variants if v.startswith("floor")] + [v for v in variants if v.startswith("minimal")]
                + [v for v in variants if v.startswith("no_wait")] + [v for v in variants if v.startswith("typed")]
                + [v for v in variants if v.startswith("runtime_gated")])

    def color_of(v):
        if v.startswith("floor"):
            return ("floor (clock reads + memcpy)", COLORS[2])
        if v.startswith("minimal"):
            return ("least code writing the same bytes", COLORS[1])
        if v.startswith("no_wait"):
            return ("typed, never waiting for the host", COLORS[4])
        return ("compiled choice (typed)", COLORS[0]) if v.startswith("typed") else ("runtime-gated twin", COLORS[3])

    svg_bars("Added CPU ns per task over the uninstrumented loop (median)", order, variants, bars, "ns",
             os.path.join(out_dir, "stamp_costs.svg"), color_of)
    text.append("![added cost per task](benchmarks/stamp_costs.svg)\n")
    return "\n".join(text)


def convert_section(runs, out_dir):
    data = {}
    for name, b in runs.items():
        m = CONVERT.match(name)
        if m:  # a failed run stays, as a "not run" row saying why
            data.setdefault(m.group(1), {})[int(m.group(2))] = b
    if not data:
        return ""
    json_out = {n: b.get("output_MB") for n, b in data.get("swimlane", {}).items() if not b.get("error_occurred")}
    text = ["## Converters\n",
            "The `dfx` binary as a child process on generated inputs (`bench/synthetic_capture.hpp`: a level-4 "
            "capture on 24 cores and 3 scheduler threads with its deps.json; a scope_stats.jsonl), from spawn to "
            "exit. MB/s is input bytes over wall time; peak RSS is the child's own (ru_maxrss; it includes at most the "
            "few MB the forking bench process holds, its `spawner_rss_MB`). Up to 2*10^5 tasks a size is timed three "
            "times (the mean is shown) with its input read once beforehand, untimed, so it is timed from the page "
            "cache whatever ran before it; at 10^6 tasks and up it is one run that also reads the disk. "
            "`dfx deps` also reads the records beside deps.json (the perf sidecar), which input MB leaves out. "
            "`dfx critical-path` reads the same capture from a directory of its own (links to its two files and a "
            "name map of the generator's kernel ids: the tool looks for a run directory holding all three) and "
            "prints its report to /dev/null; with no merged trace there, it draws no trace. "
            "The JSON trace of 10^7 tasks (about 88 GB) is more than the disk holds: it goes through a pipe to the "
            "bench, which counts its bytes (reading them takes CPU on the same cores; the /dev/null table times "
            "the converter alone). "
            "The reference column is "
            "../shared/spec/reference-performance.md (same machine class; its inputs are of the same shape, "
            "about 5-25 % larger per task).\n"]
    for tool in ["swimlane", "swimlane_to_null", "swimlane_perfetto", "sched_overhead", "deps_text", "critical_path",
                 "scope_stats"]:
        if tool not in data:
            continue
        # The traces: their size, and the protobuf's against the JSON's of the same input.
        traces = tool in ("swimlane", "swimlane_perfetto")
        rows = []
        for n in sorted(data[tool]):
            b = data[tool][n]
            if b.get("error_occurred"):
                rows.append((f"{n:,}", "not run", "", "", "", *([""] if traces else []), "", "", "",
                             b.get("error_message", "")))
                continue
            wall = ns(b, "real_time") / 1e9
            rss = b.get("peak_rss_MB")
            # (the reference tools write no protobuf)
            ref = None if tool == "swimlane_perfetto" else REFERENCE.get(tool.replace("_to_null", ""), {}).get(n)
            note = b.get("label", "")
            if tool == "swimlane_perfetto" and json_out.get(n) and b.get("output_MB"):
                note += f"; {json_out[n] / b['output_MB']:.1f}x smaller than the JSON"
            out = [fmt(b.get("output_MB")) if b.get("output_MB") else "(not kept)"] if traces else []
            rows.append((f"{n:,}", fmt(b.get("input_MB")), fmt(wall), fmt(b.get("bytes_per_second", 0) / 1e6),
                         fmt(rss), *out, f"{ref[0]:g} s, {ref[1]:,} MB" if ref else "",
                         f"**{ref[0] / wall:.0f}x**" if ref else "", f"{ref[1] / rss:.0f}x" if ref and rss else "",
                         note))
        text.append(f"### {TOOL_TITLE[tool]}\n")
        text.append(table(["tasks", "input MB", "wall s", "MB/s", "peak RSS MB", *(["output MB"] if traces else []),
                           "reference", "faster", "less memory", "note"], rows))
    ok = {t: {n: b for n, b in d.items() if not b.get("error_occurred")} for t, d in data.items()}
    svg_lines("Converter throughput (input MB/s)",
              {t: [(n, b.get("bytes_per_second", 0) / 1e6) for n, b in d.items()] for t, d in ok.items()},
              "tasks", "MB/s", os.path.join(out_dir, "convert_throughput.svg"))
    svg_lines("Converter peak RSS (MB)", {t: [(n, b.get("peak_rss_MB", 0)) for n, b in d.items()] for t, d in ok.items()},
              "tasks", "peak RSS MB", os.path.join(out_dir, "convert_memory.svg"), log_y=True)
    text.append("![throughput](benchmarks/convert_throughput.svg)\n\n![memory](benchmarks/convert_memory.svg)\n")
    return "\n".join(text)


def sim_section(runs, out_dir):
    data = {}
    for name, b in runs.items():
        m = SIM.match(name)
        if m:
            data.setdefault(m.group(1), {})[m.group(2)] = b
    if not data:
        return ""
    configs = []
    for d in data.values():
        for c in d:
            if c not in configs:
                configs.append(c)
    text = ["## End to end: dfx-sim\n",
            "Tasks per second of whole chip runs (orchestrator, 2 AICPU scheduler threads, 6 AICore workers on "
            "this machine's 2 cores), median over repetitions; each collector on alone, then all five. The ratio "
            "is over `off` in the same run. The workloads are small (48-200 tasks, a few ms), so thread wake-ups "
            "dominate and the spread between repetitions is wide: read the ratios as the order of magnitude.\n"]
    header = ["collectors"] + list(data)
    rows = []
    bars = {}
    for c in configs:
        row = [f"`{c}`"]
        for w, d in data.items():
            b = d.get(c)
            off = d.get("off")
            if not b or b.get("error_occurred"):
                row.append("failed" if b else "")
                continue
            rate = b.get("items_per_second", 0)
            ratio = rate / off["items_per_second"] if off and off.get("items_per_second") else None
            row.append(f"{fmt(rate / 1e3)} k/s" + (f" ({ratio:.2f})" if ratio and c != "off" else ""))
            if ratio:
                bars[(w, c)] = ratio
        rows.append(row)
    text.append(table(header, rows))
    svg_bars("dfx-sim tasks/s relative to collectors off (median)", list(data), configs, bars, "x",
             os.path.join(out_dir, "sim_overhead.svg"))
    text.append("![sim overhead](benchmarks/sim_overhead.svg)\n")
    text.append("The long stream workload (100,000 tasks and more, `bench/sim_stream.sh`), where the per-task cost "
                "rather than thread wake-ups sets the rate, and its before/after runs side by side: "
                "docs/hot-paths.md, \"End to end\".\n")
    return "\n".join(text)


def transport_section(runs):
    rows = []
    for name in ["BM_tsc_read", "BM_steady_clock_read", "BM_push_cost<32>", "BM_push_cost<64>"]:
        if name in runs:
            rows.append((f"`{name}`", fmt(ns(runs[name])) + " ns", ""))
    for name, b in runs.items():
        if name.startswith("BM_transport<"):
            total, each = b.get("records_per_s"), b.get("per_producer_records_per_s")
            rows.append((f"`{name.replace('/manual_time', '')}`", fmt(ns(b, "real_time") / 1e6) + " ms",
                         f"{fmt(total / 1e6)} M records/s ({fmt(each / 1e6)} M per producer)" if total and each else ""))
    for name, b in runs.items():
        if name.startswith("BM_dump_drain") or name.startswith("BM_drain_only"):
            rate = b.get("bytes_per_second")
            rows.append((f"`{name.replace('/manual_time', '')}`", fmt(ns(b, "real_time") / 1e6) + " ms",
                         fmt(rate / 2 ** 30) + " GiB/s" if rate else ""))
    if not rows:
        return ""
    return ("## Transport and args-dump drain\n\n"
            "Clock reads and one record push (no host contention), the transport end to end (producers pushing, "
            "the host copying every buffer out), and the args dump from capture to bytes in args.bin.\n\n"
            + table(["benchmark", "time (median)", "rate"], rows))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("results", nargs="?", default=os.path.join(root, "build-bench", "results"))
    ap.add_argument("--out", default=os.path.join(root, "docs"))
    args = ap.parse_args()
    runs = load(args.results)
    if not runs:
        sys.exit(f"bench_report: no benchmark JSON in {args.results} (run scripts/bench.sh first)")
    plots = os.path.join(args.out, "benchmarks")
    os.makedirs(plots, exist_ok=True)
    machine = ""
    mpath = os.path.join(args.results, "machine.txt")
    if os.path.exists(mpath):
        with open(mpath) as f:
            machine = f.read().strip()
    sections = [stamp_section(runs, plots), sim_section(runs, plots), convert_section(runs, plots), transport_section(runs)]
    doc = ["# Benchmarks\n",
           "Generated by `scripts/bench_report.py` from the JSON that `bash scripts/bench.sh` writes; do not edit by "
           "hand. Every number below comes from one run of the whole suite on the machine described here; ratios "
           "compare entries of the same run.\n",
           "## Reproduce\n",
           "```\nbash scripts/bench.sh                 # builds build-bench/ (release), runs every bench/, JSON to build-bench/results/\n"
           "python3 scripts/bench_report.py       # rewrites docs/benchmarks.md and docs/benchmarks/*.svg\n```\n",
           "`bash scripts/bench.sh --benchmark_filter=REGEX` runs a subset; `DFX_BENCH_MAX_TASKS=1000000` caps the "
           "converter sizes (the 10^7-task inputs take 20 GB of disk in `build-bench/bench/inputs/`, generated once). "
           "Timings need a quiet machine; the zero-cost claims do not rest on them (see docs/zero-cost.md: "
           "identical machine code and instruction counts).\n",
           "## Machine\n", "```\n" + (machine or "(machine.txt missing)") + "\n```\n"]
    doc += [s for s in sections if s]
    write(os.path.join(args.out, "benchmarks.md"), "\n".join(doc).rstrip() + "\n")
    print(f"wrote {os.path.join(args.out, 'benchmarks.md')} and {plots}/*.svg")


if __name__ == "__main__":
    main()
