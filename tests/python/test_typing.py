"""Static typing of the public API: `mypy --strict` accepts the typing
checks (tests/typing) and the example applications (examples/), rejects the
usual mistakes, and the stubs agree with the compiled extension.

mypy reads the package from the source tree (MYPYPATH=pymarkup), so the
stubs checked are the ones in the repository, not an installed copy.
"""

import ast
import importlib.util
import os
import re
import runpy
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import conftest

# The mypy tests skip without mypy (requirements-dev.txt), as on the
# emulated CPUs of `make cross-pytest`; the run-time checks do not need it.
needs_mypy = pytest.mark.skipif(
    importlib.util.find_spec("mypy") is None, reason="mypy is in requirements-dev.txt"
)

ROOT = Path(__file__).resolve().parents[2]
TYPING_DIR = ROOT / "tests" / "typing"
EXAMPLES_DIR = ROOT / "examples"
CACHE_DIR = ROOT / "build" / "mypy-cache" / f"py{sys.version_info[0]}.{sys.version_info[1]}"


def run_mypy(*args, cwd=ROOT):
    env = dict(os.environ, MYPYPATH=str(ROOT / "pymarkup"))
    proc = subprocess.run(
        [
            *conftest.PYTHON,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(CACHE_DIR),
            "--show-error-codes",
            "--no-color-output",
            *args,
        ],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return proc.returncode, proc.stdout + proc.stderr


@needs_mypy
def test_api_checks_pass_mypy_strict():
    code, output = run_mypy(str(TYPING_DIR))
    assert code == 0, f"mypy --strict tests/typing failed:\n{output}"


def test_api_checks_hold_at_run_time():
    # The values behind the annotations: every assert in check_api.main().
    module = runpy.run_path(str(TYPING_DIR / "check_api.py"))
    module["main"]()


# Each line marked `# E: code` must draw that mypy error (`a|b`: either,
# as mypy versions name some errors differently), and no other line may
# draw one: the stubs keep @baked's parameters, the read-only and final
# types, and the return types.
MISTAKES = """
from markup import Comment, Element, SafeString, Tag, baked, escape, h, iter_render, render

@baked
def row(cls: str, product_id: int, *, note: str = "") -> Element:
    return h.Li({"class": cls, "data-id": product_id}, note)

row("item", 7)
row("item", 7, note="x")
row(7, 7)  # E: arg-type
row("item", "7")  # E: arg-type
row("item")  # E: call-arg
row("item", 7, "x")  # E: call-arg|misc
row("item", 7, colour="red")  # E: call-arg
as_int: int = row("item", 7)  # E: assignment
as_element: Element = row("item", 7)  # E: assignment
text_bytes: bytes = render(h.P("x"))  # E: assignment
chunks: str = iter_render(h.P())  # E: assignment
h.Paragraph("x")  # E: attr-defined
h.P("x").tag = "div"  # E: misc
Comment("x").text = "y"  # E: misc
safe: SafeString = "<b>"  # E: assignment
escaped: SafeString = escape("<b>")

class Widget(Element):  # E: misc
    pass

def needs_tag(tag: Tag) -> None: ...
needs_tag("div")  # E: arg-type
"""


@needs_mypy
def test_mypy_rejects_misuse(tmp_path):
    source = textwrap.dedent(MISTAKES)
    expected = {}
    for number, line in enumerate(source.splitlines(), 1):
        if "# E: " in line:
            expected[number] = set(line.split("# E: ")[1].strip().split("|"))
    path = tmp_path / "mistakes.py"
    path.write_text(source)
    code, output = run_mypy(str(path))
    assert code == 1, output

    found = {}
    # By file name: mypy may print the path it cached the module under.
    for number, error_code in re.findall(
        r"mistakes\.py:(\d+): error: .*\[([\w-]+)\]$", output, re.M
    ):
        found.setdefault(int(number), set()).add(error_code)
    missing = {n: c for n, c in expected.items() if not c & found.get(n, set())}
    unexpected = {n: c for n, c in found.items() if n not in expected}
    lines = source.splitlines()
    assert not missing, (
        "mypy accepted:\n" + "\n".join(lines[n - 1] for n in missing) + "\n" + output
    )
    assert not unexpected, (
        "mypy rejected:\n" + "\n".join(lines[n - 1] for n in unexpected) + "\n" + output
    )


def example_targets():
    """Each Python file directly in examples/ and each folder of Python
    files there (examples/c is C), checked one by one: each app has its own
    framework, and two of them may have a module of the same name."""
    targets = []
    if EXAMPLES_DIR.is_dir():
        targets = sorted(
            p
            for p in EXAMPLES_DIR.iterdir()
            if (p.is_file() and p.suffix == ".py") or (p.is_dir() and any(p.rglob("*.py")))
        )
    return targets or [
        pytest.param(None, marks=pytest.mark.skip(reason="examples/ has no Python example"))
    ]


def missing_imports(target):
    """Top-level modules the example imports that this interpreter lacks
    (its framework, its test client), its own modules aside."""
    files = list(target.rglob("*.py")) if target.is_dir() else [target]
    home = target if target.is_dir() else target.parent
    local = {p.stem for p in home.rglob("*.py")} | {p.name for p in home.iterdir() if p.is_dir()}
    names = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return sorted(n for n in names - local if importlib.util.find_spec(n) is None)


@needs_mypy
@pytest.mark.parametrize("target", example_targets(), ids=lambda p: p.name if p else "none")
def test_example_passes_mypy_strict(target):
    missing = missing_imports(target)
    if missing:
        pytest.skip(f"examples/{target.name} needs {', '.join(missing)}, not installed here")
    code, output = run_mypy(target.name, cwd=target.parent)
    assert code == 0, f"mypy --strict examples/{target.name} failed:\n{output}"


@needs_mypy
@pytest.mark.parametrize("framework", ["starlette", "fastapi", "flask", "django"])
def test_framework_module_passes_mypy_strict(framework):
    if importlib.util.find_spec(framework) is None:
        pytest.skip(f"{framework} is not installed here")
    code, output = run_mypy("-m", f"markup.{framework}")
    assert code == 0, f"mypy --strict -m markup.{framework} failed:\n{output}"


@needs_mypy
def test_stubs_match_the_extension(tmp_path):
    """mypy.stubtest: every name, signature and class flag in the stubs as
    the imported extension has it (typing-only names are allowlisted)."""
    import markup

    env = dict(os.environ)
    env.pop("MYPYPATH", None)
    # The markup that pytest imports is the one stubtest must inspect.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(markup.__file__).parents[1])]
        + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    # The @baked tracer (markup._template) is typed by its __init__.pyi, the
    # interface the rest of markup uses; its modules are read for stubtest's
    # walk, not type-checked (the stand-ins' operators are the template
    # language, typed as Any).
    (tmp_path / "stubtest.ini").write_text(
        "[mypy]\n[mypy-markup._template.*]\nignore_errors = True\n"
    )
    proc = subprocess.run(
        [
            *conftest.PYTHON,
            "-m",
            "mypy.stubtest",
            "markup",
            "--allowlist",
            str(TYPING_DIR / "stubtest-allowlist.txt"),
            "--mypy-config-file",
            str(tmp_path / "stubtest.ini"),
            "--ignore-unused-allowlist",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert (
        proc.returncode == 0
    ), f"stubtest found stubs that differ from the extension:\n{proc.stdout}{proc.stderr}"
