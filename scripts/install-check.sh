#!/usr/bin/env bash
# Installs libmarkup (Release, no tests) into build/install-prefix, then
# builds tests/install/main.c against that prefix alone: through pkg-config,
# and through find_package(markup) with markup::markup (shared) and
# markup::markup_static. Each program renders a page and checks its bytes.
#
#   scripts/install-check.sh [CMAKE]   # default: cmake on PATH
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cmake=${1:-cmake}
[[ $cmake == */* ]] && cmake=$(cd "$(dirname "$cmake")" && pwd)/$(basename "$cmake")
jobs=${JOBS:-2}
build=$root/build/install-build
prefix=$root/build/install-prefix
work=$root/build/install-check
start=$SECONDS

echo "== install: configure, build, cmake --install into ${prefix#$root/}"
mkdir -p "$build"
"$cmake" -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DMARKUP_BUILD_TESTS=OFF \
  -DMARKUP_BUILD_PYTHON=OFF -DCMAKE_INSTALL_PREFIX="$prefix" >"$build/configure.log" ||
  { cat "$build/configure.log"; exit 1; }
"$cmake" --build "$build" -j "$jobs" >"$build/build.log" || { cat "$build/build.log"; exit 1; }
rm -rf "$prefix" "$work"
"$cmake" --install "$build" >/dev/null
mkdir -p "$work"

libdir=$(find "$prefix" -name markup.pc -path '*/pkgconfig/*' -printf '%h\n' | head -n 1)
libdir=${libdir%/pkgconfig}
for f in include/markup/markup.h include/markup/binding.h include/markup/export.h \
         include/markup/version.h; do
  [ -f "$prefix/$f" ] || { echo "install-check: $f was not installed" >&2; exit 1; }
done
for f in libmarkup.a libmarkup.so pkgconfig/markup.pc cmake/markup/markupConfig.cmake \
         cmake/markup/markupConfigVersion.cmake cmake/markup/markupTargets.cmake; do
  [ -e "$libdir/$f" ] || { echo "install-check: ${libdir#$prefix/}/$f was not installed" >&2; exit 1; }
done
echo "installed: $(cd "$prefix" && find . -type f -o -type l | sed 's|^\./||' | sort | tr '\n' ' ')"

# Runs one consumer program, shows its page, and keeps the output for the
# comparison at the end. The program itself checks the bytes.
outputs=()
run() {  # name program
  echo "-- $1"
  if ! "$2" >"$work/$1.html"; then
    cat "$work/$1.html"
    echo "install-check: $1 failed" >&2
    exit 1
  fi
  cat "$work/$1.html"
  outputs+=("$work/$1.html")
}

echo "== pkg-config: cc main.c \$(pkg-config --cflags --libs markup)"
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc=${CC:-cc}
# shellcheck disable=SC2046  # pkg-config flags are words
"$cc" -std=c11 -Wall -Wextra -Werror tests/install/main.c -o "$work/page_pkgconfig" \
  $(pkg-config --cflags --libs markup) -Wl,-rpath,"$(pkg-config --variable=libdir markup)"
# The library the program loads, symlinks resolved, is the installed one.
linked_to() { readlink -f "$(ldd "$1" | awk '/libmarkup\.so/ {print $3}')"; }
if [ "$(linked_to "$work/page_pkgconfig")" != "$(readlink -f "$libdir/libmarkup.so")" ]; then
  echo "install-check: page_pkgconfig is not linked to the installed libmarkup.so" >&2
  exit 1
fi
run pkgconfig "$work/page_pkgconfig"
# markup.pc locates the prefix from its own folder: a moved install works.
cp -a "$prefix" "$work/moved-prefix"
moved_libdir=$work/moved-prefix/${libdir#"$prefix"/}
PKG_CONFIG_PATH=$moved_libdir/pkgconfig pkg-config --cflags markup | grep -qF -- "-I$work/moved-prefix/" ||
  { echo "install-check: markup.pc does not follow a moved install" >&2; exit 1; }
# shellcheck disable=SC2046  # pkg-config flags are words
"$cc" -std=c11 -Wall -Wextra -Werror tests/install/main.c -o "$work/page_moved" \
  $(PKG_CONFIG_PATH=$moved_libdir/pkgconfig pkg-config --cflags --libs markup) -Wl,-rpath,"$moved_libdir"
run moved "$work/page_moved"
# The public header does not include utf8proc.h: no utf8proc compile flags.
cflags=$(pkg-config --cflags markup)
[[ $cflags != *utf8proc* && $cflags != *UTF8PROC* ]] || {
  echo "install-check: pkg-config --cflags markup carries utf8proc flags: $cflags" >&2; exit 1; }
# The static library needs utf8proc: `--static` must say so.
static_libs=$(pkg-config --static --libs markup)
[[ $static_libs == *-lutf8proc* ]] || {
  echo "install-check: pkg-config --static --libs markup lacks utf8proc: $static_libs" >&2; exit 1; }
# A utf8proc the system installed (where the linker looks anyway) needs no
# -L: the installed file names no directory of the machine that built it.
libs_private=$(grep '^Libs.private:' "$libdir/pkgconfig/markup.pc")
case $(pkg-config --variable=libdir libutf8proc 2>/dev/null) in
  /usr/lib | /usr/lib/*-linux-gnu | /usr/lib64)
    [[ $libs_private != *-L* ]] || {
      echo "install-check: markup.pc carries a build directory: $libs_private" >&2; exit 1; } ;;
esac

echo "== find_package(markup CONFIG REQUIRED): markup::markup and markup::markup_static"
# Only the install prefix is searched: no package registry, no source tree.
"$cmake" -S tests/install -B "$work/cmake" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" >"$work/configure.log" ||
  { cat "$work/configure.log"; exit 1; }
grep -F -- "-- markup " "$work/configure.log"
"$cmake" --build "$work/cmake" -j "$jobs" >"$work/build.log" || { cat "$work/build.log"; exit 1; }
if [ "$(linked_to "$work/cmake/page_shared")" != "$(readlink -f "$libdir/libmarkup.so")" ]; then
  echo "install-check: page_shared is not linked to the installed libmarkup.so" >&2
  exit 1
fi
if ldd "$work/cmake/page_static" | grep -q libmarkup; then
  echo "install-check: page_static depends on a shared libmarkup" >&2
  exit 1
fi
run cmake-shared "$work/cmake/page_shared"
run cmake-static "$work/cmake/page_static"

for out in "${outputs[@]:1}"; do
  cmp -s "${outputs[0]}" "$out" || { echo "install-check: $out differs from ${outputs[0]}" >&2; exit 1; }
done

echo "== the examples of docs/c-api.md, against the installed library (pkg-config)"
for example in page tree_to_file baked_rows escape; do
  # shellcheck disable=SC2046  # pkg-config flags are words
  "$cc" -std=c11 -Wall -Wextra -Werror "examples/c/$example.c" -o "$work/example_$example" \
    $(pkg-config --cflags --libs markup) -Wl,-rpath,"$(pkg-config --variable=libdir markup)"
  "$work/example_$example" >"$work/example_$example.html" ||
    { echo "install-check: example $example failed" >&2; exit 1; }
  cmp -s "examples/c/$example.expected.html" "$work/example_$example.html" || {
    echo "install-check: example $example printed something else than its .expected.html" >&2
    exit 1
  }
  echo "-- example $example: $(wc -c <"$work/example_$example.html") bytes as expected"
done
echo "install-check: OK (3 consumers, 4 examples, $((SECONDS - start))s)"
