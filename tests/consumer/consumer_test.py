#!/usr/bin/env python3
"""Use dfxkit from outside: installed (--part installed) or as a source tree
(--part source-tree).

--part installed:
1. `meson setup` a fresh build dir of the dfxkit source tree with
   --prefix=<work>/prefix and every optional part off, then `meson install`.
   (A fresh build dir rather than the one running this test: installing the
   running build dir from inside `meson test` would rebuild or race with it.)
2. Check the installed tree: the header tree mirrors include/dfx/ exactly,
   share/pkgconfig/dfxkit.pc + dfxkit-host.pc and share/cmake/dfxkit/
   dfxkitConfig.cmake + dfxkitConfigVersion.cmake exist, pkg-config reports
   the right version, prefix and include dir, dfxkit-host adds simdjson and
   {fmt}, and `pkg-config --define-prefix` of a copy of the prefix elsewhere
   gives that copy's include dir. Under -std=c++17 the headers stop with
   "dfxkit needs C++20" as the first error.
3. Build and run tests/consumer/meson (dependency('dfxkit') via pkg-config)
   and tests/consumer/cmake (find_package(dfxkit COMPONENTS host) +
   dfxkit::dfxkit), checking each compiled against the installed headers, not
   the source tree.

--part source-tree:
1. subprojects/ has a wrap providing each of simdjson, doctest, fmt, CLI11
   and benchmark; `meson setup --wrap-mode=nofallback` with every part
   enabled configures from the system packages alone, no subproject; the
   install list puts no example program into bin/.
2. The build dir's meson-uninstalled/dfxkit-uninstalled.pc serves the Meson
   consumer (compiled against <source>/include).
3. tests/consumer/subproject, copied into the work dir with
   subprojects/dfxkit linked to the source tree: configuring creates no
   dfxkit target (tests, tools, examples, benchmarks) until asked for one
   (-Ddfxkit:tools=enabled); the consumer builds and runs.
4. tests/consumer/cmake_subdir: add_subdirectory(<source>) + dfxkit::dfxkit
   from the root CMakeLists.txt, built and run.

Every step's command and output is printed; any failure exits non-zero.
"""
import argparse
import configparser
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


def run_status(cmd, env, cwd=None, timeout=240):
    """Like run(), but returns (exit status, output) instead of raising on failure."""
    cmd = [str(c) for c in cmd]
    print(f"$ {shlex.join(cmd)}", flush=True)
    proc = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout)
    out = proc.stdout.rstrip()
    lines = out.splitlines()
    shown = lines if len(lines) <= 20 else lines[:20] + [f"... ({len(lines) - 20} more lines)"]
    if shown:
        print("\n".join("    " + line for line in shown))
    print(f"    -> exit {proc.returncode}", flush=True)
    return proc.returncode, out


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


class Context:
    """What both parts share: the arguments, the clean environment, the compiler."""

    def __init__(self, args):
        self.args = args
        self.src = args.source_root.resolve()
        self.work = args.work_dir.resolve()
        env = dict(os.environ)
        # A clean slate: nothing from the caller's environment may satisfy the lookups.
        for var in ("PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH", "dfxkit_DIR", "DESTDIR", "CXXFLAGS", "CPPFLAGS", "LDFLAGS"):
            env.pop(var, None)
        cxx = shlex.split(args.cxx) if args.cxx else []
        self.launcher = []
        if cxx and Path(cxx[0]).name in ("ccache", "sccache"):
            self.launcher, cxx = cxx[:1], cxx[1:]
        if cxx:
            env["CXX"] = shlex.join(self.launcher + cxx)
        self.cxx = cxx or [shutil.which("c++") or "c++"]
        self.env = env

    def cmake_configure(self, source: Path, build: Path, *defines: str) -> str:
        cmd = [self.args.cmake, "-S", source, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
               "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", *defines]
        if shutil.which("ninja"):
            cmd += ["-G", "Ninja"]
        if self.cxx and self.args.cxx:
            cmd.append(f"-DCMAKE_CXX_COMPILER={shutil.which(self.cxx[0]) or self.cxx[0]}")
            if self.launcher:
                cmd.append(f"-DCMAKE_CXX_COMPILER_LAUNCHER={self.launcher[0]}")
        return run(cmd, self.env)


