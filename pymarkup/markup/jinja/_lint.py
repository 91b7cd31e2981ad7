"""The lint: each {{ }} of a Jinja2 template that stands where Jinja2's
escaping does not protect the page.

The template's static text is read by libmarkup's HTML tokenizer
(``markup._core._HtmlScan``), following Jinja2's parse: both branches of an
``if`` start where the ``if`` stands, a child template's blocks where its
parent puts them, a macro's body as element content. Nothing here changes
what a template renders.
"""

import argparse
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

import jinja2
from jinja2 import nodes
from markupsafe import escape

from .._core import _HtmlScan

__all__ = ["Finding", "LintError", "LintWarning", "URL_FUNCTIONS", "lint", "main"]

#: Functions whose result may start a URL attribute (their URLs are the
#: application's own): Flask's and Starlette's url_for, Django's url and
#: static.
URL_FUNCTIONS = ("url_for", "url", "static")

#: Attributes whose value is a URL: a value at their start can be a
#: javascript: URL.
URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "xlink:href"})

#: A finding on a line that holds this text (in a Jinja2 comment:
#: ``{# markup-lint: ignore #}``) is not reported.
IGNORE = "markup-lint: ignore"

_HTML_SUFFIXES = frozenset({"html", "htm", "xhtml", "xml", "svg", "jinja", "jinja2", "j2"})


@dataclass(frozen=True)
class Finding:
    """One {{ }} that Jinja2's escaping does not protect where it stands."""

    template: Optional[str]  # the template's name
    filename: Optional[str]  # its file, when the loader has one
    lineno: int
    place: str  # "script", "style", "comment", "tag name", "attribute name",
    #             "unquoted attribute", "event attribute", "URL"
    expression: str  # the {{ }}'s expression, as far as it can be spelled
    message: str  # why it is not protected there
    fix: str  # what to write instead

    def __str__(self) -> str:
        where = self.filename or self.template or "<template>"
        return f"{where}:{self.lineno}: {{{{ {self.expression} }}}} {self.message}; {self.fix}"


class LintWarning(UserWarning):
    """A finding, when the environment's markup_lint is "warn"."""


