#!/usr/bin/env python3
"""Assert a linked executable neither defines nor references exception-handling
or RTTI symbols.

The executable links libstdc++ dynamically, so what matters is its own symbol
tables: the static one (nm, defined and undefined symbols) and the dynamic one
(nm -D, the imports the loader resolves from libstdc++/libgcc_s). Both are read
and matched on mangled names.

  check_eh_rtti.py --nm NM EXE
      exit 0 when EXE is clean, 1 (listing every offending symbol) when not
  check_eh_rtti.py --nm NM EXE --expect-flagged CATEGORY[,CATEGORY...]
      the checker's own test: exit 0 only when every listed category IS
      flagged in EXE (an executable deliberately built with exceptions/RTTI)

Either way, exit 2 when the symbol table cannot be read or looks empty (no
defined `main`), so a stripped binary or a broken nm cannot pass as "clean".
"""
import argparse
import re
import shutil
import subprocess
import sys

# category -> (description, predicate on the mangled name)
EXACT = {
    "throw": {"__cxa_allocate_exception", "__cxa_free_exception", "__cxa_throw", "__cxa_rethrow",
              "__cxa_init_primary_exception", "__cxa_throw_bad_array_new_length"},
    "catch": {"__cxa_begin_catch", "__cxa_end_catch", "__cxa_get_exception_ptr",
              "__cxa_current_exception_type", "__cxa_call_unexpected", "__cxa_call_terminate",
              "__clang_call_terminate"},
    "personality": {"__gxx_personality_v0", "__gxx_personality_sj0", "__gxx_personality_seh0"},
    "unwind": {"_Unwind_Resume", "_Unwind_RaiseException", "_Unwind_Resume_or_Rethrow",
               "_Unwind_DeleteException", "_Unwind_ForcedUnwind"},
    "dynamic_cast": {"__dynamic_cast", "__cxa_bad_cast", "__cxa_bad_typeid"},
}
PATTERNS = {
    "typeinfo": re.compile(r"^_ZTI"),                      # typeinfo for T
    "typeinfo-name": re.compile(r"^_ZTS"),                 # typeinfo name for T
    "typeinfo-vtable": re.compile(r"^_ZTVN10__cxxabiv1"),  # vtable for __cxxabiv1::__class_type_info etc.
    "std-throw-helper": re.compile(r"^_ZN?St.*__throw_"),  # std::__throw_length_error(char const*) etc.
}
DESCRIPTION = {
    "throw": "throws an exception (__cxa_throw & co.)",
    "catch": "catches an exception (__cxa_begin_catch & co.)",
    "personality": "C++ EH personality routine",
    "unwind": "unwinder entry point",
    "dynamic_cast": "dynamic_cast / typeid support",
    "typeinfo": "typeinfo object (_ZTI)",
    "typeinfo-name": "typeinfo name (_ZTS)",
    "typeinfo-vtable": "RTTI class vtable (_ZTVN10__cxxabiv1)",
    "std-throw-helper": "libstdc++ std::__throw_* helper",
}
CATEGORIES = list(DESCRIPTION)


def categorize(name):
    for cat, names in EXACT.items():
        if name in names:
            return cat
    for cat, pattern in PATTERNS.items():
        if pattern.search(name):
            return cat
    return None


def read_symbols(nm, exe, dynamic):
    cmd = [nm, "-D", exe] if dynamic else [nm, exe]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        print(f"error: cannot run {' '.join(cmd)}: {e}")
        sys.exit(2)
    if proc.returncode != 0:
        if dynamic and "no symbols" in proc.stderr:
            return []
        print(f"error: {' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
        sys.exit(2)
    symbols = []
    for line in proc.stdout.splitlines():
        fields = line.split()
        if len(fields) == 2:        # "U name": undefined, no address
            kind, name = fields
        elif len(fields) >= 3:      # "address kind name"
            kind, name = fields[1], fields[2]
        else:
            continue
        name = name.split("@")[0]   # drop symbol versions: __cxa_throw@CXXABI_1.3
        symbols.append((kind, name))
    return symbols


def demangle(names):
    cxxfilt = shutil.which("c++filt")
    if not cxxfilt or not names:
        return {n: n for n in names}
    out = subprocess.run([cxxfilt], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--expect-flagged", default=None,
                    help="comma-separated categories that must be flagged: " + ", ".join(CATEGORIES))
    ap.add_argument("exe")
    args = ap.parse_args()

    static_syms = read_symbols(args.nm, args.exe, dynamic=False)
    dynamic_syms = read_symbols(args.nm, args.exe, dynamic=True)

    if not any(name == "main" and kind in "Tt" for kind, name in static_syms):
        print(f"error: {args.exe}: no defined `main` in the symbol table "
              f"({len(static_syms)} symbols); stripped or unreadable, cannot vouch for it")
        return 2

    found = {}  # name -> (category, set of "static"/"dynamic", kind)
    for table, syms in (("symtab", static_syms), ("dynsym", dynamic_syms)):
        for kind, name in syms:
            cat = categorize(name)
            if cat:
                entry = found.setdefault(name, [cat, set(), kind])
                entry[1].add(table)

    print(f"{args.exe}: {len(static_syms)} symtab + {len(dynamic_syms)} dynsym symbols read")
    readable = demangle(sorted(found))
    by_cat = {}
    for name, (cat, tables, kind) in sorted(found.items(), key=lambda kv: (kv[1][0], kv[0])):
        by_cat.setdefault(cat, []).append(name)
        state = "undefined (referenced)" if kind in "Uwv" else f"defined ({kind})"
        print(f"  [{cat}] {readable[name]}  <{name}> {state} in {'+'.join(sorted(tables))}")

    if args.expect_flagged is not None:
        expected = [c for c in args.expect_flagged.split(",") if c]
        unknown = [c for c in expected if c not in CATEGORIES]
        if unknown or not expected:
            print(f"error: unknown categories {unknown}; known: {', '.join(CATEGORIES)}")
            return 2
        missing = [c for c in expected if c not in by_cat]
        for c in expected:
            print(f"{'flagged' if c in by_cat else 'NOT flagged'}: {c} ({DESCRIPTION[c]})")
        if missing:
            print(f"FAIL: the checker did not flag {', '.join(missing)} in an executable built to contain them")
            return 1
        print(f"OK: the checker flags {len(found)} EH/RTTI symbols in {args.exe}, as it must")
        return 0

    if found:
        print(f"FAIL: {len(found)} exception-handling / RTTI symbols in {args.exe} "
              f"({', '.join(f'{c}: {len(v)}' for c, v in by_cat.items())})")
        return 1
    print("OK: no exception-handling or RTTI symbol defined or referenced")
    return 0


if __name__ == "__main__":
    sys.exit(main())
