#!/usr/bin/env python3
"""The README's C++ blocks are excerpts of examples that CI builds, so they cannot rot.

An example marks an excerpt with `// [readme: NAME]` ... `// [/readme: NAME]`. Every
```cpp block of README.md must equal one such region (both dedented), and every region
must appear in the README: a block edited by hand, or an example changed without the
README, fails.

Usage: readme_excerpts.py SOURCE_ROOT
"""

import re
import sys
import textwrap
from pathlib import Path

REGION = re.compile(r"^[ \t]*// \[readme: ([\w-]+)\]\n(.*?)^[ \t]*// \[/readme: \1\]$", re.M | re.S)
BLOCK = re.compile(r"^```cpp\n(.*?)^```$", re.M | re.S)


def main(argv):
    root = Path(argv[1])
    regions = {}
    for src in sorted(p for p in (root / "examples").rglob("*") if p.suffix in (".cpp", ".hpp")):
        for m in REGION.finditer(src.read_text(encoding="utf-8")):
            regions[f"{src.relative_to(root)}:{m.group(1)}"] = textwrap.dedent(m.group(2)).strip("\n")
    blocks = [textwrap.dedent(b).strip("\n") for b in BLOCK.findall((root / "README.md").read_text(encoding="utf-8"))]
    failures = []
    if not regions:
        failures.append("no `// [readme: NAME]` region in examples/")
    for i, block in enumerate(blocks, 1):
        if block not in regions.values():
            failures.append(f"README.md C++ block {i} is not an excerpt of an example:\n{textwrap.indent(block, '    ')}")
    for name, text in regions.items():
        if text not in blocks:
            failures.append(f"region {name} is not shown in README.md")
    for f in failures:
        print("FAILED: " + f)
    if not failures:
        print(f"{len(blocks)} README C++ blocks, each an excerpt of a built example")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
