#!/usr/bin/env bash
# The C library and its tests cross-built for 64-bit Windows with mingw-w64
# (warnings are errors) and run by ctest under Wine: the cmocka tests, the
# C example and the fuzz harnesses' replay of their seeds.
#
#   scripts/windows-check.sh [CMAKE]   # default: cmake on PATH
#
# scripts/install-windows-deps.sh provides the compiler, Wine, and utf8proc
# and cmocka built for Windows (kept in ~/.cache/markup/windows-deps, or
# $MARKUP_WINDOWS_DEPS). The Wine prefix is build/windows-wine.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cmake=${1:-cmake}
[[ $cmake == */* ]] && cmake=$(cd "$(dirname "$cmake")" && pwd)/$(basename "$cmake")
ctest=ctest
[[ $cmake == */* ]] && ctest=$(dirname "$cmake")/ctest
jobs=${JOBS:-2}
build=$root/build/windows
deps=${MARKUP_WINDOWS_DEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/markup/windows-deps}
start=$SECONDS

bash scripts/install-windows-deps.sh "$cmake" "$deps"
deps=$(cd "$deps" && pwd)

mkdir -p "$build"
# utf8proc and cmocka by path: pkg-config (limited to mingw's own .pc
# files by the toolchain file) finds neither.
"$cmake" -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-w64-mingw32.cmake \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMARKUP_BUILD_TESTS=ON -DMARKUP_WERROR=ON \
  -DUTF8PROC_INCLUDE_DIR="$deps/include" -DUTF8PROC_LIBRARY="$deps/lib/libutf8proc.dll.a" \
  -DCMOCKA_INCLUDE_DIR="$deps/include" -DCMOCKA_LIBRARY="$deps/lib/libcmocka.dll.a" \
  >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
"$cmake" --build "$build" -j "$jobs"

# A Wine prefix of its own, made once (about 10 s). No Mono or Gecko: no
# test needs .NET or a browser engine, and Wine would offer to download them.
export WINEPREFIX=$root/build/windows-wine WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
wine=$(grep -E '^MARKUP_WINE:' "$build/CMakeCache.txt" | cut -d= -f2-)
[ -x "$wine" ] || { echo "windows-check.sh: no Wine found (MARKUP_WINE=$wine)" >&2; exit 1; }
wineserver=$(dirname "$wine")/wineserver
# One wineserver for every test (a fresh one per test costs a second each),
# stopped at the end, and Wine's background services started here, not by
# the first test: they would hold that test's output pipe open, and ctest
# would wait for them forever.
mkdir -p "$WINEPREFIX"
"$wineserver" -p
trap '"$wineserver" -k 2>/dev/null || true' EXIT
if [ -f "$WINEPREFIX/system.reg" ]; then
  "$wine" wineboot </dev/null >/dev/null 2>&1
else
  "$wine" wineboot --init </dev/null >/dev/null 2>&1
fi
# The DLLs the tests load: utf8proc and cmocka, and mingw's runtime
# (libwinpthread-1.dll; libstdc++-6.dll and libgcc_s_seh-1.dll for the C++
# header test), as Windows paths (Wine maps / to drive Z:).
winpath() { echo "Z:${1//\//\\}"; }
gcc_runtime=$(dirname "$(x86_64-w64-mingw32-g++ -print-file-name=libstdc++-6.dll)")
pthread_runtime=$(dirname "$(x86_64-w64-mingw32-gcc -print-file-name=libwinpthread-1.dll)")
WINEPATH="$(winpath "$deps/bin");$(winpath "$(realpath "$gcc_runtime")");$(winpath "$(realpath "$pthread_runtime")")"
export WINEPATH

"$ctest" --test-dir "$build" --output-on-failure -j "$jobs"
echo "windows-check: OK ($((SECONDS - start))s)"
