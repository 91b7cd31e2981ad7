#!/usr/bin/env bash
# Builds the wheel as a user would (`pip wheel .`, isolated build), checks
# what it holds, installs it into a fresh virtualenv and renders a page
# with it from outside the source tree.
#
#   scripts/wheel-check.sh [PYTHON]   # default: python3
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${1:-python3}
wheelhouse=$root/build/wheelhouse
venv=$root/build/wheel-venv
start=$SECONDS

echo "== pip wheel . -w ${wheelhouse#$root/}"
rm -f "$wheelhouse"/markup-*.whl
"$python" -m pip wheel -q --no-deps . -w "$wheelhouse" -Cbuild-dir="$root/build/wheel-build"
wheels=("$wheelhouse"/markup-*.whl)
[ ${#wheels[@]} -eq 1 ] && [ -f "${wheels[0]}" ] || { echo "wheel-check: expected one wheel, got: ${wheels[*]}" >&2; exit 1; }
wheel=${wheels[0]}
echo "built ${wheel#$root/} ($(du -k "$wheel" | cut -f1) KiB)"

# The package, its extension, its stubs and the PEP 561 marker.
"$python" - "$wheel" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
want = ["markup/__init__.py", "markup/_baked.py", "markup/_core.pyi", "markup/py.typed"]
missing = [n for n in want if n not in names]
if not any(n.startswith("markup/_core.") and n.endswith(".so") for n in names):
    missing.append("markup/_core.*.so")
if missing:
    sys.exit(f"wheel-check: the wheel lacks {', '.join(missing)}")
print("wheel holds:", " ".join(sorted(n for n in names if n.startswith("markup/"))))
EOF

echo "== fresh virtualenv ${venv#$root/}, pip install the wheel"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --no-index --no-deps "$wheel"

echo "== import smoke test (from outside the source tree)"
cd "$venv"
"$venv/bin/python" - "$venv" <<'EOF'
import os, sys

import markup
from markup import SafeString, baked, h, render, render_bytes, tojson

venv = os.path.realpath(sys.argv[1])
core = os.path.realpath(markup._core.__file__)
assert core.startswith(venv + os.sep), f"markup._core imported from {core}, not the venv"

@baked
def row(name, price):
    return h.Li({"class": "item"}, h.Span(name), h.Span(price))

page = h.HtmlDocument(
    h.Head(h.Title("Tea & cake")),
    h.Body(
        h.H1("Tea & cake"),
        h.Ul([row("Earl <Grey>", "3.50"), row("Café", 4)]),
        h.Script(tojson({"next": "</script>"})),
    ),
)
expected = (
    "<!doctype html><html><head><title>Tea &amp; cake</title></head><body>"
    "<h1>Tea &amp; cake</h1><ul>"
    '<li class="item"><span>Earl &lt;Grey&gt;</span><span>3.50</span></li>'
    '<li class="item"><span>Café</span><span>4</span></li></ul>'
    '<script>{"next": "\\u003c/script\\u003e"}</script></body></html>'
)
html = render(page)
assert html == expected, f"render gave\n{html}\nexpected\n{expected}"
assert render_bytes(page) == expected.encode("utf-8")
assert isinstance(row("a", "b"), SafeString)
print(f"markup {markup.__version__} from {core}")
print(html)
EOF
echo "wheel-check: OK ($((SECONDS - start))s)"
