#!/usr/bin/env bash
# Builds markup and runs the whole pytest suite on Debian's CPython 3.14 and
# 3.15 (scripts/debian-python.sh), one after the other, then prints one
# line per version. 3.9-3.13 are tested as wheels instead (make wheel-test).
# Exits non-zero if any version fails.
#
#   scripts/pythons.sh [VERSION...]   # default: 3.14 3.15
#   scripts/pythons.sh --build-only VERSION...   # set up and build, no tests
#
# A version gets its unpacked interpreter, in a cache outside the
# repository that is reused while its inputs are unchanged
# ($MARKUP_PYTHONS_CACHE, by default ~/.cache/markup/pythons/<ver>), and a
# CMake build dir (build/pythons/<ver>/build). Logs are in
# build/pythons/<ver>.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
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
  versions=("${debian_versions[@]}")
fi
for ver in "${versions[@]}"; do
  if [[ " ${debian_versions[*]} " != *" $ver "* ]]; then
    echo "pythons: $ver is not one of Debian's (${debian_versions[*]}); 3.9-3.13 are tested as wheels (make wheel-test)" >&2
    exit 2
  fi
done
# Oldest first.
mapfile -t versions < <(printf '%s\n' "${versions[@]}" | sort -V)

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
  if [ "$step" = pytest ]; then
    read -r passed failed skipped < <("$python" scripts/junit_counts.py "$dir/junit.xml")
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
