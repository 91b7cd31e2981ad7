"""The extension module itself: fresh state on re-import, public names,
signatures, the type stubs (checked with mypy), sub-interpreters."""

import importlib.util
import inspect
import os
import site
import subprocess
import sys
import sysconfig
import textwrap

import pytest

import markup
from markup import _core

import conftest


def _fresh_core():
    """Executes markup._core again from its spec, as a new module object."""
    spec = importlib.util.find_spec("markup._core")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reimport_gives_a_fresh_module():
    again = _fresh_core()
    assert again is not _core
    for name in ("Element", "Tag", "SafeString", "Comment", "h", "render"):
        assert getattr(again, name) is not getattr(_core, name)
    assert again.render(again.h.P("a<b")) == "<p>a&lt;b</p>"
    # the two modules share nothing, but interoperate through __html__
    assert _core.render(_core.h.Div(again.h.P("x"))) == "<div><p>x</p></div>"
    assert again.render(_core.SafeString("<b>")) == "<b>"


def test_fresh_module_survives_its_original_being_dropped():
    again = _fresh_core()
    el = again.h.Span("x")
    del again
    import gc

    gc.collect()
    assert _core.render(_core.h.P(el)) == "<p><span>x</span></p>"


def test_public_names():
    expected = {
        "h",
        "render",
        "render_bytes",
        "SafeString",
        "escape",
        "Comment",
        "Tag",
        "classes",
        "styles",
        "data",
        "aria",
        "tojson",
        "Element",
        "MAX_DEPTH",
    }
    assert expected <= set(markup.__all__)
    for name in markup.__all__:
        assert hasattr(markup, name), name
    assert markup.MAX_DEPTH == 1024
    assert _core.libmarkup_version.count(".") == 2


def test_version_is_the_one_in_VERSION():
    """VERSION is the one place the version is written: the extension (and
    through it markup.__version__) and the installed metadata carry it."""
    import importlib.metadata
    from pathlib import Path

    written = (Path(__file__).resolve().parents[2] / "VERSION").read_text().strip()
    assert markup.__version__ == _core.libmarkup_version == written
    try:
        installed = importlib.metadata.version("markup-html")
    except importlib.metadata.PackageNotFoundError:  # a CMake build on PYTHONPATH
        installed = written
    assert installed == written


def test_types_live_in_markup():
    for cls in (markup.Element, markup.Tag, markup.SafeString, markup.Comment):
        assert cls.__module__ == "markup"
    assert type(markup.h).__name__ == "TagNamespace"


@pytest.mark.parametrize(
    "fn,params",
    [
        (markup.render, ["node", "nodes"]),
        (markup.render_bytes, ["node", "nodes"]),
        (markup.escape, ["s"]),
    ],
)
def test_signatures_are_introspectable(fn, params):
    assert list(inspect.signature(fn).parameters) == params


@pytest.mark.skipif(sys.version_info < (3, 10), reason="3.9 heap types lack __text_signature__")
def test_type_signatures_are_introspectable():
    assert markup.Tag.__text_signature__ == "(name)"
    assert markup.Comment.__text_signature__ == "(text)"
    assert markup.SafeString.__text_signature__ == "(object='', encoding=None, errors='strict')"
    assert list(inspect.signature(markup.Tag).parameters) == ["name"]


@pytest.mark.skipif(sys.version_info < (3, 10), reason="Py_TPFLAGS_IMMUTABLETYPE is 3.10+")
def test_types_are_immutable():
    for cls in (markup.Element, markup.Tag, markup.Comment):
        with pytest.raises(TypeError):
            cls.extra = 1
    with pytest.raises(TypeError):

        class Sub(markup.Tag):
            pass


def test_free_threaded_builds_run_markup_with_the_gil():
    # markup declares no Py_mod_gil (docs/design.md, "Threads without a
    # GIL"): a free-threaded interpreter turns its GIL on when it is imported.
    if not sysconfig.get_config_var("Py_GIL_DISABLED"):
        pytest.skip("not a free-threaded build (none is available on the project machine)")
    assert sys._is_gil_enabled()


@pytest.mark.skipif(sys.version_info < (3, 12), reason="per-interpreter GIL needs 3.12")
def test_import_in_isolated_subinterpreter():
    try:
        import _interpreters as interpreters  # 3.13
    except ImportError:
        try:
            import _xxsubinterpreters as interpreters  # 3.12
        except ImportError:
            pytest.skip("no sub-interpreter module")
    code = textwrap.dedent("""
        from markup import h, render
        assert render(h.P("a<b")) == "<p>a&lt;b</p>"
    """)
    interp = interpreters.create()
    try:
        result = interpreters.run_string(interp, code)
        assert result is None, result
    finally:
        interpreters.destroy(interp)


def test_stubs_type_check_with_mypy(tmp_path):
    pytest.importorskip("mypy")
    package_root = os.path.dirname(os.path.dirname(markup.__file__))
    good = tmp_path / "good.py"
    good.write_text(
        textwrap.dedent("""
        from markup import h, render, render_bytes, SafeString, escape, Tag, classes
        page = h.Div({"class": "x"}, classes("a"), h.P("t", 1, None, [h.I()]), id="m")
        s: str = render(page)
        b: bytes = render_bytes(page)
        e: SafeString = escape("<")
        w = Tag("my-widget")("x")
        tag: str = w.tag
    """)
    )
    bad = tmp_path / "bad.py"
    bad.write_text(
        textwrap.dedent("""
        from markup import h, render
        n: int = render(h.P("x"))
        h.Dvi("typo")
    """)
    )
    env = dict(os.environ)
    if package_root not in site.getsitepackages():  # e.g. PYTHONPATH=build/asan-py/python
        env["MYPYPATH"] = package_root
    cmd = [
        *conftest.PYTHON,
        "-m",
        "mypy",
        "--no-incremental",
        "--strict",
        "--follow-imports=silent",
        "--cache-dir",
        str(tmp_path / "cache"),
    ]
    ok = subprocess.run(cmd + [str(good)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    ko = subprocess.run(cmd + [str(bad)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert ko.returncode == 1
    assert "Incompatible types in assignment" in ko.stdout
    assert '"TagNamespace" has no attribute "Dvi"' in ko.stdout
