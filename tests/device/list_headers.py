#!/usr/bin/env python3
"""List dfxkit's public headers, classified as device-side or host-side.

Used by tests/device/meson.build at configure time (Meson cannot glob), so a
new header under include/dfx/ gets its own stand-alone TU (and a place in its
kind's headers-alone program) without
editing any meson.build. Output: one "<kind> <path relative to include/>"
line per header, sorted, kind being "device" or "host".

Device-side: everything under include/dfx/{policy,record,transport,collect,schema}/
(schema/ because record/ includes it)
and a top-level include/dfx/<dir>.hpp umbrella for one of those directories.
Everything else (include/dfx/config/, config.hpp, dfx.hpp, any directory not
listed above) is host-side, so every header is compiled at least once.

  list_headers.py INCLUDE_DIR                  print the list
  list_headers.py INCLUDE_DIR --check LINE...  exit 1 if the headers on disk
                                               differ from LINE... (the list
                                               Meson was configured with)
"""
import argparse
import sys
from pathlib import Path

DEVICE_DIRS = ("policy", "record", "transport", "collect", "schema")
HEADER_SUFFIXES = (".hpp", ".h", ".hh", ".hxx")


def classify(rel: Path) -> str:
    # rel is relative to include/, e.g. dfx/policy/clock.hpp or dfx/policy.hpp
    parts = rel.parts
    if len(parts) >= 3 and parts[1] in DEVICE_DIRS:
        return "device"
    if len(parts) == 2 and rel.stem in DEVICE_DIRS:
        return "device"
    return "host"


def list_headers(include_dir: Path) -> list[str]:
    root = include_dir / "dfx"
    if not root.is_dir():
        sys.exit(f"list_headers.py: {root} is not a directory")
    lines = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in HEADER_SUFFIXES:
            rel = path.relative_to(include_dir)
            lines.append(f"{classify(rel)} {rel.as_posix()}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("include_dir", type=Path)
    ap.add_argument("--check", nargs="*", metavar="LINE")
    args = ap.parse_args()

    current = list_headers(args.include_dir)
    if args.check is None:
        print("\n".join(current))
        return 0

    configured = sorted(args.check)
    if sorted(current) == configured:
        print(f"header list is current: {len(current)} headers "
              f"({sum(l.startswith('device ') for l in current)} device-side)")
        return 0
    added = sorted(set(current) - set(configured))
    removed = sorted(set(configured) - set(current))
    print("The headers under include/dfx/ changed since this build dir was configured,")
    print("so some header has no stand-alone compile test. Run `meson setup --reconfigure <builddir>`.")
    for line in added:
        print(f"  new:     {line}")
    for line in removed:
        print(f"  removed: {line}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
