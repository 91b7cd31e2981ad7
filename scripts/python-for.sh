#!/usr/bin/env bash
# python-for.sh VERSION ARCH - the CPython that builds and tests markup's
# wheels for VERSION (3.9, 3.14, ...) on ARCH (x86_64, aarch64), set up
# when it is not there yet. Prints one line, "PYTHON ROOT SITE":
#   PYTHON  the command that runs it
#   ROOT    where its headers are (ROOT/usr/include/python3.X), or - for a
#           pyenv CPython, whose build finds its own
#   SITE    a folder of the test requirements for it, or - when they are
#           pip-installed into a virtualenv of it (pyenv's)
# Where they come from:
#   x86_64  3.9-3.13 from pyenv; 3.14 and newer from Debian sid
#           (scripts/debian-python.sh), run through their own C library
#   aarch64 Debian's, run under qemu-user: 3.11 from the machine's own
#           release (scripts/cross-python.sh, as `make cross-pytest` uses),
#           3.13 and newer from sid. No Debian release has 3.12 for arm64:
#           that wheel is not built, since it could not be tested.
# Exits 3 (and prints nothing) when no CPython VERSION is reachable for ARCH.
set -euo pipefail
version=$1
arch=$2
root=$(cd "$(dirname "$0")/.." && pwd)
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
cache=${MARKUP_PYTHONS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/markup/pythons}
minor=${version#3.}

# Set-up output goes to stderr: stdout is the one line.
case "$arch/$minor" in
  x86_64/9 | x86_64/1[0-3])
    interpreters=("$pyenv_root"/versions/"$version".*/bin/python3)
    [ -x "${interpreters[-1]}" ] || exit 3
    echo "${interpreters[-1]} - -" ;;
  x86_64/1[4-9])
    bash "$root/scripts/debian-python.sh" "$version" "$cache/$version" >&2
    echo "$cache/$version/python $cache/$version/root $cache/$version/site" ;;
  aarch64/11)
    bash "$root/scripts/install-cross-deps.sh" >&2
    bash "$root/scripts/cross-python.sh" aarch64-linux-gnu "$cache/$version-arm64" >&2
    echo "$cache/$version-arm64/python $cache/$version-arm64/root $cache/$version-arm64/site" ;;
  aarch64/1[3-9])
    bash "$root/scripts/install-cross-deps.sh" >&2
    bash "$root/scripts/debian-python.sh" "$version" "$cache/$version-arm64" --arch arm64 >&2
    echo "$cache/$version-arm64/python $cache/$version-arm64/root $cache/$version-arm64/site" ;;
  *) exit 3 ;;
esac
