#!/usr/bin/env python3
"""Zero-cost proof for dfxkit's role views.

The property: with every collector off, instrumented code is the uninstrumented
code; with one collector on, only its guards appear. sample_loops.cpp holds a
worker, a scheduler and an orchestrator loop whose stamp lines can be removed
by the preprocessor (the "plain" twin); this script compiles its variants and
compares them.

Commands (exit 0 = property holds, 1 = property broken, 77 = skipped,
99 = the check itself could not run, which never counts as a pass):

  disasm     plain vs instrumented-all-off: the disassembled loop bodies must
             be identical (a unified diff is printed otherwise)
  guards     swimlane levels 1..4: exact rdtsc count per loop, and every loop
             whose guards are all off at that level is identical to the plain twin
  callgrind  plain vs all-off executables: equal instruction counts (Ir) per loop
             under callgrind, and equal results

--variant sabotage --expect-difference runs the same comparison against a
variant with one deliberate extra side effect and passes only if a difference
is found: a checker that always says "equal" fails that test.
"""

from __future__ import annotations

import argparse
import difflib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

PASS, FAIL, SKIP, ERROR = 0, 1, 77, 99

LOOPS = ("dfx_zc_worker_loop", "dfx_zc_scheduler_loop", "dfx_zc_orchestrator_loop")

# How each variant of sample_loops.cpp is selected.
VARIANTS = {
    "plain": ["-DDFX_SAMPLE_PLAIN"],
    "off": [],  # dfx::collectors<>
    "sabotage": ["-DDFX_SAMPLE_SABOTAGE"],
    "switches": ["-DDFX_SAMPLE_SWITCHES"],  # dep_gen + scope stats on
    **{f"level{n}": [f"-DDFX_SAMPLE_SWIMLANE={n}"] for n in range(1, 5)},
}

# rdtsc instructions per loop at each swimlane level, (worker, scheduler, orchestrator).
# With dfx::tsc_clock every Clock::now() is one rdtsc; the views read the clock:
#   aicore_timing (level >= 1):   received(), started(), ended()         -> 3 per task
#   dispatch_finish (level >= 2): dispatching(), finished()              -> 2 per dispatch
#   phase_scope (level >= 3):     constructor (start), destructor (end)  -> +2 per phase
#   submit_scope (level 4):       constructor (start), destructor (end)  -> 2 per submit
# Each loop body runs each stamp once per iteration, so these are also the
# static counts, provided the compiler does not duplicate the loop body.
EXPECTED_RDTSC = {
    1: {"dfx_zc_worker_loop": 3, "dfx_zc_scheduler_loop": 0, "dfx_zc_orchestrator_loop": 0},
    2: {"dfx_zc_worker_loop": 3, "dfx_zc_scheduler_loop": 2, "dfx_zc_orchestrator_loop": 0},
    3: {"dfx_zc_worker_loop": 3, "dfx_zc_scheduler_loop": 4, "dfx_zc_orchestrator_loop": 0},
    4: {"dfx_zc_worker_loop": 3, "dfx_zc_scheduler_loop": 4, "dfx_zc_orchestrator_loop": 2},
}

# The project's own flags (C++20, -O2, warnings as errors). -ffunction-sections
# puts each loop in its own section starting at address 0, so its addresses
# do not depend on the size of the functions compiled before it.
CXXFLAGS = ["-std=c++20", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-ffunction-sections"]


class CheckError(Exception):
    """The check could not be carried out (exit 99, never a pass)."""


def run(cmd: list[str]) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CheckError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stdout}{proc.stderr}")
    return proc


def compile_object(args, source: Path, defines: list[str], out: Path) -> Path:
    run([args.cxx, *CXXFLAGS, f"-I{args.include_dir}", f"-I{HERE}", *defines, "-c", str(source), "-o", str(out)])
    return out


def compile_variant(args, variant: str, tmp: Path) -> Path:
    # One object per variant: nothing can be folded or shared between variants.
    return compile_object(args, HERE / "sample_loops.cpp", VARIANTS[variant], tmp / f"loops_{variant}.o")


# ---------------------------------------------------------------------------
# Disassembly and normalisation

INSN_RE = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
RELOC_RE = re.compile(r"^\s*[0-9a-f]+:\s+(R_\S+)\s+(\S+)$")
FUNC_RE = re.compile(r"^[0-9a-f]+ <(.+)>:$")
# A branch/call operand as objdump prints it: "4a <fn+0x4a>".
TARGET_RE = re.compile(r"\b([0-9a-f]+) <[^>]+>$")


