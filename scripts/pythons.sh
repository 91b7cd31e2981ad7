#!/usr/bin/env bash
# Builds markup and runs the whole pytest suite on every CPython 3.9-3.13
# under pyenv and on Debian's 3.14 and 3.15 (scripts/debian-python.sh), one
# after the other (the machine is small), then prints one line per version.
# Exits non-zero if any version fails or none is found.
#
#   scripts/pythons.sh [VERSION...]   # default: every 3.9-3.13 under $PYENV_ROOT, 3.14, 3.15
#   scripts/pythons.sh --build-only VERSION...   # set up and build, no tests
#
# A pyenv version gets its own virtualenv (build/pythons/<ver>/venv) and
# CMake build dir (build/pythons/<ver>/build); a Debian version its
# unpacked interpreter, in a cache outside the repository that is reused
# while its inputs are unchanged ($MARKUP_PYTHONS_CACHE, by default
# ~/.cache/markup/pythons/<ver>), and a build dir. Logs are in
# build/pythons/<ver>.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
out=$root/build/pythons
debian_versions=(3.14 3.15)
cache=${MARKUP_PYTHONS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/markup/pythons}

build_only=0
if [ "${1:-}" = --build-only ]; then
  build_only=1
  shift
fi
versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  for dir in "$pyenv_root"/versions/3.*; do
    ver=${dir##*/}
    [[ $ver =~ ^3\.(9|1[0-3])\.[0-9]+$ ]] && [ -x "$dir/bin/python3" ] && versions+=("$ver")
  done
  versions+=("${debian_versions[@]}")
fi
if [ ${#versions[@]} -eq 0 ]; then
  echo "pythons: no CPython 3.9-3.13 under $pyenv_root/versions" >&2
  exit 1
fi
# Oldest first, so a failure on 3.9 shows before the newer ones run.
mapfile -t versions < <(printf '%s\n' "${versions[@]}" | sort -V)

# "<passed> <failed> <skipped>" from a junit XML report (errors count as
# failed, xfails as skipped).
junit_counts() {  # python junit.xml
  "$1" - "$2" <<'EOF'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    print("0 0 0"); sys.exit()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
total = sum(int(s.get("tests", 0)) for s in suites)
failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
skipped = sum(int(s.get("skipped", 0)) for s in suites)
print(total - failed - skipped, failed, skipped)
EOF
}

setup_venv() {  # python venv
  if [ ! -x "$2/bin/python" ]; then
    "$1" -m venv "$2" && "$2/bin/python" -m pip install -q --upgrade pip || return
  fi
  "$2/bin/python" -m pip install -q -r requirements-dev.txt
}

# No build isolation: the venv already has scikit-build-core, cmake and
# ninja, and a build dir per version keeps rebuilds incremental.
build_markup() {  # venv build-dir
  "$1/bin/python" -m pip install -q --no-build-isolation --force-reinstall --no-deps \
    -Cbuild-dir="$2" .
}

# A Debian CPython (unpacked, run through its own loader): markup built
# with CMake against its headers, the tests from PYTHONPATH, and the same
# command for the Pythons the tests start (MARKUP_TEST_PYTHON).
setup_debian() {  # version
  bash scripts/debian-python.sh "$1" "$cache/$1"
}

build_debian() {  # version dir
  local py=$cache/$1
  cmake -S . -B "$2/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMARKUP_BUILD_PYTHON=ON \
    -DMARKUP_BUILD_TESTS=OFF -DMARKUP_WERROR=ON -DPython_EXECUTABLE="$py/python" \
    -DPython_INCLUDE_DIR="$py/root/usr/include/python$1" \
    "-DCMAKE_C_FLAGS=-idirafter $py/root/usr/include" &&
    cmake --build "$2/build" -j 2
}

results=()
status=0
for ver in "${versions[@]}"; do
  dir=$out/$ver
  mkdir -p "$dir"
  log=$dir/log.txt
  start=$SECONDS
  passed=0 failed=0 skipped=0 rc=1
  if [[ " ${debian_versions[*]} " == *" $ver "* ]]; then
    echo "== Python $ver (Debian sid): interpreter, build, pytest (log: ${log#$root/})"
    python=$cache/$ver/python
    if ! setup_debian "$ver" >"$log" 2>&1; then
      step="setup"
    elif ! build_debian "$ver" "$dir" >>"$log" 2>&1; then
      step="build"
    elif [ $build_only -eq 1 ]; then
      step="built" rc=0
    else
      step="pytest"
      rm -f "$dir/junit.xml"
      PYTHONPATH="$dir/build/python:$cache/$ver/site" MARKUP_TEST_PYTHON="$python" \
        "$python" -m pytest -q -p no:cacheprovider --junitxml="$dir/junit.xml" tests/python \
        >>"$log" 2>&1
      rc=$?
    fi
  else
    echo "== Python $ver: virtualenv, dependencies, build, pytest (log: ${log#$root/})"
    venv=$dir/venv
    python=$venv/bin/python
    if ! setup_venv "$pyenv_root/versions/$ver/bin/python3" "$venv" >"$log" 2>&1; then
      step="setup"
    elif ! build_markup "$venv" "$dir/build" >>"$log" 2>&1; then
      step="build"
    elif [ $build_only -eq 1 ]; then
      step="built" rc=0
    else
      step="pytest"
      rm -f "$dir/junit.xml"
      "$python" -m pytest -q -p no:cacheprovider --junitxml="$dir/junit.xml" >>"$log" 2>&1
      rc=$?
    fi
  fi
  if [ "$step" = pytest ]; then
    read -r passed failed skipped < <(junit_counts "$python" "$dir/junit.xml")
    if [ $rc -ne 0 ] && [ "$failed" -eq 0 ]; then
      failed=1  # pytest failed without a failing test (collection, usage)
    fi
  fi
  elapsed=$((SECONDS - start))
  if [ $rc -eq 0 ]; then
    verdict=PASS
  else
    verdict="FAIL"
    [ "$step" = pytest ] || verdict="FAIL ($step failed)"
    # Killed by a signal: no report was written, the counts are unknown.
    [ "$step" = pytest ] && [ $rc -gt 128 ] && verdict="FAIL (pytest died of signal $((rc - 128)))"
    status=1
    tail -n 30 "$log" | sed "s/^/  [$ver] /"
  fi
  line=$(printf 'Python %-8s %4d passed %3d failed %3d skipped %4ds  %s' \
         "$ver" "$passed" "$failed" "$skipped" "$elapsed" "$verdict")
  echo "$line"
  results+=("$line")
done

echo
echo "== pythons: one line per version"
printf '%s\n' "${results[@]}"
exit $status
