#!/usr/bin/env bash
# Checks the sdist in dist/ as a user or a packager meets it:
#  1. it holds what the build needs and nothing of build/, .venv or dist/;
#  2. `twine check --strict` passes;
#  3. `pip install` of it into a fresh virtualenv builds (with build
#     isolation, as pip does for a user) against the system's utf8proc, and
#     the installed package renders a page;
#  4. where utf8proc is not installed (scripts/without-utf8proc.sh), the
#     same install stops with the one-line message that names the package
#     to install, not a CMake search trace.
#
#   scripts/sdist-check.sh PYTHON   # PYTHON has twine (requirements-dist.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=$1
version=$(cat VERSION)
sdist=$root/dist/markup_html-$version.tar.gz
work=$root/build/sdist-check
start=$SECONDS
[ -f "$sdist" ] || { echo "sdist-check: no ${sdist#$root/} (make sdist)" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"

echo "== contents of ${sdist#$root/}"
"$python" - "$sdist" "$version" <<'EOF'
import sys, tarfile

sdist, version = sys.argv[1], sys.argv[2]
top = f"markup_html-{version}/"
names = [n[len(top):] for n in tarfile.open(sdist).getnames() if n.startswith(top)]
need = ["pyproject.toml", "CMakeLists.txt", "VERSION", "LICENSE", "README.md", "PKG-INFO",
        "include/markup/markup.h", "include/markup/version.h.in", "cmake/markup.pc.in",
        "cmake/markupConfig.cmake.in", "libmarkup/CMakeLists.txt", "pymarkup/CMakeLists.txt",
        "pymarkup/markup/__init__.py", "pymarkup/markup/py.typed", "tests/python/conftest.py"]
missing = [n for n in need if n not in names]
banned = ("build/", ".venv", "dist/", "bench/", "fuzz/", ".ci/", ".hypothesis/", "site/")
stray = [n for n in names if n.startswith(banned) or "__pycache__" in n or n.endswith(".so")]
if missing or stray:
    sys.exit(f"sdist-check: missing {missing}, should not hold {stray[:10]}")
print(f"{len(names)} files; the build's and the tests' inputs, no build output")
EOF
"$python" -m twine check --strict "$sdist"

echo "== pip install ${sdist#$root/} into a fresh virtualenv (system utf8proc)"
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$sdist" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; exit 1; }
(cd "$work" && "$work/venv/bin/python" "$root/scripts/smoke_test.py" "$work/venv" "$version")

echo "== the same where utf8proc is not installed: one line says what to install"
"$python" -m venv "$work/venv-bare"
if bash scripts/without-utf8proc.sh "$work/venv-bare/bin/python" -m pip install "$sdist" \
     >"$work/bare.log" 2>&1; then
  echo "sdist-check: the install succeeded without utf8proc (see ${work#$root/}/bare.log)" >&2
  exit 1
fi
message="markup needs utf8proc's headers and library: install libutf8proc-dev (Debian/Ubuntu), utf8proc-devel (Fedora), utf8proc-dev (Alpine) or utf8proc (Homebrew)"
if ! grep -qF "$message" "$work/bare.log"; then
  echo "sdist-check: pip's output lacks the message; it was:" >&2
  cat "$work/bare.log" >&2
  exit 1
fi
if grep -qE 'NOTFOUND|Call Stack|CMake Error at .*FindPkgConfig' "$work/bare.log"; then
  echo "sdist-check: pip's output shows a search trace:" >&2
  cat "$work/bare.log" >&2
  exit 1
fi
grep -F "$message" "$work/bare.log" | head -1 | sed 's/^ */  /'
echo "sdist-check: OK ($((SECONDS - start))s)"
