#!/usr/bin/env python3
"""Sums meson's test results over build directories into one plain line.

usage: count_results.py FAILED_BUILDS BUILD_DIR...
A build that did not compile counts as one failure. Skipped tests are shown
but count neither way; an expected failure that failed counts as passed.
Exits non-zero when anything failed.
"""
import json
import sys

passed = failed = skipped = 0
failed += int(sys.argv[1])
for build in sys.argv[2:]:
    try:
        with open(f"{build}/meson-logs/testlog.json", encoding="utf-8") as f:
            for line in f:
                result = json.loads(line)["result"]
                if result in ("OK", "EXPECTEDFAIL"):
                    passed += 1
                elif result == "SKIP":
                    skipped += 1
                else:
                    failed += 1
                    print(f"FAILED: {build}: {json.loads(line)['name']} ({result})")
    except OSError as e:
        print(f"no test log in {build}: {e}")
        failed += 1

print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed else 0)
