#!/usr/bin/env bash
# debian-python.sh VERSION DIR [--arch ARCH] [--bench] - a CPython from
# Debian's unstable suite, made in DIR: for amd64 (the default) the ones
# newer than pyenv has here (3.14, 3.15), for `make pythons`, the wheel
# tests and (with --bench) `make bench-debian`; for arm64 (3.13 and newer),
# run under qemu-user, for the aarch64 wheels' builds and tests:
#   DIR/root    Debian's python3.X, its headers and the libraries its
#               modules load, with the C library it was built against,
#               unpacked (dpkg -x), not installed
#   DIR/site    the test requirements, at the versions of the project's
#               .venv where they have a wheel for 3.X
#   DIR/python  the command that runs it: that C library's loader with
#               the unpacked libraries first (under qemu for arm64), so
#               the host's stay untouched
#   DIR/bench   with --bench: the peers of bench/compare.py that publish a
#               wheel for this version (the others are skipped by it)
# The package lists come from the machine's own Debian mirror with the
# suite changed to sid, kept in DIR/apt (the machine's apt sources are not
# changed). DIR is reused while this script, requirements-dev.txt and the
# versions in .venv are unchanged; paths with spaces are not supported.
set -euo pipefail
version=$1
dir=$2
shift 2
arch=amd64
bench=
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch=$2; shift 2 ;;
    --bench) bench=--bench; shift ;;
    *) echo "debian-python.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done
case "$arch" in
  amd64) triple=x86_64-linux-gnu loader=ld-linux-x86-64.so.2 emulator= oldest=14
         platform=manylinux2014_x86_64 ;;
  # Debian's arm64 CPythons since trixie sign return addresses (pointer
  # authentication): qemu's default (architected) algorithm for it made
  # Python code 17 times slower; its implementation-defined one still
  # checks every signature, at twice the cost of no PAuth at all.
  arm64) triple=aarch64-linux-gnu loader=ld-linux-aarch64.so.1 oldest=13
         emulator="qemu-aarch64 -cpu max,pauth-impdef=on"
         platform=manylinux2014_aarch64 ;;
  *) echo "debian-python.sh: no CPython set up for $arch (amd64, arm64)" >&2; exit 1 ;;
