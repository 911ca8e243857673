#!/usr/bin/env python3
"""Compile-fail check with a valid twin.

Each case file compiles in two ways:
  * as is: the valid twin, which must compile (so the case cannot "fail"
    for an unrelated reason such as a typo or a missing include);
  * with -DDFX_COMPILE_FAIL: the misuse, which must fail to compile with the
    diagnostic named on the case's `// expect:` line.

usage: check_compile_fail.py CASE.cpp INCLUDE_DIR COMPILER [COMPILER ARGS...]
"""
import os
import re
import subprocess
import sys
import tempfile


def compile_case(compiler, include_dir, case, extra):
    with tempfile.TemporaryDirectory() as tmp:
        cmd = compiler + ["-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                          "-I", include_dir, case] + extra
        result = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        return result.returncode, result.stderr


def main():
    case, include_dir, compiler = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(case, encoding="utf-8") as f:
        expects = re.findall(r"^// expect: (.+)$", f.read(), re.MULTILINE)
    if len(expects) != 1:
        print(f"{case}: needs exactly one '// expect: <diagnostic text>' line")
        return 1
    expected = expects[0].strip()
    name = os.path.basename(case)

    rc, err = compile_case(compiler, include_dir, case, [])
    if rc != 0:
        print(f"{name}: the valid twin does not compile, so the failing case proves nothing:\n{err}")
        return 1

    rc, err = compile_case(compiler, include_dir, case, ["-DDFX_COMPILE_FAIL"])
    if rc == 0:
        print(f"{name}: the misuse compiled, but must not")
        return 1
    if expected not in err:
        print(f"{name}: the misuse failed, but without the expected diagnostic '{expected}':\n{err}")
        return 1
    print(f"{name}: valid twin compiles; misuse fails with '{expected}'")
    return 0


if __name__ == "__main__":
    sys.exit(main())