def disassemble(obj: Path) -> dict[str, list[str]]:
    """Normalised instruction lines of each loop, keyed by loop name.

    The normalised form keeps what the code does and drops where it sits:
    - addresses are dropped; branch targets inside the function become labels
      L0, L1, ... numbered in address order, printed before their instruction;
    - objdump's "# addr <sym+off>" comments are dropped;
    - a relocated operand (calls, rip-relative data in an unlinked object) is
      shown as "<reloc>" followed by the relocation type and the symbol name,
      which is what the linker will put there; addends against section symbols
      (".rodata.cst16+0x10") are dropped because they depend on what else the
      translation unit emits, addends against named symbols (struct fields) are kept;
    - compiler-split parts (fn.cold, fn.part.0) are appended under their own header.
    """
    objdump = shutil.which("objdump")
    if objdump is None:
        raise CheckError("objdump (binutils) not found")
    text = run([objdump, "-d", "-r", "--no-show-raw-insn", "-M", "intel", str(obj)]).stdout

    # name -> list of [address, instruction text, relocation or None]
    functions: dict[str, list[list]] = {}
    current = None
    for line in text.splitlines():
        if m := FUNC_RE.match(line):
            current = functions.setdefault(m.group(1), [])
        elif current is None:
            continue
        elif m := RELOC_RE.match(line):
            rtype, sym = m.groups()
            if sym.startswith("."):
                sym = re.sub(r"[+-]0x[0-9a-f]+$", "", sym)
            current[-1][2] = f"{rtype} {sym}"
        elif m := INSN_RE.match(line):
            current.append([int(m.group(1), 16), m.group(2), None])

    result = {}
    for loop in LOOPS:
        parts = [name for name in functions if name == loop or name.startswith(loop + ".")]
        if loop not in parts or not functions[loop]:
            raise CheckError(f"{loop} not found in the disassembly of {obj.name}")
        lines = []
        for name in parts:
            lines.append(f"<{name.replace(loop, 'fn', 1)}>:")
            lines += normalise(functions[name])
        result[loop] = lines
    return result


def normalise(insns: list[list]) -> list[str]:
    addresses = {addr for addr, _, _ in insns}

    def in_function_target(text: str, reloc) -> int | None:
        m = TARGET_RE.search(text)
        if m and reloc is None and int(m.group(1), 16) in addresses:
            return int(m.group(1), 16)
        return None

    targets = sorted({t for _, text, reloc in insns if (t := in_function_target(text, reloc)) is not None})
    labels = {addr: f"L{i}" for i, addr in enumerate(targets)}

    out = []
    for addr, text, reloc in insns:
        text = re.sub(r"\s*#.*$", "", text)  # objdump's address comment
        target = in_function_target(text, reloc)
        if target is not None:
            text = TARGET_RE.sub(labels[target], text)
        elif reloc is not None:
            text = TARGET_RE.sub("<reloc>", text)
        text = " ".join(text.split())
        if reloc is not None:
            text += f"  ; {reloc}"
        if addr in labels:
            out.append(f"{labels[addr]}:")
        out.append("    " + text)
    return out


def diff(a: list[str], b: list[str], a_name: str, b_name: str) -> str:
    return "\n".join(difflib.unified_diff(a, b, a_name, b_name, lineterm="", n=4))


def verdict(differing: list[str], expect_difference: bool, what: str) -> int:
    if expect_difference:
        if differing:
            print(f"OK: the {what} comparison detected the deliberate difference in: {', '.join(differing)}")
            return PASS
        print(f"FAIL: the {what} comparison found no difference in a variant that has one: the check is blind")
        return FAIL
    if differing:
        print(f"FAIL: instrumented-all-off differs from the plain twin ({what}) in: {', '.join(differing)}")
        return FAIL
    print(f"OK: {what} identical to the plain twin for all {len(LOOPS)} loops")
    return PASS


# ---------------------------------------------------------------------------
# Commands


def cmd_disasm(args, tmp: Path) -> int:
    plain = disassemble(compile_variant(args, "plain", tmp))
    other = disassemble(compile_variant(args, args.variant, tmp))
    differing = []
    for loop in LOOPS:
        if plain[loop] == other[loop]:
            print(f"{loop}: {len(plain[loop])} lines, identical")
        else:
            differing.append(loop)
            print(f"{loop}: DIFFERENT")
            print(diff(plain[loop], other[loop], f"{loop} (plain)", f"{loop} ({args.variant})"))
    if args.variant == "switches" and differing != ["dfx_zc_orchestrator_loop"]:
        # dep_gen and scope stats stamp in the orchestrator only: anything else changing is a leak.
        print(f"FAIL: with dep_gen and scope stats on, exactly the orchestrator loop must change; changed: {differing}")
        return FAIL
    return verdict(differing, args.expect_difference, f"disassembly ({args.cxx})")


