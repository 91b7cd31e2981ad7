#!/usr/bin/env bash
# cross-python.sh TRIPLE DIR - a CPython of another CPU to run the Python
# tests under qemu-user (`make cross-pytest`), made in DIR:
#   DIR/root    Debian's python3.11 for that CPU with its headers and the
#               libraries its modules load, unpacked (dpkg -x), not installed:
#               a multiarch install must have the host's exact version of
#               python3.11, which an up-to-date mirror often does not
#   DIR/site    the test requirements as wheels for that CPU, at the
#               versions of the project's .venv
#   DIR/python  the command that runs it (CPython, through qemu)
# Needs what scripts/install-cross-deps.sh installs (the foreign
# architectures added to dpkg, qemu-user), network access to the Debian
# mirror and PyPI, and the project's .venv (its pip fetches the wheels).
# DIR is made again when this script, requirements-dev.txt or a version in
# .venv changed; paths with spaces are not supported.
set -euo pipefail
triple=$1
dir=$2
case "$triple" in
  aarch64-linux-gnu) arch=arm64 qemu=qemu-aarch64 wheel=manylinux2014_aarch64 ;;
  s390x-linux-gnu) arch=s390x qemu=qemu-s390x wheel=manylinux2014_s390x ;;
  *) echo "cross-python.sh: no CPython set up for $triple" >&2; exit 1 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
venv_python="$root/.venv/bin/python"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# The test requirements at the versions of the host's .venv (mypy is left
# out: the stub checks skip without it and run on the host). The second
# group needs MarkupSafe, which publishes no wheel for some CPUs (s390x)
# and whose C speedups are optional: its Python files come from .venv.
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
              { cat; echo "$triple ${pins_with_deps[*]} ${pins_without_deps[*]} $markupsafe_pin"; } |
              sha256sum)
if [ -f "$dir/.complete" ] && [ "$(cat "$dir/.complete")" = "$fingerprint" ]; then
  exit 0
fi
rm -rf "$dir/debs" "$dir/root" "$dir/site" "$dir/pycache" "$dir/.complete"
mkdir -p "$dir/debs" "$dir/root"

# The interpreter, its standard library and headers, and the shared
# libraries of the standard modules the tests reach (the C library comes
# from the multiarch libc6 that install-cross-deps.sh installed).
debs=(python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libpython3.11-dev libexpat1
      zlib1g libffi8 libbz2-1.0 liblzma5 libssl3 libuuid1 libsqlite3-0 libcrypt1)
(cd "$dir/debs" && apt-get download -q "${debs[@]/%/:$arch}" 2>&1) |
  { grep -v '^Get:\|unsandboxed' || true; }
for deb in "${debs[@]}"; do
  compgen -G "$dir/debs/${deb}_*_$arch.deb" >/dev/null ||
    { echo "cross-python.sh: $deb:$arch was not downloaded" >&2; exit 1; }
done
for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root"; done

# LD_LIBRARY_PATH goes to the foreign CPython only (qemu -E): the host's
# shell and qemu, which a test that starts a Python runs again, must not
# load the foreign libraries.
# Bytecode is kept in DIR/pycache whatever PYTHONDONTWRITEBYTECODE says:
# dpkg -x ran no postinst to write the standard library's, and compiling
# every module again on every start is ten times slower under qemu.
cat > "$dir/python" <<EOF
#!/bin/sh
# CPython 3.11 for $triple, from $dir/root, under $qemu.
unset LD_LIBRARY_PATH
PYTHONPYCACHEPREFIX=$dir/pycache PYTHONDONTWRITEBYTECODE= exec $qemu -E LD_LIBRARY_PATH=$dir/root/usr/lib/$triple:$dir/root/lib/$triple \\
  $dir/root/usr/bin/python3.11 "\$@"
EOF
chmod +x "$dir/python"

# Wheels for that CPU (all but MarkupSafe's are pure Python; FastAPI is
# left out, since pydantic-core is not: its tests skip there).
wheels=("$venv_python" -m pip install -q --target "$dir/site" --platform "$wheel"
        --only-binary=:all: --python-version 3.11 --implementation cp)
"${wheels[@]}" "${pins_with_deps[@]}"
"${wheels[@]}" --no-deps "${pins_without_deps[@]}"
host_markupsafe=$("$venv_python" -c "import markupsafe, os; print(os.path.dirname(markupsafe.__file__))")
mkdir -p "$dir/site/markupsafe"
cp "$host_markupsafe"/*.py "$host_markupsafe"/py.typed "$dir/site/markupsafe/"

# Every standard module with a library of its own, and the test packages.
PYTHONPATH="$dir/site" "$dir/python" -c "
import sys, ssl, hashlib, sqlite3, uuid, lzma, bz2, zlib, ctypes, pyexpat
import jinja2, markupsafe, hypothesis, pytest, html5lib, starlette, httpx2, flask, trio, django
print('cross-python.sh:', sys.version.split()[0], sys.byteorder + '-endian', '$triple')"
echo "$fingerprint" > "$dir/.complete"
