"""Shared fixtures for the markup tests: a Jinja2 environment with
autoescape on (the reference every parity test compares against) and the
hostile values those tests feed through both engines."""

import os
import shlex
import sys

import hypothesis
import jinja2
import markupsafe
import pytest

import markup

# Under an emulator (`make cross-pytest`) sys.executable is a program for
# another CPU, which this machine cannot start: MARKUP_TEST_PYTHON is then
# the command that runs the interpreter under test, and
# MARKUP_TEST_TIME_SCALE how many times slower it runs.
PYTHON = shlex.split(os.environ.get("MARKUP_TEST_PYTHON", "")) or [sys.executable]
TIME_SCALE = float(os.environ.get("MARKUP_TEST_TIME_SCALE", "1"))

# MARKUP_HYPOTHESIS_PROFILE=ci (.ci/run) draws the same examples on every
# run, so that what lands is what was tested; other runs draw new ones,
# which is how the property tests find what no one wrote down.
hypothesis.settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("MARKUP_HYPOTHESIS_PROFILE"):
    hypothesis.settings.load_profile(os.environ["MARKUP_HYPOTHESIS_PROFILE"])


def pytest_report_header(config):
    return f"markup extension: {markup._core.__file__}"


def pytest_configure(config):
    # `make wheel-test` runs this suite against an installed wheel: a markup
    # found anywhere else (the source tree, a build dir) would test the
    # wrong thing.
    installed_in = os.environ.get("MARKUP_TEST_INSTALLED_IN")
    if installed_in:
        where = os.path.realpath(markup.__file__)
        if not where.startswith(os.path.realpath(installed_in) + os.sep):
            raise pytest.UsageError(f"markup imported from {where}, not from {installed_in}")


@pytest.fixture(scope="session")
def jinja_env():
    return jinja2.Environment(autoescape=True)


@pytest.fixture(scope="session")
def jinja(jinja_env):
    """jinja(source, **context) -> the rendered str; templates are cached."""
    cache = {}

    def render(source, **context):
        tpl = cache.get(source)
        if tpl is None:
            tpl = cache[source] = jinja_env.from_string(source)
        return tpl.render(**context)

    return render


# Values that must come out of render() exactly as Jinja2 writes them.
HOSTILE_TEXT = [
    "<script>alert(1)</script>",
    "\"double\" and 'single' quotes",
    "&amp; already escaped &lt;",
    "a & b < c > d",
    "naïve café, Ünïcödé",
    "emoji 🎉 👩‍👩‍👧 and 中文",
    "",
    " ",
    "--> <!-- ]]> </p>",
    "tab\tnewline\nNUL\x00 DEL\x7f",
    "\u2028\u2029\ufeff zero width\u200b",
    "x" * 300 + "<" + "y" * 300,
    '="onerror=alert(1) x="',
    "`backtick` \\ backslash",
]
HOSTILE_NUMBERS = [0, -12, 7, 2**70, 3.5, -0.0, 1e100, float("inf")]
HOSTILE_MARKUP = [
    markupsafe.Markup("<b>bold</b>"),
    markupsafe.Markup("&amp; pre-escaped"),
    markupsafe.Markup(""),
]


class Shouting(str):
    """A str subclass with its own __str__: Jinja2 (through markupsafe)
    writes str(value), not the stored characters."""

    def __str__(self):
        return "LOUD <" + self.upper() + ">"

    __repr__ = str.__repr__


class Quiet(str):
    """A str subclass that keeps str's __str__: its stored characters."""


HOSTILE_STR_SUBCLASSES = [Shouting("a & <b>"), Quiet("q & <i>")]
HOSTILE_VALUES = HOSTILE_TEXT + HOSTILE_NUMBERS + HOSTILE_MARKUP + HOSTILE_STR_SUBCLASSES


def value_id(value):
    text = repr(value)
    return text if len(text) < 30 else text[:27] + "..."


def deep_or_refused(call, arg, want):
    """`call(arg)` on input nested far deeper than any page raises
    RecursionError. CPython 3.14 measures the C stack instead of counting
    calls, so there a nesting the stack affords may also succeed, and must
    then give a result for which `want` is true."""
    try:
        result = call(arg)
    except RecursionError:
        return
    assert sys.version_info >= (3, 14), f"{call.__name__}: expected RecursionError"
    assert want(result)
