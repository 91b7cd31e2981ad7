#!/usr/bin/env bash
# Jinja2's own test suite (from the source release of the Jinja2 pinned in
# requirements-dev.txt) with markup.jinja's Environment and Template in
# place of Jinja2's; prints how many templates rendered on markup's engine.
# Usage: scripts/jinja2-suite.sh PYTHON WORKDIR
set -euo pipefail
py=$1
work=$2
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^jinja2==//p' "$root/requirements-dev.txt")
src=$work/jinja2-$version
if [ ! -d "$src/tests" ]; then
    mkdir -p "$work"
    "$py" -m pip download -q --no-deps --no-binary :all: -d "$work" "jinja2==$version"
    tar -xzf "$work/jinja2-$version.tar.gz" -C "$work"
fi
cd "$src"
PYTHONPATH="$root/tests/jinja2_suite" "$py" -m pytest -q -p no:cacheprovider \
    -p markup_jinja_plugin tests
