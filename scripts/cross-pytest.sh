#!/usr/bin/env bash
# The Python suite on other CPUs under qemu-user (`make cross-pytest`): for
# each target, Debian's CPython 3.11 for that CPU (scripts/cross-python.sh)
# and the extension cross-built against it, one target after the other;
# then the suites, all at once (each runs on one core under qemu). Prints
# each suite's summary; exits non-zero if any fails.
#
#   scripts/cross-pytest.sh CMAKE JOBS TRIPLE...
#
# Logs are in build/cross-pytest/<triple>.log. MARKUP_CROSS_PYTEST_PHASE=
# build sets up and builds only, =run runs the suites of an earlier build
# (so that CI can run them beside other steps); unset, both.
set -euo pipefail
cmake=$1 jobs=$2
shift 2
phase=${MARKUP_CROSS_PYTEST_PHASE:-all}
cd "$(dirname "$0")/.."
source scripts/emulated-suite.sh
build=$PWD/build
mkdir -p "$build/cross-pytest"

for t in "$@"; do
  [ "$phase" != run ] || break
  py=$build/cross-python-$t
  bash scripts/cross-python.sh "$t" "$py"
  "$cmake" -S . -B "$build/cross-py-$t" -DCMAKE_TOOLCHAIN_FILE="cmake/toolchains/$t.cmake" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMARKUP_BUILD_PYTHON=ON -DMARKUP_BUILD_TESTS=OFF \
    -DMARKUP_WERROR=ON -DPython_EXECUTABLE="$py/python" \
    -DPython_INCLUDE_DIR="$py/root/usr/include/python3.11" \
    "-DCMAKE_C_FLAGS=-idirafter $py/root/usr/include"
  "$cmake" --build "$build/cross-py-$t" -j "$jobs"
done

[ "$phase" != build ] || exit 0

declare -A pids
for t in "$@"; do
  py=$build/cross-python-$t
  echo "== pytest on $t (log: build/cross-pytest/$t.log)"
  env PYTHONPATH="$build/cross-py-$t/python:$py/site" MARKUP_TEST_PYTHON="$py/python" \
    "${emulated_env[@]}" "$py/python" -m pytest -q -p no:cacheprovider tests/python \
    "${emulated_pytest_args[@]}" \
    >"$build/cross-pytest/$t.log" 2>&1 &
  pids[$t]=$!
done
status=0
for t in "$@"; do
  if wait "${pids[$t]}"; then verdict=PASS; else verdict=FAIL; status=1; fi
  echo "== $t: $verdict"
  if [ $verdict = PASS ]; then
    tail -n 3 "$build/cross-pytest/$t.log"
  else
    tail -n 60 "$build/cross-pytest/$t.log"
  fi
done
exit $status