class LintError(jinja2.TemplateSyntaxError):
    """A template's findings, when the environment's markup_lint is
    "error": raised when the template is loaded, at its first finding."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        first = findings[0]
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        super().__init__(
            f"{{{{ {first.expression} }}}} {first.message}; {first.fix}{more}",
            first.lineno,
            first.template,
            first.filename,
        )
        self.findings = list(findings)


# ---- what is said about each place -----------------------------------------

_RULES = {
    "script": (
        "stands in <script> text, where the browser runs it as JavaScript and no HTML "
        "escaping applies",
        "write it as {{ {expr}|tojson }}, which is safe there, or pass it in a data- attribute",
    ),
    "style": (
        "stands in <style> text, where the browser reads it as CSS and no HTML escaping applies",
        "choose among fixed class names in the template, or pass it in a data- attribute",
    ),
    "comment": (
        "stands inside an HTML comment: never shown on the page, but sent to every client "
        "in its source",
        "move it out of the comment, or into a Jinja2 comment {# #}, which is never sent",
    ),
    "tag name": (
        "stands in a tag name: it decides which element the browser makes",
        "write the tag in the template and choose between fixed tags with {% if %}",
    ),
    "attribute name": (
        "stands where the browser reads attribute names: escaping does not stop a value "
        "from adding any attribute (an onclick)",
        "write the names in the template, or build the attributes with |xmlattr",
    ),
    "unquoted attribute": (
        "is an unquoted attribute value: a space in the value ends it and starts another "
        "attribute (an onclick), escaping or not",
        'quote the value: {attr}="{{ {expr} }}"',
    ),
    "event attribute": (
        "stands in the event handler attribute {attr}: the browser decodes the escapes and "
        "runs the value as JavaScript",
        "pass the value in a data- attribute and read it in the handler (this.dataset), "
        "or write {{ {expr}|tojson }} in a single-quoted attribute",
    ),
    "URL": (
        "starts the URL of {attr}: a javascript: URL runs script whatever the escaping",
        "start the URL in the template (/, https://, mailto:), build it with url_for, or "
        "check its scheme in Python",
    ),
}


def _outer_filter(node: Any) -> Optional[str]:
    # the last filter applied, looking through |safe
    while isinstance(node, nodes.Filter):
        if node.name != "safe":
            return str(node.name)
        node = node.node
    return None


def _is_url_call(node: Any, url_functions: FrozenSet[str]) -> bool:
    if not isinstance(node, nodes.Call):
        return False
    callee = node.node
    name = callee.name if isinstance(callee, nodes.Name) else getattr(callee, "attr", None)
    return name in url_functions


def _places(where: Tuple[str, str, str, str, bool], node: Any, url_functions: Any) -> List[str]:
    """The rules a value at `where` (a _HtmlScan.at()) breaks."""
    place, tag, attr, quote, value_start = where
    filtered = _outer_filter(node)
    if place == "raw_text" and tag in ("script", "style"):
        return [] if tag == "script" and filtered == "tojson" else [tag]
    if place == "comment":
        return ["comment"]
    if place == "tag_name":
        return ["tag name"]
    if place == "attr_name":
        return [] if filtered == "xmlattr" else ["attribute name"]
    if place != "attr_value":
        return []
    found = []
    if not quote:
        found.append("unquoted attribute")
    if attr.startswith("on") and not (filtered == "tojson" and quote == "'"):
        found.append("event attribute")
    if attr in URL_ATTRIBUTES and value_start and not _is_url_call(node, url_functions):
        found.append("URL")
    return found


def _spell(node: Any) -> str:
    """The expression as the template would write it, for messages."""
    if isinstance(node, nodes.Name):
        return str(node.name)
    if isinstance(node, nodes.Const):
        return repr(node.value)
    if isinstance(node, nodes.Getattr):
        return f"{_spell(node.node)}.{node.attr}"
    if isinstance(node, nodes.Getitem):
        return f"{_spell(node.node)}[{_spell(node.arg)}]"
    if isinstance(node, nodes.Filter):
        return f"{_spell(node.node)}|{node.name}"
    if isinstance(node, nodes.Call):
        return f"{_spell(node.node)}(...)"
    return "..."


# ---- following a template ---------------------------------------------------


class _Walk:
    """Follows one template's parse with a scanner, collecting findings."""

    def __init__(self, lint: "_Lint", name: Optional[str], autoescape: bool) -> None:
        self.lint = lint
        self.name = name
        self.autoescape = autoescape
        self.findings: List[Finding] = []
        self.block_scans: Dict[str, Any] = {}  # where each block starts
        self.parent_scans: Optional[Dict[str, Any]] = None  # a child's parent's

    def template(self, tree: Any) -> None:
        for node in tree.body:
            if isinstance(node, nodes.Extends):
                self.parent_scans = self.lint.block_scans(node.template)
        self.body(tree.body, _HtmlScan())

    def body(self, body: Sequence[Any], scan: Any) -> Any:
        for node in body:
            scan = self.node(node, scan)
        return scan

    def node(self, node: Any, scan: Any) -> Any:
        if isinstance(node, nodes.Output):
            for child in node.nodes:
                self.output(child, scan)
        elif isinstance(node, nodes.If):
            after = self.body(node.body, scan.copy())
            for branch in node.elif_:
                self.node(branch, scan.copy())
            self.body(node.else_, scan.copy())
            scan = after
        elif isinstance(node, nodes.For):
            after = self.body(node.body, scan.copy())
            self.body(node.else_, scan.copy())
            scan = after
        elif isinstance(node, nodes.Block):
            if self.parent_scans is not None:
                start = self.parent_scans.get(node.name)
                self.body(node.body, start.copy() if start is not None else _HtmlScan())
            else:
                self.block_scans.setdefault(node.name, scan.copy())
                scan = self.body(node.body, scan)
        elif isinstance(node, (nodes.Macro, nodes.AssignBlock)):
            self.body(node.body, _HtmlScan())  # rendered apart, used as a value
        elif isinstance(node, nodes.CallBlock):
            self.body(node.body, scan.copy())  # caller(): most often where it stands
        elif isinstance(node, (nodes.With, nodes.Scope, nodes.ScopedEvalContextModifier)):
            scan = self.body(node.body, scan)
        elif isinstance(node, (nodes.FilterBlock, nodes.OverlayScope)):
            scan = self.body(node.body, scan)
        return scan

    def output(self, node: Any, scan: Any) -> None:
        if isinstance(node, nodes.TemplateData):
            scan.text(node.data)
            return
        if isinstance(node, nodes.Const):  # the template's own text
            scan.text(str(escape(node.value)) if self.autoescape else str(node.value))
            return
        where = scan.at()
        for place in _places(where, node, self.lint.url_functions):
            message, fix = _RULES[place]
            expression = _spell(node)
            self.findings.append(
                Finding(
                    template=self.name,
                    filename=self.lint.filename,
                    lineno=node.lineno,
                    place=place,
                    expression=expression,
                    message=message.replace("{attr}", where[2]),
                    fix=fix.replace("{attr}", where[2]).replace("{expr}", expression),
                )
            )
        scan.value()


