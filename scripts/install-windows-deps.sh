#!/usr/bin/env bash
# install-windows-deps.sh [CMAKE [PREFIX]] - what scripts/windows-check.sh
# needs: Debian's mingw-w64 cross compiler and Wine (apt-get runs only when
# one is missing), and utf8proc and cmocka built for 64-bit Windows into
# PREFIX (default ~/.cache/markup/windows-deps, or $MARKUP_WINDOWS_DEPS):
#   PREFIX/bin      libutf8proc.dll, cmocka.dll
#   PREFIX/lib      their import libraries (.dll.a)
#   PREFIX/include  utf8proc.h, cmocka.h
# Debian has no mingw packages of either, so their Debian source packages
# (the versions the host's libutf8proc-dev and libcmocka-dev are built from)
# are fetched with a private deb-src list kept in PREFIX/apt (the machine's
# apt sources are not changed) and cross-built with cmake/toolchains/
# x86_64-w64-mingw32.cmake. PREFIX is reused while this script, the
# toolchain file and the compiler are unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cmake=${1:-cmake}
[[ $cmake == */* ]] && cmake=$(cd "$(dirname "$cmake")" && pwd)/$(basename "$cmake")
prefix=${2:-${MARKUP_WINDOWS_DEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/markup/windows-deps}}
jobs=${JOBS:-2}
toolchain=$root/cmake/toolchains/x86_64-w64-mingw32.cmake
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# The compiler and Wine: Debian's wine64 is enough for 64-bit programs.
missing=()
for p in gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine64; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if ! grep -qx 'ID=debian' /etc/os-release; then
    echo "install-windows-deps.sh: written for Debian; install by hand: ${missing[*]}" >&2
    exit 1
  fi
  echo "installing Debian packages: ${missing[*]}"
  bash "$(dirname "$0")/apt-update.sh"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

fingerprint=$(cat "$0" "$toolchain" | { cat; x86_64-w64-mingw32-gcc --version | head -n 1; } |
              sha256sum)
if [ -f "$prefix/.complete" ] && [ "$(cat "$prefix/.complete")" = "$fingerprint" ]; then
  exit 0
fi
echo "install-windows-deps.sh: building utf8proc and cmocka for Windows into $prefix"
# Only what this script makes there: PREFIX may be a folder of its own.
for made in apt src source.log bin include lib share .complete; do rm -rf "${prefix:?}/$made"; done
mkdir -p "$prefix/apt/parts" "$prefix/apt/lists/partial" "$prefix/apt/cache/archives/partial" \
         "$prefix/src"
prefix=$(cd "$prefix" && pwd)

# The machine's Debian mirror (deb822 or one-line sources).
mirror=$(grep -hs -E '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' |
         grep -v -- '-security' | head -n 1 || true)
if [ -z "$mirror" ]; then
  mirror=$(grep -hs -E '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
           awk '{print $2}' | grep -v -- '-security' | head -n 1 || true)
fi
[ -n "$mirror" ] || { echo "install-windows-deps.sh: no Debian mirror in /etc/apt" >&2; exit 1; }
# The release's own sources (sid names none).
suite=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
suite=${suite:-sid}
cat > "$prefix/apt/parts/src.sources" <<EOF
Types: deb-src
URIs: $mirror
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$prefix/apt/parts"
     -o "Dir::State::Lists=$prefix/apt/lists" -o "Dir::Cache=$prefix/apt/cache"
     -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
apt-get "${apt[@]}" -q update >/dev/null
# apt-get source checks each file against the signed Sources index and
# unpacks it with Debian's patches applied (dpkg-source -x).
(cd "$prefix/src" && apt-get "${apt[@]}" -q source utf8proc cmocka >../source.log 2>&1) ||
  { cat "$prefix/source.log"; exit 1; }
rm -rf "$prefix/apt"

# Shared libraries, as on Linux: the headers then need no static-build
# macro (UTF8PROC_STATIC), and the DLLs sit in PREFIX/bin for WINEPATH.
# Both ask for an older cmake_minimum_required than CMake 4 accepts.
build() {  # source-folder cmake-options...
  local src=$1
  shift
  "$cmake" -S "$src" -B "$src/build-windows" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_POLICY_VERSION_MINIMUM=3.5 "$@" >"$src/configure.log" 2>&1 ||
    { cat "$src/configure.log"; exit 1; }
  "$cmake" --build "$src/build-windows" -j "$jobs" >"$src/build.log" 2>&1 ||
    { cat "$src/build.log"; exit 1; }
  "$cmake" --install "$src/build-windows" >/dev/null
}
src_dir() { find "$prefix/src" -mindepth 1 -maxdepth 1 -type d -name "$1-*" | head -n 1; }
build "$(src_dir utf8proc)" -DBUILD_SHARED_LIBS=ON -DUTF8PROC_ENABLE_TESTING=OFF
# cmocka prints its messages (print_error, fail_msg) with the C99 printf of
# mingw-w64 (%zu and the like; msvcrt's printf lacks them), as the tests'
# own programs do (tests/CMakeLists.txt), and its header says so: GCC
# checks format(printf) against msvcrt on Windows, format(gnu_printf)
# against C99.
build "$(src_dir cmocka)" -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF \
  -DCMAKE_C_FLAGS=-D__USE_MINGW_ANSI_STDIO=1
sed -i 's/__format__ (__printf__, a, b)/__format__ (__gnu_printf__, a, b)/' "$prefix/include/cmocka.h"
grep -q __gnu_printf__ "$prefix/include/cmocka.h" ||
  { echo "install-windows-deps.sh: cmocka.h has no format(printf) to adjust" >&2; exit 1; }
for f in bin/libutf8proc.dll lib/libutf8proc.dll.a include/utf8proc.h \
         bin/cmocka.dll lib/libcmocka.dll.a include/cmocka.h; do
  [ -f "$prefix/$f" ] || { echo "install-windows-deps.sh: $f was not installed" >&2; exit 1; }
done
rm -rf "$prefix/src" "$prefix/source.log"
echo "$fingerprint" > "$prefix/.complete"