def cmd_guards(args, tmp: Path) -> int:
    plain = disassemble(compile_variant(args, "plain", tmp))
    failures = []
    print(f"{'level':<6}" + "".join(f"{loop:>28}" for loop in LOOPS) + "   (rdtsc found / expected)")
    for level, expected in EXPECTED_RDTSC.items():
        code = disassemble(compile_variant(args, f"level{level}", tmp))
        row = f"{level:<6}"
        for loop in LOOPS:
            found = sum(1 for line in code[loop] if line.split()[0] == "rdtsc")
            row += f"{f'{found} / {expected[loop]}':>28}"
            if found != expected[loop]:
                failures.append(f"level {level}: {loop} has {found} rdtsc, expected {expected[loop]}")
            # A loop none of whose guards is on at this level must be the plain loop:
            # turning on one collector adds only that collector's code.
            if expected[loop] == 0 and code[loop] != plain[loop]:
                failures.append(f"level {level}: {loop} has no stamps on but differs from the plain twin:\n"
                                + diff(plain[loop], code[loop], f"{loop} (plain)", f"{loop} (level {level})"))
        print(row)
    for failure in failures:
        print("FAIL:", failure)
    if not failures:
        print(f"OK: rdtsc counts as expected at levels 1-4 ({args.cxx}); loops with no stamps on equal the plain twin")
    return FAIL if failures else PASS


def callgrind_ir(valgrind: str, exe: Path, loop: str, tmp: Path) -> tuple[int, str]:
    """Instructions executed inside `loop` (and anything it calls), and the program's output."""
    out_file = tmp / f"callgrind.{exe.name}.{loop}.out"
    proc = run([valgrind, "--tool=callgrind", f"--callgrind-out-file={out_file}",
                f"--toggle-collect={loop}", str(exe)])
    m = re.search(r"^(?:summary|totals):\s+(\d+)", out_file.read_text(), re.MULTILINE)
    if m is None:
        raise CheckError(f"no summary line in {out_file}")
    ir = int(m.group(1))
    if ir == 0:
        # An unknown or never-called function collects nothing; 0 == 0 must not pass.
        raise CheckError(f"callgrind collected no instructions in {loop} ({exe.name})")
    return ir, proc.stdout


def cmd_callgrind(args, tmp: Path) -> int:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("SKIP: valgrind is not installed")
        return SKIP
    # The driver and the sink are compiled once and linked with each variant's loops.
    driver = compile_object(args, HERE / "zc_driver.cpp", [], tmp / "driver.o")
    sink = compile_object(args, HERE / "sample_sink.cpp", [], tmp / "sink.o")
    exes = {}
    for variant in ("plain", args.variant):
        exes[variant] = tmp / f"zc_{variant}"
        run([args.cxx, "-o", str(exes[variant]), str(driver), str(sink), str(compile_variant(args, variant, tmp))])

    differing = []
    outputs = {}
    for loop in LOOPS:
        counts = {}
        for variant, exe in exes.items():
            counts[variant], outputs[variant] = callgrind_ir(valgrind, exe, loop, tmp)
        same = counts["plain"] == counts[args.variant]
        print(f"{loop}: plain {counts['plain']} Ir, {args.variant} {counts[args.variant]} Ir"
              + ("" if same else f"  DIFFERENT ({counts[args.variant] - counts['plain']:+d})"))
        if not same:
            differing.append(loop)
    # Same input, same results: a cheap guard against comparing two broken programs.
    if outputs["plain"] != outputs[args.variant]:
        raise CheckError(f"the variants compute different results:\n plain: {outputs['plain']}"
                         f" {args.variant}: {outputs[args.variant]}")
    print("results:", outputs["plain"].strip())
    return verdict(differing, args.expect_difference, f"callgrind instruction count ({args.cxx})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("disasm", "guards", "callgrind"))
    parser.add_argument("--cxx", required=True, help="C++ compiler to use (g++, clang++ or a path)")
    parser.add_argument("--include-dir", default=str(HERE.parent.parent / "include"))
    parser.add_argument("--variant", choices=("off", "sabotage", "switches"), default="off",
                        help="what to compare with the plain twin (disasm, callgrind)")
    parser.add_argument("--expect-difference", action="store_true",
                        help="pass only if the comparison finds a difference (use with --variant sabotage)")
    args = parser.parse_args()

    cxx = shutil.which(args.cxx)
    if cxx is None:
        print(f"SKIP: compiler {args.cxx} not found")
        return SKIP
    args.cxx = cxx

    commands = {"disasm": cmd_disasm, "guards": cmd_guards, "callgrind": cmd_callgrind}
    try:
        with tempfile.TemporaryDirectory(prefix="dfx-zero-cost-") as tmp:
            return commands[args.command](args, Path(tmp))
    except CheckError as e:
        print("ERROR:", e)
        return ERROR


if __name__ == "__main__":
    sys.exit(main())
