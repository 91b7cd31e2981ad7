"""A pytest plugin that runs Jinja2's own test suite with markup.jinja in
place of Jinja2's Environment and Template (scripts/jinja2-suite.sh), and
counts how many of the templates it compiles render on markup's engine."""

import collections

import jinja2

import markup.jinja as mj

_original_from_code = mj._NativeTemplate.from_code.__func__
_seen = collections.Counter()


def _counting_from_code(cls, environment, code, globals, uptodate=None):
    template = _original_from_code(cls, environment, code, globals, uptodate)
    _seen[template.markup_reason if not template.markup_native else None] += 1
    return template


mj._NativeTemplate.from_code = classmethod(_counting_from_code)
jinja2.Environment = mj.Environment
jinja2.Template = mj.Template


def pytest_terminal_summary(terminalreporter):
    total = sum(_seen.values())
    native = _seen.get(None, 0)
    write = terminalreporter.write_line
    write(
        f"markup.jinja: {native} of {total} templates native ({100 * native / max(total, 1):.1f}%)"
    )
    for reason, n in sorted(((r, n) for r, n in _seen.items() if r), key=lambda x: -x[1])[:40]:
        write(f"  {n:5d}  {reason}")
