#!/usr/bin/env bash
# Shared set-up for the entry points: make sure the Debian packages dfxkit
# builds with are installed, then configure a Meson build directory.
#
#   source scripts/setup.sh
#   dfx_install_packages            # apt-get as root, else print the line and fail
#   dfx_install_packages "${DFX_TEST_PACKAGES[@]}"   # the same, plus what only the tests use
#   dfx_configure BUILD_DIR [meson setup options...]   # warnings are errors (-Dwerror=true)
set -euo pipefail

DFX_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Everything the build, the tests, the examples and the benchmarks need.
DFX_PACKAGES=(
  meson ninja-build pkg-config cmake python3 binutils
  g++ clang libclang-rt-14-dev
  libboost1.81-dev libsimdjson-dev doctest-dev libfmt-dev libcli11-dev libbenchmark-dev
  graphviz valgrind
)

# What only the tests use, on top of DFX_PACKAGES: headless Chromium loads the
# HTML pages dfx writes, strace kills a run at each of its syscalls
# (tests/session/crash_consistency_test.py), oneTBB runs examples/tbb_flow_graph,
# protoc cross-checks the Perfetto traces (tests/convert_swimlane/perfetto_equivalence.py);
# those tests skip without them. scripts/test.sh passes this list to
# dfx_install_packages; the demo and the benchmarks do not.
DFX_TEST_PACKAGES=(
  chromium
  strace
  libtbb-dev
  protobuf-compiler
)

dfx_missing_packages() {  # [extra package...]: DFX_PACKAGES and these
  local missing=()
  for p in "${DFX_PACKAGES[@]}" "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$p")
    fi
  done
  echo "${missing[@]:-}"
}

dfx_install_packages() {  # [extra package...]
  local missing
  missing="$(dfx_missing_packages "$@")"
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "dfxkit needs these Debian packages: $missing" >&2
    echo "Install them as root, then re-run:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends $missing" >&2
    exit 1
  fi
  echo "Installing Debian packages: $missing"
  apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# The project's own builds (CI, demo, benchmarks) keep warnings as errors;
# meson.build does not make werror a default, so a user's or a consumer's
# build does not stop on a new compiler's warning. Options given after it win.
dfx_configure() {
  local dir="$1"
  shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$DFX_ROOT" -Dwerror=true "$@" >/dev/null
  else
    meson setup "$dir" "$DFX_ROOT" -Dwerror=true "$@" >/dev/null
  fi
}
