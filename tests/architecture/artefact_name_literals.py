#!/usr/bin/env python3
"""No artefact file name is spelled as a literal outside include/dfx/schema/.

The on-disk contract's names (chip_swimlane_records.json, deps.json,
scope_stats/scope_stats.jsonl, merged_swimlane.json, ...) are constants in
include/dfx/schema/artefact_names.hpp; the converters, the dfx tool and the
examples use those constants, so a renamed artefact is one edit and a typo
cannot make a reader look for a file the writer never writes.

This test reads every C++ source under the given directories, drops comments
(comments may name files), and fails on any string literal that is a whole
file name with an artefact extension: "<name>.json", ".jsonl", ".csv",
".bin", ".txt", ".html", ".md" (a path with directories counts, a bare extension
such as ".json" does not).

  artefact_name_literals.py SOURCE_ROOT DIR...    check SOURCE_ROOT/DIR...
  artefact_name_literals.py SOURCE_ROOT --self-test DIR...
                                                  also prove a literal in code
                                                  is flagged and one in a
                                                  comment is not
"""
import argparse
import re
import sys
from pathlib import Path

SOURCE_SUFFIXES = (".hpp", ".cpp", ".h", ".cc")
ARTEFACT_NAME = re.compile(r"[A-Za-z0-9_./<>-]*[A-Za-z0-9_]\.(json|jsonl|csv|bin|txt|html|md)")


def string_literals(text: str):
    """Yields (line number, literal contents) for every string literal of a
    C++ source, skipping comments and character literals. Handles escapes and
    raw strings R"delim(...)delim"."""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
        elif c == "R" and i + 1 < n and text[i + 1] == '"' and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delim = text[i + 2:open_paren]
            close = text.find(")" + delim + '"', open_paren)
            close = n if close < 0 else close
            yield line, text[open_paren + 1:close]
            end = min(n, close + len(delim) + 2)
            line += text.count("\n", i, end)
            i = end
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                yield line, text[i + 1:j]
            i = j + 1
        else:
            i += 1


def offending_literals(path: Path):
    text = path.read_text(encoding="utf-8")
    for line, literal in string_literals(text):
        if ARTEFACT_NAME.fullmatch(literal):
            yield line, literal


def check(root: Path, dirs: list[str]) -> list[str]:
    problems = []
    for d in dirs:
        base = root / d
        if not base.is_dir():
            sys.exit(f"artefact_name_literals.py: {base} is not a directory")
        for path in sorted(p for p in base.rglob("*") if p.is_file() and p.suffix in SOURCE_SUFFIXES):
            for line, literal in offending_literals(path):
                problems.append(f"{path.relative_to(root)}:{line}: \"{literal}\" is an artefact name: "
                                f"use its constant from include/dfx/schema/artefact_names.hpp")
    return problems


def self_test() -> bool:
    sample = ('// the sibling "deps.json" is read first\n'
              '/* and "pmu.csv" in a block comment */\n'
              'const char* a = "l2_perf_records.json";\n'
              'const char c = \'"\'; const char* ext = ".json";\n'
              'auto s = R"x(scope_stats/scope_stats.jsonl)x";\n')
    found = []
    for line, literal in string_literals(sample):
        if ARTEFACT_NAME.fullmatch(literal):
            found.append((line, literal))
    expected = [(3, "l2_perf_records.json"), (5, "scope_stats/scope_stats.jsonl")]
    if found != expected:
        print(f"self-test FAILED: found {found}, expected {expected}", file=sys.stderr)
        return False
    print("self-test: literals in code are flagged, names in comments and bare extensions are not")
    return True


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("source_root", type=Path)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    if args.self_test and not self_test():
        return 1
    problems = check(args.source_root, args.dirs)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} literal artefact name(s) in code")
        return 1
    print(f"no literal artefact name in code under {', '.join(args.dirs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