def meson_consumer(ctx: Context, build: Path, env, include_dir: Path, how: str):
    """Build and run tests/consumer/meson (dependency('dfxkit') via pkg-config) in `build`."""
    args = ctx.args
    run([args.meson, "setup", build, args.consumer_dir / "meson", "--wrap-mode=nodownload"], env)
    run([args.meson, "compile", "-C", build], env)
    expect(uses_include_dir(build / "compile_commands.json", "consumer.cpp", include_dir),
           f"Meson consumer compiled against {include_dir} ({how})")
    out = run([build / "dfxkit-consumer"], env)
    expect(f"dfxkit {args.version} via meson" in out and "consumer OK" in out,
           "Meson consumer ran, reported dfxkit's version and passed its checks")


def part_installed(ctx: Context):
    args, src, work, env = ctx.args, ctx.src, ctx.work, dict(ctx.env)
    prefix = work / "prefix"

    # 1. Install into the temporary prefix from a fresh, minimal build dir.
    print("\n== install dfxkit into a temporary prefix")
    build = work / "dfxkit-build"
    run([args.meson, "setup", build, src, f"--prefix={prefix}", "-Dtests=disabled", "-Dexamples=disabled",
         "-Dtools=disabled", "-Dbenchmarks=disabled", "-Dsanitizers=none", "--wrap-mode=nodownload"], env)
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

    # Header-only and arch-independent: share/, where --define-prefix can find the prefix.
    pc_dir = prefix / "share" / "pkgconfig"
    cmake_dir = prefix / "share" / "cmake" / "dfxkit"
    pcs = sorted(p.relative_to(prefix).as_posix() for p in prefix.rglob("*.pc"))
    expect(pcs == ["share/pkgconfig/dfxkit-host.pc", "share/pkgconfig/dfxkit.pc"],
           f"dfxkit.pc and dfxkit-host.pc in share/pkgconfig, no other .pc: {pcs}")
    for name in ("dfxkitConfig.cmake", "dfxkitConfigVersion.cmake"):
        expect((cmake_dir / name).is_file(), f"{(cmake_dir / name).relative_to(prefix)} installed")
    for f in (pc_dir / "dfxkit.pc", pc_dir / "dfxkit-host.pc", cmake_dir / "dfxkitConfig.cmake",
              cmake_dir / "dfxkitConfigVersion.cmake"):
        code = [line for line in f.read_text().splitlines() if not line.lstrip().startswith("#")]
        leftover = sorted({m for line in code for m in re.findall(r"@[A-Za-z_][A-Za-z0-9_]*@", line)})
        expect(not leftover, f"{f.name}: no unsubstituted @VARS@ outside comments {leftover or ''}".rstrip())
    print("installed files:")
    for p in sorted(prefix.rglob("*")):
        if p.is_file() and "include/dfx/" not in p.as_posix():
            print(f"    {p.relative_to(prefix)}")

    env["PKG_CONFIG_PATH"] = str(pc_dir)
    got_version = run([args.pkg_config, "--modversion", "dfxkit"], env)
    expect(got_version == args.version, f"pkg-config --modversion dfxkit = {got_version} (expected {args.version})")
    got_prefix = run([args.pkg_config, "--variable=prefix", "dfxkit"], env)
    expect(Path(got_prefix) == prefix, f"pkg-config prefix = {got_prefix}")
    cflags = shlex.split(run([args.pkg_config, "--cflags", "dfxkit"], env))
    expect(f"-I{prefix / 'include'}" in cflags, f"pkg-config --cflags has -I{prefix / 'include'}")
    host_libs = shlex.split(run([args.pkg_config, "--libs", "dfxkit-host"], env))
    expect("-lsimdjson" in host_libs and "-lfmt" in host_libs,
           "dfxkit-host brings the converters' libraries (-lsimdjson, -lfmt)")

    # A copy of the prefix somewhere else: --define-prefix derives the prefix from the .pc's place.
    moved = work / "moved-prefix"
    shutil.copytree(prefix, moved, symlinks=True)
    moved_env = dict(env, PKG_CONFIG_PATH=str(moved / "share" / "pkgconfig"))
    moved_cflags = shlex.split(run([args.pkg_config, "--define-prefix", "--cflags", "dfxkit"], moved_env))
    expect(f"-I{moved / 'include'}" in moved_cflags and f"-I{prefix / 'include'}" not in moved_cflags,
           f"pkg-config --define-prefix of a moved prefix gives -I{moved / 'include'}")

    # Older standard: one readable line first, not a page of template errors.
    status, out = run_status([*ctx.cxx, "-std=c++17", "-fsyntax-only", *cflags,
                              '-DDFX_CONSUMER_BUILD_SYSTEM="c++17"', '-DDFX_CONSUMER_DFXKIT_VERSION="0"',
                              args.consumer_dir / "consumer.cpp"], env)
    first_error = next((line for line in out.splitlines() if "error" in line), "")
    expect(status != 0 and "dfxkit needs C++20" in first_error,
           f"-std=c++17 fails, first error says dfxkit needs C++20: {first_error.strip()!r}")

    # 3a. Meson consumer through pkg-config.
    print("\n== Meson consumer: dependency('dfxkit') via pkg-config")
    meson_consumer(ctx, work / "meson-consumer", env, prefix / "include", "installed dfxkit.pc")

    # 3b. CMake consumer through find_package.
    print("\n== CMake consumer: find_package(dfxkit COMPONENTS host) + dfxkit::dfxkit")
    cbuild = work / "cmake-consumer"
    cmake_out = ctx.cmake_configure(args.consumer_dir / "cmake", cbuild,
                                    f"-DCMAKE_PREFIX_PATH={prefix}",
                                    f"-DDFXKIT_EXPECTED_VERSION={args.version}",
                                    "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF",
                                    "-DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF")
    expect("refused, as SameMajorVersion requires" in cmake_out,
           "dfxkitConfigVersion.cmake refuses the next major version")
    expect("dfxkit::host links dfxkit::dfxkit;simdjson::simdjson;fmt::fmt;CLI11::CLI11" in cmake_out,
           "COMPONENTS host gives dfxkit::host with simdjson, fmt and CLI11")
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


