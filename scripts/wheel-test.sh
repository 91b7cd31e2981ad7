#!/usr/bin/env bash
# Tests the wheels in dist/ as a user gets them, where the system's utf8proc
# cannot be found (scripts/without-utf8proc.sh): for each wheel, a fresh
# virtualenv of the matching pyenv CPython, the wheel installed from the
# file, a page rendered from outside the source tree, then the whole pytest
# suite against the installed wheel (tests/python/conftest.py checks where
# markup came from). Prints one line per wheel; exits non-zero if any fails.
#
#   scripts/wheel-test.sh [WHEEL...]   # default: every dist/markup_html-*.whl
#
# Logs and virtualenvs are in build/wheel-test/<version>.
set -uo pipefail
if [ "${MARKUP_WITHOUT_UTF8PROC:-}" != 1 ]; then
  script=$(realpath "$0")
  args=()
  for arg in "$@"; do args+=("$(realpath "$arg")"); done
  exec bash "$(dirname "$script")/without-utf8proc.sh" bash "$script" ${args[@]+"${args[@]}"}
fi
cd "$(dirname "$0")/.."
root=$PWD
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
version=$(cat VERSION)

wheels=("$@")
if [ ${#wheels[@]} -eq 0 ]; then
  wheels=(dist/markup_html-"$version"-*.whl)
fi
if [ ! -f "${wheels[0]}" ]; then
  echo "wheel-test: no wheel of $version in dist/ (make wheels)" >&2
  exit 1
fi

# The check that makes the rest mean something: utf8proc is really gone.
# (without-utf8proc.sh checked each file it hid; this checks the loader.)
# Other architectures' copies (make cross-check installs them) stay.
multiarch=$(gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")
if python3 -c 'import ctypes; ctypes.CDLL("libutf8proc.so.2")' 2>/dev/null ||
   compgen -G "/usr/lib/$multiarch/libutf8proc.so*" >/dev/null ||
   compgen -G "/lib/$multiarch/libutf8proc.so*" >/dev/null ||
   compgen -G "/usr/lib/libutf8proc.so*" >/dev/null; then
  echo "wheel-test: utf8proc is still there; the wheels would not be tested without it" >&2
  exit 1
fi

# The pyenv CPython a wheel is for: cp311 -> .../versions/3.11.x/bin/python3.
python_for_wheel() {  # wheel
  local tag interpreters
  tag=$(basename "$1" | cut -d- -f3)
  interpreters=("$pyenv_root"/versions/3."${tag#cp3}".*/bin/python3)
  echo "${interpreters[-1]}"
}

# One wheel: its virtualenv, the smoke test and the suite; the summary line
# goes to stdout and to $dir/result.txt, the exit status is the verdict.
test_wheel() {  # wheel
  local wheel python ver dir venv log start
  local passed=0 failed=0 skipped=0 rc=1 step=setup verdict line
  wheel=$(realpath "$1")
  start=$SECONDS
  python=$(python_for_wheel "$wheel")
  ver=$(basename "$(dirname "$(dirname "$python")")")
  dir=$root/build/wheel-test/$ver
  venv=$dir/venv
  log=$dir/log.txt
  mkdir -p "$dir"
  rm -f "$dir/result.txt"
  echo "== ${wheel#$root/} on Python $ver (log: ${log#$root/})"
  rm -rf "$venv"
  if [ ! -x "$python" ]; then
    echo "no CPython for $(basename "$wheel") under $pyenv_root/versions" >"$log"
  elif "$python" -m venv "$venv" >"$log" 2>&1 &&
       "$venv/bin/python" -m pip install -q --no-index --no-deps "$wheel" >>"$log" 2>&1; then
    step=smoke
    # From outside the source tree, with nothing but the wheel installed.
    if (cd "$dir" && "$venv/bin/python" "$root/scripts/smoke_test.py" "$venv" "$version") \
         >>"$log" 2>&1; then
      step=pytest
      # The test requirements, then the suite from the source tree's
      # tests against the installed wheel.
      if "$venv/bin/python" -m pip install -q -r requirements-dev.txt >>"$log" 2>&1; then
        rm -f "$dir/junit.xml"
        MARKUP_TEST_INSTALLED_IN="$venv" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
          --junitxml="$dir/junit.xml" tests/python >>"$log" 2>&1
        rc=$?
        read -r passed failed skipped < <("$venv/bin/python" scripts/junit_counts.py "$dir/junit.xml")
        if [ $rc -ne 0 ] && [ "$failed" -eq 0 ]; then
          failed=1  # pytest failed without a failing test (collection, usage)
        fi
      else
        step="test requirements"
      fi
    fi
  fi
  if [ $rc -eq 0 ]; then
    verdict=PASS
  else
    verdict="FAIL ($step)"
    tail -n 30 "$log" | sed "s/^/  [$ver] /"
  fi
  line=$(printf 'Python %-8s %4d passed %3d failed %3d skipped %4ds  %s  %s' "$ver" \
         "$passed" "$failed" "$skipped" "$((SECONDS - start))" "$(basename "$wheel")" "$verdict")
  echo "$line"
  echo "$line" >"$dir/result.txt"
  [ $rc -eq 0 ]
}

# Two wheels at a time (MARKUP_WHEEL_TEST_JOBS): each suite runs on one
# core, and the machine has two.
jobs=${MARKUP_WHEEL_TEST_JOBS:-2}
status=0
running=0
for wheel in "${wheels[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  test_wheel "$wheel" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
results=()
for wheel in "${wheels[@]}"; do
  ver=$(basename "$(dirname "$(dirname "$(python_for_wheel "$wheel")")")")
  results+=("$(cat "$root/build/wheel-test/$ver/result.txt" 2>/dev/null || echo "Python $ver: no result")")
done

echo
echo "== wheel-test: one line per wheel (utf8proc hidden)"
printf '%s\n' "${results[@]}"
exit $status
