#!/usr/bin/env python3
"""A runtime's hot-path translation unit reaches only device-side dfx headers.

Lists the headers bench/compile_time/runtime/runtime.cpp includes (the compiler's -M
output) and fails if any dfx header outside policy/, record/, transport/, collect/
(and schema/, the standard-library-only names record/ includes) is among
them: the session, the writers and the converters stay in the one host TU.

Usage: hot_path_headers.py SOURCE_ROOT CXX [CXX ARGS...]
"""

import subprocess
import sys
from pathlib import Path

DEVICE = ("policy", "record", "transport", "collect", "schema")


def main(argv):
    root = Path(argv[1]).resolve()
    cxx = argv[2:]
    src = root / "bench" / "compile_time" / "runtime" / "runtime.cpp"
    run = subprocess.run(cxx + ["-std=c++20", "-M", "-I", str(root / "include"), str(src)],
                         capture_output=True, text=True, check=False)
    if run.returncode != 0:
        print(run.stderr)
        return 1
    deps = [Path(p).resolve() for p in run.stdout.replace("\\\n", " ").split()[1:]]
    dfx = [p for p in deps if (root / "include" / "dfx") in p.parents]
    host = [p for p in dfx if p.relative_to(root / "include" / "dfx").parts[0] not in DEVICE]
    if not dfx:
        print("FAILED: the hot-path TU includes no dfx header at all (is it instrumented?)")
        return 1
    for p in host:
        print(f"FAILED: host-side header in the hot path: {p.relative_to(root / 'include')}")
    if not host:
        print(f"{len(dfx)} dfx headers in the hot-path TU, all device-side")
    return 1 if host else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
