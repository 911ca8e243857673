#!/usr/bin/env python3
"""The include direction of docs/architecture.md, asserted on include/dfx/.

Every `#include "dfx/<layer>/..."` or `#include <dfx/<layer>/...>` line of a
header under include/dfx/<layer>/ (and of the umbrella include/dfx/<layer>.hpp)
must name a layer that <layer> may depend on:

    schema     nothing (the on-disk contract as data; standard headers only)
    io         nothing (the JSON string escaper and the temp-and-rename
               writer; standard and POSIX headers only)
    policy     nothing
    record     policy, schema
    transport  record, policy, schema
    collect    transport, record, policy, schema
    output     collect, transport, record, policy, schema, io
    session    output, collect, transport, record, policy, config, schema, io
    config     policy only
    convert    schema, record and io only (never transport, collect, output)

The umbrella include/dfx/dfx.hpp may include every layer but convert (the
converters are offline tools, not part of what a runtime includes), and
include/dfx/cxx20.hpp (the C++20 gate every umbrella opens with) may be
included by anyone and includes nothing. Headers of policy/, record/,
transport/ and collect/ (the device side) include no simdjson, {fmt} or
CLI11, schema/ includes nothing but the standard library, and io/ nothing
but the standard library, POSIX and its own headers.

  include_direction.py INCLUDE_DIR         check the tree; exit 1 listing
                                           every offending line
  include_direction.py INCLUDE_DIR --self-test
                                           also prove the checker flags a
                                           deliberately bad include (a copy
                                           of the tree with convert/ including
                                           output/ must fail)
"""
import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

ALLOWED = {
    "schema": set(),
    "io": set(),
    "policy": set(),
    "record": {"policy", "schema"},
    "transport": {"record", "policy", "schema"},
    "collect": {"transport", "record", "policy", "schema"},
    "output": {"collect", "transport", "record", "policy", "schema", "io"},
    "session": {"output", "collect", "transport", "record", "policy", "config", "schema", "io"},
    "config": {"policy"},
    "convert": {"schema", "record", "io"},
}
DEVICE_LAYERS = ("policy", "record", "transport", "collect")
BASE = "cxx20"             # include/dfx/cxx20.hpp: includable by anyone
TOP_UMBRELLA = "dfx"       # include/dfx/dfx.hpp
THIRD_PARTY_HOST = re.compile(r"^(simdjson|fmt/|CLI/|CLI11)")

# A preprocessor include at the start of a line; a `// #include` in a comment
# does not match.
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of_header(rel: Path) -> str:
    """rel is relative to include/dfx: 'output/pmu_csv.hpp' -> 'output',
    'output.hpp' -> 'output', 'dfx.hpp' -> 'dfx'."""
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def layer_of_include(target: str) -> str | None:
    """'dfx/record/core_type.hpp' -> 'record'; 'dfx/policy.hpp' -> 'policy';
    None for anything that is not dfxkit's."""
    if not target.startswith("dfx/"):
        return None
    rest = Path(target[len("dfx/"):])
    return rest.parts[0] if len(rest.parts) > 1 else rest.stem


def check(include_dir: Path) -> list[str]:
    root = include_dir / "dfx"
    if not root.is_dir():
        sys.exit(f"include_direction.py: {root} is not a directory")
    problems = []
    headers = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".hpp", ".h"))
    known = set(ALLOWED) | {BASE, TOP_UMBRELLA}
    for path in headers:
        rel = path.relative_to(root)
        layer = layer_of_header(rel)
        if layer not in known:
            problems.append(f"{path}: layer '{layer}' is not in the include-direction table of "
                            f"tests/architecture/include_direction.py (add it with its allowed dependencies)")
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(2).strip()
            where = f"{path}:{number}: {line.strip()}"
            if layer == "schema" and not (m.group(1) == "<" and re.fullmatch(r"[a-z_0-9]+", target)):
                problems.append(f"{where}: schema/ includes only standard headers")
                continue
            if layer in DEVICE_LAYERS and THIRD_PARTY_HOST.match(target):
                problems.append(f"{where}: {layer}/ is device side and includes no simdjson, {{fmt}} or CLI11")
                continue
            if layer == "io" and THIRD_PARTY_HOST.match(target):
                problems.append(f"{where}: io/ includes only standard and POSIX headers (and its own)")
                continue
            dep = layer_of_include(target)
            if dep is None or dep == layer or dep == BASE:
                continue
            if layer == BASE:
                problems.append(f"{where}: dfx/cxx20.hpp includes nothing of dfxkit")
            elif layer == TOP_UMBRELLA:
                if dep == "convert":
                    problems.append(f"{where}: dfx/dfx.hpp (what a runtime includes) never includes convert/")
            elif dep not in ALLOWED[layer]:
                allowed = ", ".join(sorted(ALLOWED[layer])) or "nothing"
                problems.append(f"{where}: {layer} -> {dep} is against the include direction "
                                f"({layer} may include {allowed})")
    return problems


def self_test(include_dir: Path) -> bool:
    """A copy of the tree with one bad include must be flagged, on that line."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "include"
        shutil.copytree(include_dir, copy)
        bad = copy / "dfx" / "convert" / "bad_include_probe.hpp"
        bad.write_text('#pragma once\n#include "dfx/output/pmu_csv.hpp"\n', encoding="utf-8")
        leaf = copy / "dfx" / "io" / "bad_include_probe.hpp"
        leaf.write_text('#pragma once\n#include "dfx/schema/artefact_names.hpp"\n#include <fmt/format.h>\n',
                        encoding="utf-8")
        problems = check(copy)
        flagged = [p for p in problems if "convert/bad_include_probe.hpp:2" in p and "convert -> output" in p]
        if not flagged:
            print("self-test FAILED: a convert/ header including output/ was not flagged", file=sys.stderr)
            return False
        leaf_flagged = [p for p in problems if "io/bad_include_probe.hpp:2" in p and "io -> schema" in p]
        leaf_flagged += [p for p in problems if "io/bad_include_probe.hpp:3" in p and "io/ includes only" in p]
        if len(leaf_flagged) != 2:
            print("self-test FAILED: an io/ header including schema/ or {fmt} was not flagged", file=sys.stderr)
            return False
        print(f"self-test: the deliberately bad includes are flagged:\n  {flagged[0]}\n  " + "\n  ".join(leaf_flagged))
        return True


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("include_dir", type=Path)
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test and not self_test(args.include_dir):
        return 1
    problems = check(args.include_dir)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} include(s) against the direction of docs/architecture.md")
        return 1
    print("include direction holds for every header under include/dfx/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