class _Lint:
    """One run over an environment's templates (parents are read once)."""

    def __init__(self, env: Any, url_functions: Iterable[str]) -> None:
        self.env = env
        self.url_functions = frozenset(url_functions)
        self.filename: Optional[str] = None
        self._parents: Dict[str, Dict[str, Any]] = {}

    def autoescape(self, name: Optional[str]) -> bool:
        setting = self.env.autoescape
        return bool(setting(name) if callable(setting) else setting)

    def findings(self, tree: Any, name: Optional[str], source: Optional[str]) -> List[Finding]:
        walk = _Walk(self, name, self.autoescape(name))
        walk.template(tree)
        lines = source.splitlines() if source is not None else []
        return [
            found
            for found in walk.findings
            if not (0 < found.lineno <= len(lines) and IGNORE in lines[found.lineno - 1])
        ]

    def block_scans(self, parent: Any) -> Dict[str, Any]:
        """Where each block of the parent template starts (none when the
        parent is not a constant name or cannot be loaded)."""
        if not isinstance(parent, nodes.Const) or not isinstance(parent.value, str):
            return {}
        name = parent.value
        found = self._parents.get(name)
        if found is None:
            self._parents[name] = {}  # a template that extends itself
            try:
                source, _, _ = _source(self.env, name)
                tree = self.env.parse(source, name)
            except (jinja2.TemplateError, OSError, TypeError):
                return {}
            walk = _Walk(self, name, self.autoescape(name))
            walk.template(tree)
            found = self._parents[name] = {**(walk.parent_scans or {}), **walk.block_scans}
        return found


def lint(
    env: Any, names: Optional[Iterable[str]] = None, *, url_functions: Iterable[str] = URL_FUNCTIONS
) -> List[Finding]:
    """The findings of the environment's templates `names` (by default every
    template its loader lists whose name ends in .html, .htm, .xml, .svg,
    .jinja, .jinja2 or .j2), in order. A template Jinja2 cannot parse
    raises its TemplateSyntaxError. Values whose call is one of
    `url_functions` may start a URL attribute."""
    if not isinstance(env, jinja2.Environment):
        raise TypeError(f"lint() takes a jinja2.Environment, not {type(env).__name__}")
    if names is None:
        names = env.list_templates(filter_func=_looks_html)
    elif isinstance(names, str):
        raise TypeError("lint() takes an iterable of template names, not one str")
    run = _Lint(env, url_functions)
    findings: List[Finding] = []
    for name in names:
        source, filename, _ = _source(env, name)
        run.filename = filename
        findings += run.findings(env.parse(source, name, filename), name, source)
    return findings


def lint_loaded(
    env: Any, tree: Any, name: Optional[str], filename: Optional[str], source: Any
) -> None:
    """The environment's markup_lint applied to a template being loaded."""
    run = _Lint(env, URL_FUNCTIONS)
    run.filename = filename
    findings = run.findings(tree, name, source if isinstance(source, str) else None)
    if not findings:
        return
    if env.markup_lint == "error":
        raise LintError(findings)
    for found in findings:
        warnings.warn(LintWarning(str(found)), stacklevel=2)


def _source(env: Any, name: str) -> Tuple[str, Optional[str], Any]:
    if env.loader is None:
        raise TypeError("no loader for this environment specified")
    return env.loader.get_source(env, name)  # type: ignore[no-any-return]


def _looks_html(name: str) -> bool:
    return any(part.lower() in _HTML_SUFFIXES for part in name.split("/")[-1].split(".")[1:])


def main(argv: Optional[Sequence[str]] = None) -> int:
    """python -m markup.jinja.lint FOLDER...: the findings of the
    templates under the folders; exit status 1 when there are some, 2 when
    a template cannot be parsed."""
    parser = argparse.ArgumentParser(
        prog="python -m markup.jinja.lint",
        description="List each {{ }} of the Jinja2 templates under FOLDER that stands where "
        "Jinja2's escaping does not protect the page (script and style text, comments, "
        "tag and attribute names, unquoted, event-handler and URL attribute values).",
    )
    parser.add_argument("folders", nargs="+", metavar="FOLDER")
    parser.add_argument(
        "--extension",
        action="append",
        default=[],
        metavar="NAME",
        help="a Jinja2 extension the templates use (jinja2.ext.i18n ...); may repeat",
    )
    parser.add_argument(
        "--url-function",
        action="append",
        default=None,
        metavar="NAME",
        help="a function whose result may start a URL attribute "
        f"(default: {', '.join(URL_FUNCTIONS)}); may repeat",
    )
    args = parser.parse_args(argv)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(args.folders),
        extensions=args.extension,
        autoescape=jinja2.select_autoescape(),
    )
    names = env.list_templates(filter_func=_looks_html)
    run = _Lint(env, args.url_function or URL_FUNCTIONS)
    found = 0
    broken = 0
    for name in names:
        source, filename, _ = _source(env, name)
        run.filename = filename
        try:
            tree = env.parse(source, name, filename)
        except jinja2.TemplateSyntaxError as exc:
            print(f"{filename}:{exc.lineno}: cannot be parsed: {exc.message}", file=sys.stderr)
            broken += 1
            continue
        for finding in run.findings(tree, name, source):
            print(finding)
            found += 1
    print(f"{len(names)} templates, {found} findings", file=sys.stderr)
    return 2 if broken else 1 if found else 0