esac
minor=${version#3.}
if [[ ! $version =~ ^3\.[0-9]+$ ]] || [ "$minor" -lt "$oldest" ]; then
  echo "debian-python.sh: takes 3.$oldest or newer for $arch, not $version" >&2
  exit 1
fi
if [ "$bench" = --bench ] && [ "$arch" != amd64 ]; then
  echo "debian-python.sh: --bench is for amd64" >&2
  exit 1
fi
root=$(cd "$(dirname "$0")/.." && pwd)
venv_python="$root/.venv/bin/python"
[ "$(dpkg --print-architecture)" = amd64 ] ||
  { echo "debian-python.sh: written for amd64 hosts" >&2; exit 1; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# The test requirements at the versions of the host's .venv. MarkupSafe's
# C speedups are optional: where it has no wheel for this version, its
# Python files come from .venv. mypy is left out (the stub checks skip
# without it and run on the other versions).
with_deps=(pytest hypothesis html5lib starlette httpx2 itsdangerous click blinker trio django)
without_deps=(jinja2 flask werkzeug)
host_versions() {
  "$venv_python" -c 'import importlib.metadata as m, sys
print(" ".join(f"{n}=={m.version(n)}" for n in sys.argv[1:]))' "$@"
}
read -r -a pins_with_deps <<< "$(host_versions "${with_deps[@]}")"
read -r -a pins_without_deps <<< "$(host_versions "${without_deps[@]}")"
markupsafe_pin=$(host_versions markupsafe)

fingerprint=$(cat "$0" "$root/requirements-dev.txt" |
              { cat; echo "$version $arch ${pins_with_deps[*]} ${pins_without_deps[*]} $markupsafe_pin"; } |
              sha256sum)
# The peers of bench/compare.py, each on its own: one without a wheel for
# this version is left out (compare.py lists it as skipped).
install_bench() {
  [ "$bench" = --bench ] || return 0
  [ -f "$dir/bench/.complete" ] && cmp -s "$root/bench/requirements.txt" "$dir/bench/.complete" &&
    return 0
  rm -rf "$dir/bench"
  mkdir -p "$dir/bench"
  local req
  # A requirement's marker (python_version>='3.14') is for .venv's pip:
  # here each is installed for this version, which is what it names.
  for req in $(grep -E '^[a-z]' "$root/bench/requirements.txt" | grep -v '^matplotlib'); do
    req=${req%%;*}
    "$venv_python" -m pip install -q --target "$dir/bench" --only-binary=:all: \
      --python-version "$version" --implementation cp --platform manylinux2014_x86_64 \
      --platform manylinux_2_28_x86_64 \
      "$req" >/dev/null 2>&1 || echo "debian-python.sh: no wheel of $req for $version"
  done
  cp "$root/bench/requirements.txt" "$dir/bench/.complete"
}

if [ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$fingerprint" ]; then
  install_bench
  exit 0
fi
rm -rf "$dir/apt" "$dir/debs" "$dir/root" "$dir/site" "$dir/pycache" "$dir/.complete"
mkdir -p "$dir/apt/parts" "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" \
         "$dir/debs" "$dir/root"

# The machine's Debian mirror (deb822 or one-line sources), suite sid.
mirror=$(grep -hs -E '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' |
         grep -v -- '-security' | head -n 1 || true)
if [ -z "$mirror" ]; then
  mirror=$(grep -hs -E '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
           awk '{print $2}' | grep -v -- '-security' | head -n 1 || true)
fi
[ -n "$mirror" ] || { echo "debian-python.sh: no Debian mirror in /etc/apt" >&2; exit 1; }
cat > "$dir/apt/parts/sid.sources" <<EOF
Types: deb
URIs: $mirror
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
apt=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$dir/apt/parts"
     -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache"
     -o APT::Architecture=$arch -o APT::Architectures=$arch -o Debug::NoLocking=1)
apt-get "${apt[@]}" -q update >/dev/null

# The interpreter, its standard library and headers, the C library it was
# built against, and the shared libraries of the standard modules.
debs=(python$version-minimal libpython$version-minimal libpython$version-stdlib
      libpython$version-dev libc6 libexpat1 zlib1g libffi8 libbz2-1.0 liblzma5 libzstd1
      libssl3t64 libuuid1 libsqlite3-0 libcrypt1 libmpdec4 libgcc-s1)
(cd "$dir/debs" && apt-get "${apt[@]}" download -q "${debs[@]}" 2>&1) |
  { grep -v '^Get:\|unsandboxed' || true; }
for deb in "${debs[@]}"; do
  compgen -G "$dir/debs/${deb}_*.deb" >/dev/null ||
    { echo "debian-python.sh: $deb was not downloaded" >&2; exit 1; }
done
for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root"; done
rm -rf "$dir/apt/lists" "$dir/apt/cache"

# The unpacked loader runs the interpreter with the unpacked libraries;
# PYTHONHOME points it at its own standard library. Nothing is exported
# to the programs it starts (a test that starts a Python uses this command
# again: MARKUP_TEST_PYTHON).
libs="$dir/root/usr/lib/$triple:$dir/root/lib/$triple"
# Bytecode is kept in DIR/pycache whatever PYTHONDONTWRITEBYTECODE says:
# dpkg -x ran no postinst to write the standard library's, and compiling
# every module again on every start is slow (ten times so under qemu).
cat > "$dir/python" <<EOF
#!/bin/sh
# CPython $version for $arch from Debian sid, unpacked in $dir/root.
PYTHONHOME=$dir/root/usr PYTHONPYCACHEPREFIX=$dir/pycache PYTHONDONTWRITEBYTECODE= \\
  exec $emulator $dir/root/usr/lib/$triple/$loader \\
  --library-path $libs $dir/root/usr/bin/python$version "\$@"
EOF
chmod +x "$dir/python"

# Wheels for this version (all but MarkupSafe's are pure Python).
wheels=("$venv_python" -m pip install -q --target "$dir/site" --only-binary=:all:
        --python-version "$version" --implementation cp --platform "$platform")
"${wheels[@]}" "${pins_with_deps[@]}"
"${wheels[@]}" --no-deps "${pins_without_deps[@]}"
if ! "${wheels[@]}" --no-deps "$markupsafe_pin" 2>/dev/null; then
  host_markupsafe=$("$venv_python" -c "import markupsafe, os; print(os.path.dirname(markupsafe.__file__))")
  mkdir -p "$dir/site/markupsafe"
  cp "$host_markupsafe"/*.py "$host_markupsafe"/py.typed "$dir/site/markupsafe/"
fi

# Every standard module with a library of its own, and the test packages.
PYTHONPATH="$dir/site" "$dir/python" -c "
import sys, ssl, hashlib, sqlite3, uuid, lzma, bz2, zlib, ctypes, pyexpat, decimal
import jinja2, markupsafe, hypothesis, pytest, html5lib, starlette, httpx2, flask, trio, django
print('debian-python.sh:', sys.version.split()[0], 'for $arch from Debian sid')"
echo "$fingerprint" > "$dir/.complete"
install_bench
