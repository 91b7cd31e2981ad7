#!/usr/bin/env bash
# cross-python.sh TRIPLE DIR - a CPython of another CPU to run the Python
# tests under qemu-user (`make cross-pytest`), made in DIR:
#   DIR/root    Debian's python3.11 for that CPU with its headers and the
#               libraries its modules load, unpacked (dpkg -x), not installed:
#               a multiarch install must have the host's exact version of
#               python3.11, which an up-to-date mirror often does not
#   DIR/site    the test requirements as wheels for that CPU
#   DIR/python  the command that runs it (CPython, through qemu)
# Needs what scripts/install-cross-deps.sh installs (the foreign
# architectures added to dpkg, qemu-user) and the project's .venv (its pip
# fetches the wheels). Does nothing when DIR is already complete.
set -euo pipefail
triple=$1
dir=$2
case "$triple" in
  aarch64-linux-gnu) arch=arm64 qemu=qemu-aarch64 wheel=manylinux2014_aarch64 ;;
  s390x-linux-gnu) arch=s390x qemu=qemu-s390x wheel=manylinux2014_s390x ;;
  *) echo "cross-python.sh: no CPython set up for $triple" >&2; exit 1 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
pip="$root/.venv/bin/python -m pip"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[ -f "$dir/.complete" ] && exit 0

# The interpreter, its standard library and headers, and the shared
# libraries of the standard modules the tests reach (the C library comes
# from the multiarch libc6 that install-cross-deps.sh installed).
rm -rf "$dir/debs" "$dir/root" "$dir/site"
mkdir -p "$dir/debs" "$dir/root"
(cd "$dir/debs" && apt-get download -q \
  "python3.11-minimal:$arch" "libpython3.11-minimal:$arch" "libpython3.11-stdlib:$arch" \
  "libpython3.11-dev:$arch" "libexpat1:$arch" "zlib1g:$arch" "libffi8:$arch" \
  "libbz2-1.0:$arch" "liblzma5:$arch" "libssl3:$arch" "libuuid1:$arch" \
  "libsqlite3-0:$arch" "libcrypt1:$arch" 2>&1 | grep -v '^Get:\|unsandboxed' || true)
for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root"; done

cat > "$dir/python" <<EOF
#!/bin/sh
# CPython 3.11 for $triple, from $dir/root, under $qemu.
exec $qemu -E LD_LIBRARY_PATH=$dir/root/usr/lib/$triple:$dir/root/lib/$triple \\
  $dir/root/usr/bin/python3.11 "\$@"
EOF
chmod +x "$dir/python"

# Wheels for that CPU. MarkupSafe publishes none for some CPUs (s390x) and
# its C speedups are optional, so its Python files come from the host's
# .venv, and the packages that need it are installed without dependencies.
# mypy is left out: the stub checks run on the host only.
wheels="$pip install -q --target $dir/site --platform $wheel --only-binary=:all:
  --python-version 3.11 --implementation cp"
$wheels pytest hypothesis html5lib "starlette==1.10.0" "httpx2==2.16.2" itsdangerous click blinker
host_version() { "$root/.venv/bin/python" -c "import importlib.metadata as m; print(m.version('$1'))"; }
$wheels --no-deps "jinja2==$(host_version jinja2)" "flask==$(host_version flask)" \
  "werkzeug==$(host_version werkzeug)"
host_markupsafe=$("$root/.venv/bin/python" -c "import markupsafe, os; print(os.path.dirname(markupsafe.__file__))")
mkdir -p "$dir/site/markupsafe"
cp "$host_markupsafe"/*.py "$host_markupsafe"/py.typed "$dir/site/markupsafe/"

PYTHONPATH="$dir/site" "$dir/python" -c "import sys, jinja2, markupsafe, hypothesis, pytest; print('cross-python.sh:', sys.version.split()[0], sys.byteorder + '-endian', '$triple')"
touch "$dir/.complete"
