#!/usr/bin/env python3
"""Units of perfetto_trace.py, the trace comparison the equivalence tests trust.

ns(): a JSON time in µs becomes ns as the protobuf writer rounds it
(perfetto_begins.hpp pf_ns) and as current trace_processor reads it (its JSON
tokenizer's CoerceToTs: std::llround(us * 1000.0), halves away from zero). With
Python's round() (halves to even) a slice on a half nanosecond, such as one of
a dfx-sim paged_attention capture at 2064.9065 µs, compared 1 ns apart.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfetto_trace  # noqa: E402

# (µs, ns as std::llround(us * 1000.0) gives it; worked by hand from the
# double each literal is: 2064.9065 * 1000 is 2064906.5 exactly, 2064.9055 *
# 1000 is 2064905.4999999998)
CASES = [
    (2064.9065, 2064907),
    (2064.9055, 2064905),
    (0.0005, 1),
    (0.0025, 3),
    (-0.0005, -1),
    (-0.0025, -3),
    (1.0015, 1002),
    (12.0, 12000),
    (0.0, 0),
    (-3.4999, -3500),
    (1e-20, 0),
    (-1e-20, 0),
    (-0.0004999999999999999, 0),  # * 1000 is -0.49999999999999989, just short of a half
    (1234567890123.4565, 1234567890123457),  # a large time: * 1000 is 1234567890123456.5
]

failures = [f"ns({us!r}) = {perfetto_trace.ns(us)}, expected {want}"
            for us, want in CASES if perfetto_trace.ns(us) != want]
for f in failures:
    print(f)
print(f"ns(): {len(CASES) - len(failures)} of {len(CASES)} cases as trace_processor rounds")
sys.exit(1 if failures else 0)