# What each wrap in subprojects/ must provide: the names meson.build asks dependency() for.
WRAP_PROVIDES = {"simdjson": "simdjson", "doctest": "doctest", "fmt": "fmt", "CLI11": "cli11",
                 "benchmark": "google-benchmark"}


def wrap_provides(wrap: Path) -> set:
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(wrap)
    names = set()
    if ini.has_section("provide"):
        for key, value in ini.items("provide"):
            if key == "dependency_names":
                names |= {n.strip().lower() for n in value.split(",")}
            elif key != "program_names":
                names.add(key.lower())
    return names


def dfxkit_targets(build: Path) -> list:
    targets = json.loads((build / "meson-info" / "intro-targets.json").read_text())
    return sorted(t["name"] for t in targets if t.get("subproject") == "dfxkit")


def part_source_tree(ctx: Context):
    args, src, work, env = ctx.args, ctx.src, ctx.work, ctx.env

    # 1. Fallback wraps, unused on a system that has the packages.
    print("\n== subprojects/: wraps as fallbacks only")
    for dep, wrap_name in WRAP_PROVIDES.items():
        wrap = src / "subprojects" / f"{wrap_name}.wrap"
        ok = wrap.is_file() and dep.lower() in wrap_provides(wrap)
        expect(ok, f"subprojects/{wrap_name}.wrap provides dependency '{dep}'")
        ini = configparser.ConfigParser(interpolation=None)
        ini.read(wrap)
        expect(all(ini.get("wrap-file", k, fallback="") for k in ("directory", "source_url", "source_filename",
                                                                   "source_hash")),
               f"{wrap_name}.wrap: [wrap-file] has directory, source_url, source_filename and source_hash")
    full = work / "nofallback"
    run([args.meson, "setup", full, src, "--wrap-mode=nofallback", "-Dtests=enabled", "-Dbenchmarks=enabled",
         "-Dexamples=enabled", "-Dtools=enabled", "-Dsanitizers=none"], env)
    projects = json.loads((full / "meson-info" / "intro-projectinfo.json").read_text())
    expect(projects.get("subprojects") == [], f"configured with system packages alone: subprojects {projects.get('subprojects')}")
    installed = json.loads((full / "meson-info" / "intro-installed.json").read_text())
    binaries = sorted(Path(dest).name for dest in installed.values() if "/bin/" in dest)
    expect(binaries == ["dfx"], f"meson install puts only the dfx tool into bin/, no example: {binaries}")

    # 2. The uninstalled pkg-config file of a build tree.
    print("\n== Meson consumer: dependency('dfxkit') via meson-uninstalled/dfxkit-uninstalled.pc")
    unenv = dict(env, PKG_CONFIG_PATH=str(full / "meson-uninstalled"))
    cflags = shlex.split(run([args.pkg_config, "--cflags", "dfxkit"], unenv))
    expect(f"-I{src / 'include'}" in cflags, f"dfxkit-uninstalled.pc gives -I{src / 'include'}")
    meson_consumer(ctx, work / "meson-uninstalled-consumer", unenv, src / "include", "dfxkit-uninstalled.pc")

    # 3. dfxkit as a Meson subproject.
    print("\n== Meson consumer: dfxkit as a subproject")
    proj = work / "subproject-consumer"
    (proj / "subprojects").mkdir(parents=True)
    shutil.copy(args.consumer_dir / "subproject" / "meson.build", proj / "meson.build")
    shutil.copy(args.consumer_dir / "consumer.cpp", proj / "consumer.cpp")
    (proj / "subprojects" / "dfxkit").symlink_to(src, target_is_directory=True)
    sbuild = proj / "build"
    run([args.meson, "setup", sbuild, proj, "--wrap-mode=nodownload"], env)
    targets = dfxkit_targets(sbuild)
    expect(targets == [], f"as a subproject dfxkit configures no target of its own: {len(targets)} {targets[:8]}")
    run([args.meson, "compile", "-C", sbuild], env)
    expect(uses_include_dir(sbuild / "compile_commands.json", "consumer.cpp", proj / "subprojects" / "dfxkit" / "include"),
           "subproject consumer compiled against the subproject's include/")
    out = run([sbuild / "dfxkit-consumer"], env)
    expect(f"dfxkit {args.version} via meson subproject" in out and "consumer OK" in out,
           "subproject consumer ran, reported dfxkit's version and passed its checks")
    run([args.meson, "setup", "--reconfigure", sbuild, proj, "-Ddfxkit:tools=enabled"], env)
    targets = dfxkit_targets(sbuild)
    expect(targets == ["dfx"], f"asked for (-Ddfxkit:tools=enabled), the subproject configures the dfx tool: {targets}")

    # 4. The root CMakeLists.txt through add_subdirectory.
    print("\n== CMake consumer: add_subdirectory(dfxkit) + dfxkit::dfxkit")
    cbuild = work / "cmake-subdir-consumer"
    ctx.cmake_configure(args.consumer_dir / "cmake_subdir", cbuild, f"-DDFXKIT_SOURCE_DIR={src}",
                        f"-DDFXKIT_EXPECTED_VERSION={args.version}")
    run([args.cmake, "--build", cbuild], env)
    expect(uses_include_dir(cbuild / "compile_commands.json", "consumer.cpp", src / "include"),
           "add_subdirectory consumer compiled against <source>/include")
    out = run([cbuild / "dfxkit-consumer"], env)
    expect(f"dfxkit {args.version} via cmake add_subdirectory" in out and "consumer OK" in out,
           "add_subdirectory consumer ran, reported dfxkit's version and passed its checks")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=["installed", "source-tree"], required=True)
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
    ctx = Context(args)
    if ctx.work.exists():
        shutil.rmtree(ctx.work)
    ctx.work.mkdir(parents=True)
    # Every command runs in the part's own work dir: `cmake --system-information`
    # (Meson's cmake module and cmake dependencies call it) makes a scratch dir
    # in its working directory, which the two parts would share and race on.
    args.consumer_dir = args.consumer_dir.resolve()
    os.chdir(ctx.work)
    print(f"dfxkit {args.version} from {ctx.src}, part {args.part}; work dir {ctx.work}; "
          f"CXX={ctx.env.get('CXX', '(default)')}")
    if args.part == "installed":
        part_installed(ctx)
    else:
        part_source_tree(ctx)
    print(f"\nconsumer ({args.part}): all checks passed in {time.monotonic() - t_start:.1f} s")
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
