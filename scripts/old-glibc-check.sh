#!/usr/bin/env bash
# The manylinux wheel on an older system than the one that built it: Debian
# 11 (glibc 2.31, CPython 3.9.2), unpacked by debootstrap into a cache
# folder, runs the cp39 wheel from dist/ through the page check and the
# whole pytest suite, with the test requirements (pip-installed for pyenv's
# 3.9) beside it. No utf8proc is installed there.
#
#   scripts/old-glibc-check.sh
#
# Needs root (debootstrap, chroot, mount). The system is kept in
# $MARKUP_OLD_GLIBC_CACHE (default ~/.cache/markup/bullseye) and made again
# when this script changes.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cache=${MARKUP_OLD_GLIBC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/markup/bullseye}
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
version=$(cat VERSION)
start=$SECONDS
mkdir -p build

wheels=(dist/markup_html-"$version"-cp39-cp39-*manylinux*.whl)
[ -f "${wheels[0]}" ] || { echo "old-glibc-check: no cp39 wheel in dist/ (make wheels)" >&2; exit 1; }
wheel=$root/${wheels[0]}
interpreters=("$pyenv_root"/versions/3.9.*/bin/python3)
python39=${interpreters[-1]}
[ -x "$python39" ] || { echo "old-glibc-check: no CPython 3.9 under $pyenv_root" >&2; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
  echo "old-glibc-check: needs root (debootstrap, chroot)" >&2
  exit 1
fi
if ! command -v debootstrap >/dev/null; then
  bash "$(dirname "$0")/apt-update.sh"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
fi

fingerprint=$(sha256sum "$0" requirements-dev.txt | sha256sum | cut -c1-16)
if [ "$(cat "$cache/.complete" 2>/dev/null)" != "$fingerprint" ]; then
  echo "== debootstrap Debian 11 (bullseye) into $cache"
  rm -rf "$cache"
  mkdir -p "$(dirname "$cache")"
  debootstrap --variant=minbase --include=python3 bullseye "$cache" http://deb.debian.org/debian \
    >"$(dirname "$cache")/bullseye-debootstrap.log" 2>&1 ||
    { tail -20 "$(dirname "$cache")/bullseye-debootstrap.log" >&2; exit 1; }
  # The test requirements, for CPython 3.9 (pure Python, or manylinux
  # wheels old enough for glibc 2.31).
  "$python39" -m pip install -q --target "$cache/opt/site" -r requirements-dev.txt
  echo "$fingerprint" >"$cache/.complete"
fi
echo "== $(chroot "$cache" ldd --version | head -1), $(chroot "$cache" python3 --version)"

# This run's wheel and tests, fresh each time.
rm -rf "$cache/opt/wheel" "$cache/opt/src"
mkdir -p "$cache/opt/wheel" "$cache/opt/src"
"$python39" -m zipfile -e "$wheel" "$cache/opt/wheel"
git ls-files -z tests examples bench docs include VERSION pyproject.toml scripts/smoke_test.py |
  tar --null -T - -cf - | tar -xf - -C "$cache/opt/src"

# /proc for the tests (subprocesses, resource limits), mounted in a private
# namespace so that nothing stays mounted afterwards.
unshare --mount --propagation private bash -c '
  set -e
  mount --bind /proc "$1/proc"
  chroot "$1" sh -c "cd /tmp && PYTHONPATH=/opt/wheel python3 /opt/src/scripts/smoke_test.py /opt/wheel $2"
  chroot "$1" sh -c "cd /opt/src && PYTHONPATH=/opt/wheel:/opt/site MARKUP_TEST_INSTALLED_IN=/opt/wheel \
    python3 -m pytest -q -p no:cacheprovider tests/python"
' _ "$cache" "$version" >"$root/build/old-glibc-check.log" 2>&1 || status=$?
tail -n 5 "$root/build/old-glibc-check.log"
[ "${status:-0}" -eq 0 ] || { echo "old-glibc-check: FAILED (build/old-glibc-check.log)" >&2; exit 1; }
echo "old-glibc-check: OK, ${wheel##*/} on glibc 2.31 ($((SECONDS - start))s)"
