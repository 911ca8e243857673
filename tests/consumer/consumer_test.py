#!/usr/bin/env python3
"""Install dfxkit into a temporary prefix and use it from outside.

1. `meson setup` a fresh build dir of the dfxkit source tree with
   --prefix=<work>/prefix and every optional part off, then `meson install`.
   (A fresh build dir rather than the one running this test: installing the
   running build dir from inside `meson test` would rebuild or race with it.)
2. Check the installed tree: the header tree mirrors include/dfx/ exactly,
   lib/.../pkgconfig/dfxkit.pc and lib/.../cmake/dfxkit/dfxkitConfig.cmake +
   dfxkitConfigVersion.cmake exist, and pkg-config reports the right version,
   prefix and include dir.
3. Build and run tests/consumer/meson (dependency('dfxkit') via pkg-config)
   and tests/consumer/cmake (find_package(dfxkit) + dfxkit::dfxkit), checking
   each compiled against the installed headers, not the source tree.

Every step's command and output is printed; any failure exits non-zero.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path


class Failure(Exception):
    pass


def run(cmd, env, cwd=None, timeout=240):
    cmd = [str(c) for c in cmd]
    print(f"$ {shlex.join(cmd)}", flush=True)
    t0 = time.monotonic()
    proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout)
    out = proc.stdout.rstrip()
    if out:
        print("\n".join("    " + line for line in out.splitlines()))
    print(f"    -> exit {proc.returncode} in {time.monotonic() - t0:.1f} s", flush=True)
    if proc.returncode != 0:
        raise Failure(f"command failed ({proc.returncode}): {shlex.join(cmd)}")
    return out


def expect(ok, what):
    print(f"{'ok  ' if ok else 'FAIL'} {what}", flush=True)
    if not ok:
        raise Failure(what)


def uses_include_dir(compile_commands: Path, source_name: str, include_dir: Path) -> bool:
    """True when the compile command of `source_name` has include_dir via -I/-isystem."""
    for entry in json.loads(compile_commands.read_text()):
        if not entry["file"].endswith(source_name):
            continue
        args = entry.get("arguments") or shlex.split(entry["command"])
        cwd = Path(entry.get("directory", "."))
        dirs = []
        for i, a in enumerate(args):
            for flag in ("-I", "-isystem"):
                if a == flag and i + 1 < len(args):
                    dirs.append(args[i + 1])
                elif a.startswith(flag) and len(a) > len(flag):
                    dirs.append(a[len(flag):])
        resolved = {(cwd / d).resolve() for d in dirs}
        return include_dir.resolve() in resolved
    raise Failure(f"{source_name} not found in {compile_commands}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-root", type=Path, required=True)
    ap.add_argument("--consumer-dir", type=Path, required=True, help="tests/consumer")
    ap.add_argument("--work-dir", type=Path, required=True, help="wiped and recreated")
    ap.add_argument("--version", required=True, help="dfxkit's project version")
    ap.add_argument("--meson", default=shutil.which("meson") or "")
    ap.add_argument("--cmake", default=shutil.which("cmake") or "")
    ap.add_argument("--pkg-config", default=shutil.which("pkg-config") or "")
    ap.add_argument("--cxx", default=None, help="the C++ compiler command of the outer build")
    args = ap.parse_args()

    missing = [name for name, path in (("meson", args.meson), ("cmake", args.cmake),
                                       ("pkg-config", args.pkg_config)) if not path]
    if missing:
        print(f"SKIP: {', '.join(missing)} not found")
        return 77  # Meson's "skipped"

    t_start = time.monotonic()
    src = args.source_root.resolve()
    work = args.work_dir.resolve()
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    prefix = work / "prefix"

    env = dict(os.environ)
    # A clean slate: nothing from the caller's environment may satisfy the lookups.
    for var in ("PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH", "dfxkit_DIR", "DESTDIR", "CXXFLAGS", "CPPFLAGS", "LDFLAGS"):
        env.pop(var, None)
    cxx = shlex.split(args.cxx) if args.cxx else []
    launcher = []
    if cxx and Path(cxx[0]).name in ("ccache", "sccache"):
        launcher, cxx = cxx[:1], cxx[1:]
    if cxx:
        env["CXX"] = shlex.join(launcher + cxx)
    print(f"dfxkit {args.version} from {src}; work dir {work}; CXX={env.get('CXX', '(default)')}")

    # 1. Install into the temporary prefix from a fresh, minimal build dir.
    print("\n== install dfxkit into a temporary prefix")
    build = work / "dfxkit-build"
    run([args.meson, "setup", build, src, f"--prefix={prefix}", "-Dtests=false", "-Dexamples=false",
         "-Dtools=false", "-Dbenchmarks=false", "-Dsanitizers=none", "--wrap-mode=nodownload"], env)
    run([args.meson, "install", "-C", build, "--quiet"], env)

    # 2. The installed tree.
    print("\n== installed tree")
    src_headers = sorted(p.relative_to(src / "include").as_posix()
                         for p in (src / "include" / "dfx").rglob("*") if p.is_file())
    inst_headers = sorted(p.relative_to(prefix / "include").as_posix()
                          for p in (prefix / "include" / "dfx").rglob("*") if p.is_file())
    expect(len(src_headers) > 0 and inst_headers == src_headers,
           f"include/dfx/ installed with its paths: {len(inst_headers)} files, same tree as the source "
           f"(missing {sorted(set(src_headers) - set(inst_headers))}, extra {sorted(set(inst_headers) - set(src_headers))})")
    expect(all((prefix / "include" / h).read_bytes() == (src / "include" / h).read_bytes() for h in src_headers),
           "installed headers are byte-identical to the source")

    pcs = sorted(prefix.glob("lib*/**/pkgconfig/dfxkit.pc"))
    expect(len(pcs) == 1, f"one dfxkit.pc under lib*/.../pkgconfig: {[str(p.relative_to(prefix)) for p in pcs]}")
    pc = pcs[0]
    libdir = pc.parent.parent
    cmake_dir = libdir / "cmake" / "dfxkit"
    for name in ("dfxkitConfig.cmake", "dfxkitConfigVersion.cmake"):
        expect((cmake_dir / name).is_file(), f"{(cmake_dir / name).relative_to(prefix)} installed")
    for f in (pc, cmake_dir / "dfxkitConfig.cmake", cmake_dir / "dfxkitConfigVersion.cmake"):
        code = [line for line in f.read_text().splitlines() if not line.lstrip().startswith("#")]
        leftover = sorted({m for line in code for m in re.findall(r"@[A-Za-z_][A-Za-z0-9_]*@", line)})
        expect(not leftover, f"{f.name}: no unsubstituted @VARS@ outside comments {leftover or ''}".rstrip())
    print("installed files:")
    for p in sorted(prefix.rglob("*")):
        if p.is_file() and "include/dfx/" not in p.as_posix():
            print(f"    {p.relative_to(prefix)}")

    env["PKG_CONFIG_PATH"] = str(pc.parent)
    got_version = run([args.pkg_config, "--modversion", "dfxkit"], env)
    expect(got_version == args.version, f"pkg-config --modversion dfxkit = {got_version} (expected {args.version})")
    got_prefix = run([args.pkg_config, "--variable=prefix", "dfxkit"], env)
    expect(Path(got_prefix) == prefix, f"pkg-config prefix = {got_prefix}")
    cflags = shlex.split(run([args.pkg_config, "--cflags", "dfxkit"], env))
    expect(f"-I{prefix / 'include'}" in cflags, f"pkg-config --cflags has -I{prefix / 'include'}")

    # 3a. Meson consumer through pkg-config.
    print("\n== Meson consumer: dependency('dfxkit') via pkg-config")
    mbuild = work / "meson-consumer"
    run([args.meson, "setup", mbuild, args.consumer_dir / "meson", "--wrap-mode=nodownload"], env)
    run([args.meson, "compile", "-C", mbuild], env)
    expect(uses_include_dir(mbuild / "compile_commands.json", "consumer.cpp", prefix / "include"),
           "Meson consumer compiled against <prefix>/include")
    out = run([mbuild / "dfxkit-consumer"], env)
    expect(f"dfxkit {args.version} via meson" in out and "consumer OK" in out,
           "Meson consumer ran, reported the installed version and passed its checks")

    # 3b. CMake consumer through find_package.
    print("\n== CMake consumer: find_package(dfxkit) + dfxkit::dfxkit")
    cbuild = work / "cmake-consumer"
    cmake_cmd = [args.cmake, "-S", args.consumer_dir / "cmake", "-B", cbuild,
                 f"-DCMAKE_PREFIX_PATH={prefix}",
                 f"-DDFXKIT_EXPECTED_VERSION={args.version}",
                 "-DCMAKE_BUILD_TYPE=Release",
                 "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
                 "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF",
                 "-DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF"]
    if shutil.which("ninja"):
        cmake_cmd += ["-G", "Ninja"]
    if cxx:
        cmake_cmd.append(f"-DCMAKE_CXX_COMPILER={shutil.which(cxx[0]) or cxx[0]}")
        if launcher:
            cmake_cmd.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={launcher[0]}")
    cmake_out = run(cmake_cmd, env)
    expect("refused, as SameMajorVersion requires" in cmake_out,
           "dfxkitConfigVersion.cmake refuses the next major version")
    cache = (cbuild / "CMakeCache.txt").read_text()
    dfxkit_dir = next((line.split("=", 1)[1] for line in cache.splitlines() if line.startswith("dfxkit_DIR:")), "")
    expect(Path(dfxkit_dir).resolve() == cmake_dir.resolve(), f"CMake found dfxkit in the prefix: dfxkit_DIR={dfxkit_dir}")
    run([args.cmake, "--build", cbuild], env)
    expect(uses_include_dir(cbuild / "compile_commands.json", "consumer.cpp", prefix / "include"),
           "CMake consumer compiled against <prefix>/include")
    ccmds = json.loads((cbuild / "compile_commands.json").read_text())
    expect(any("-std=c++20" in e["command"] or "-std=gnu++20" in e["command"] for e in ccmds),
           "C++20 came from dfxkit::dfxkit's INTERFACE_COMPILE_FEATURES")
    out = run([cbuild / "dfxkit-consumer"], env)
    expect(f"dfxkit {args.version} via cmake" in out and "consumer OK" in out,
           "CMake consumer ran, reported the installed version and passed its checks")

    print(f"\nconsumer: all checks passed in {time.monotonic() - t_start:.1f} s")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as e:
        print(f"\nFAILED: {e}")
        sys.exit(1)
    except subprocess.TimeoutExpired as e:
        print(f"\nFAILED: timed out: {e}")
        sys.exit(1)
