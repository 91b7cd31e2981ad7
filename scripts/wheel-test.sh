#!/usr/bin/env bash
# Tests the wheels in dist/ as a user gets them, where the system's utf8proc
# cannot be found (scripts/without-utf8proc.sh): each wheel installed from
# the file for its CPython (scripts/python-for.sh): into a fresh virtualenv
# of pyenv's 3.9-3.13, or into a site folder of Debian's 3.14 and newer and
# of the aarch64 CPythons run under qemu-user (the same method `make
# pythons` uses); a page rendered from outside the source tree; then,
# for the wheels MARKUP_WHEEL_SUITE names, the pytest suite against the
# installed wheel (tests/python/conftest.py checks where markup came from),
# under qemu with the settings of scripts/emulated-suite.sh. Prints one
# line per wheel; exits non-zero if any fails.
#
#   MARKUP_WHEEL_SUITE="3.13-x86_64 3.11-aarch64" scripts/wheel-test.sh [WHEEL...]
#   # default: every dist/markup_html-*.whl; MARKUP_WHEEL_SUITE=all (the default) runs the suite on each
#
# Logs and virtualenvs are in build/wheel-test/<version>-<arch>.
set -uo pipefail
if [ "${MARKUP_WITHOUT_UTF8PROC:-}" != 1 ]; then
  script=$(realpath "$0")
  args=()
  for arg in "$@"; do args+=("$(realpath "$arg")"); done
  exec bash "$(dirname "$script")/without-utf8proc.sh" bash "$script" ${args[@]+"${args[@]}"}
fi
cd "$(dirname "$0")/.."
root=$PWD
version=$(cat VERSION)

wheels=("$@")
if [ ${#wheels[@]} -eq 0 ]; then
  wheels=(dist/markup_html-"$version"-*.whl)
fi
if [ ! -f "${wheels[0]}" ]; then
  echo "wheel-test: no wheel of $version in dist/ (make wheels)" >&2
  exit 1
fi

# The check that makes the rest mean something: utf8proc is really gone,
# for every architecture. (without-utf8proc.sh checked each file it hid;
# this checks the loader and the multiarch folders.)
if python3 -c 'import ctypes; ctypes.CDLL("libutf8proc.so.2")' 2>/dev/null ||
   compgen -G "/usr/lib/*-linux-gnu*/libutf8proc.so*" >/dev/null ||
   compgen -G "/lib/*-linux-gnu*/libutf8proc.so*" >/dev/null ||
   compgen -G "/usr/lib/libutf8proc.so*" >/dev/null; then
  echo "wheel-test: utf8proc is still there; the wheels would not be tested without it" >&2
  exit 1
fi

source scripts/emulated-suite.sh
suite=${MARKUP_WHEEL_SUITE:-all}

# What a wheel is for, from its name: "3.11 aarch64 manylinux_2_17_aarch64"
# for markup_html-V-cp311-cp311-manylinux2014_aarch64.manylinux_2_17_aarch64.whl.
wheel_target() {  # wheel
  local name tag platform
  name=$(basename "$1" .whl)
  tag=$(cut -d- -f3 <<<"$name")
  platform=${name##*.}
  echo "3.${tag#cp3} ${platform#*linux_2_*_} $platform"
}

# One wheel: its environment, the smoke test and perhaps the suite; the
# summary line goes to stdout and to $dir/result.txt, the exit status is
# the verdict.
test_wheel() {  # wheel
  local wheel ver arch platform python pyroot pysite dir venv site log start
  local passed=0 failed=0 skipped=0 rc=1 step=setup verdict line
  local run=() smoke=() emulated=()
  wheel=$(realpath "$1")
  start=$SECONDS
  read -r ver arch platform < <(wheel_target "$wheel")
  dir=$root/build/wheel-test/$ver-$arch
  log=$dir/log.txt
  mkdir -p "$dir"
  rm -f "$dir/result.txt"
  echo "== ${wheel#$root/} on Python $ver $arch (log: ${log#$root/})"
  if ! read -r python pyroot pysite < <(bash scripts/python-for.sh "$ver" "$arch" 2>"$log"); then
    echo "no CPython $ver for $arch (scripts/python-for.sh)" >>"$log"
  elif [ "$pysite" = - ]; then
    # pyenv's: a fresh virtualenv, the wheel, then the test requirements.
    venv=$dir/venv
    rm -rf "$venv"
    if "$python" -m venv "$venv" >>"$log" 2>&1 &&
       "$venv/bin/python" -m pip install -q --no-index --no-deps "$wheel" >>"$log" 2>&1; then
      step=smoke
      site=$venv smoke=("$venv/bin/python") run=(env MARKUP_TEST_INSTALLED_IN="$venv" "$venv/bin/python")
    fi
  else
    # Debian's (run through its loader, or under qemu): the wheel into a
    # site folder by pip's own platform check, the test requirements beside.
    site=$dir/site
    rm -rf "$site"
    if "$root/.venv/bin/python" -m pip install -q --no-deps --no-index --target "$site" \
         --only-binary=:all: --implementation cp --python-version "$ver" --platform "$platform" \
         "$wheel" >>"$log" 2>&1; then
      step=smoke
      smoke=(env PYTHONPATH="$site" "$python")
      [ "$arch" != x86_64 ] && emulated=("${emulated_env[@]}")
      run=(env PYTHONPATH="$site:$pysite" MARKUP_TEST_INSTALLED_IN="$site"
           MARKUP_TEST_PYTHON="$python" ${emulated[@]+"${emulated[@]}"} "$python")
    fi
  fi
  if [ "$step" = smoke ]; then
    # From outside the source tree, with nothing but the wheel installed.
    if (cd "$dir" && "${smoke[@]}" "$root/scripts/smoke_test.py" "$site" "$version") >>"$log" 2>&1; then
      if [ "$suite" != all ] && [[ " $suite " != *" $ver-$arch "* ]]; then
        rc=0
      elif [ "$pysite" = - ] &&
           ! "$venv/bin/python" -m pip install -q -r requirements-dev.txt >>"$log" 2>&1; then
        step="test requirements"
      else
        step=pytest
        rm -f "$dir/junit.xml"
        local ignore=()
        [ ${#emulated[@]} -gt 0 ] && ignore=("${emulated_pytest_args[@]}")
        "${run[@]}" -m pytest -q -p no:cacheprovider --junitxml="$dir/junit.xml" tests/python \
          ${ignore[@]+"${ignore[@]}"} >>"$log" 2>&1
        rc=$?
        read -r passed failed skipped < <(python3 scripts/junit_counts.py "$dir/junit.xml")
        if [ $rc -ne 0 ] && [ "$failed" -eq 0 ]; then
          failed=1  # pytest failed without a failing test (collection, usage)
        fi
      fi
    fi
  fi
  if [ $rc -eq 0 ]; then
    verdict=PASS
    [ "$step" = smoke ] && verdict="PASS (page check only)"
  else
    verdict="FAIL ($step)"
    tail -n 30 "$log" | sed "s/^/  [$ver-$arch] /"
  fi
  line=$(printf 'Python %-5s %-7s %4d passed %3d failed %3d skipped %4ds  %s  %s' "$ver" "$arch" \
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
  read -r ver arch _ < <(wheel_target "$wheel")
  results+=("$(cat "$root/build/wheel-test/$ver-$arch/result.txt" 2>/dev/null ||
               echo "Python $ver $arch: no result")")
done
echo
echo "== wheel-test: one line per wheel (utf8proc hidden)"
printf '%s\n' "${results[@]}"
exit $status
