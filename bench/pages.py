"""The pages every contender renders, the data handed to them, and what counts as the same output.

Every renderer receives its data per call (nothing is rendered ahead of time)
and returns the whole document as a str, starting with ``<!doctype html>``.
The reference output is what a Jinja2 template with autoescape writes:
markupsafe's entities (``&#34;`` ``&#39;``), attributes in the order the
template writes them, boolean attributes as bare names, no whitespace between
tags.

Attributes are written in alphabetical order on every element, so that
dominate (which sorts attributes) writes the same bytes as everyone else.

This module is imported by compare.py (CPython of .venv) and by
stario_runner.py (the Stario virtualenv), so it uses the standard library only.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

DOCTYPE = "<!doctype html>"


# --- data ---------------------------------------------------------------------------

# Escape-heavy values: every one of & < > " ' appears, in text and attributes.
_HEAVY_NAMES = (
    'Tom & Jerry\'s "Best" <Cheese>',
    "<script>alert('x')</script>",
    'Fish & Chips "Deluxe"',
    "O'Reilly & Sons <Ltd>",
    "Size 10\" > Size 8'",
)
_HEAVY_PRICES = ('< 5 & "cheap"', "&pound;9 > 8", "'1.99' & up", "<b>2.50</b>")


def product_rows(count: int, *, escape_heavy: bool = False) -> list[dict[str, Any]]:
    """Rows of the product list: the shape of Stario's benchmarks/html/compare.py."""
    rows = []
    for i in range(count):
        if escape_heavy:
            name = f"{_HEAVY_NAMES[i % len(_HEAVY_NAMES)]} #{i}"
            price = f"{_HEAVY_PRICES[i % len(_HEAVY_PRICES)]} {i}.99"
        else:
            name = f"Item {i}"
            price = f"{i}.99"
        rows.append({"id": i, "name": name, "price": price, "featured": i % 3 == 0})
    return rows


_ROLES = ("viewer", "editor", "admin", "billing")
_STATUSES = ("active", "invited", "suspended")
_FIRST = ("Ada", "Grace", "Alan", "Edsger", "Barbara", "Ken", "Margaret", "Dennis")
_LAST = ("Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Thompson", "Hamilton", "Ritchie")


def _admin_user(i: int) -> dict[str, Any]:
    first = _FIRST[i % len(_FIRST)]
    last = _LAST[(i * 3) % len(_LAST)]
    name = f"{first} {last}"
    email = f"{first.lower()}.{last.lower()}{i}@acme.io"
    status = _STATUSES[i % len(_STATUSES)]
    if i % 7 == 3:  # one row in seven carries text that must be escaped
        name = f'{first} O\'{last} & <Co> "{i}"'
        email = f'"{first.lower()}&{last.lower()}"{i}@acme.io'
        status = "on <leave> & 'away'"
    return {
        "id": 1000 + i,
        "name": name,
        "email": email,
        "mailto": f"mailto:{email}",
        "role": _ROLES[i % len(_ROLES)],
        "status": status,
        "active": status == "active",
        "last_login": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}",
        "edit_url": f"/users/{1000 + i}",
    }


def admin_data(rows: int = 50) -> dict[str, Any]:
    """The admin page's data: header, navigation, a user table and a form."""
    sections = (
        "Dashboard",
        "Users",
        "Teams",
        "Billing",
        "Audit log",
        "Settings",
        "API keys",
        "Help",
    )
    return {
        "title": "Users \u2014 Acme admin",
        "site": "Acme admin",
        "user_name": "Ada Lovelace",
        "nav": [
            {
                "href": "/admin/" + label.lower().replace(" ", "-"),
                "label": label,
                "current": label == "Users",
            }
            for label in sections
        ],
        "users": [_admin_user(i) for i in range(rows)],
        "csrf_token": "q8Zr1x-2bVd9_0kLm3NpQ7sT",
        "form_name": 'Bob "Bobby" Tables\'); DROP TABLE users;--',
        "form_email": "bob&tables@example.com",
        "roles": [{"value": role, "label": role.title()} for role in _ROLES],
        "selected_role": "editor",
        "notify": True,
        "make_admin": False,
        "can_grant_admin": False,
        "locked": False,
        "footer": "\u00a9 2024 Acme & Co. \u2014 times are UTC",
    }


# --- pages --------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    key: str  # short name used in the table and the JSON
    description: str
    kind: str  # which renderer draws it: "products" or "admin"
    args: tuple[Any, ...] = field(repr=False)  # passed to the renderer per call
    rows: int = 0  # rows in the page, for time per row


def all_pages(scale_sizes: tuple[int, ...] = (10, 100, 1_000, 10_000)) -> list[Page]:
    pages = [
        Page(
            "products",
            "50-row product list, clean text",
            "products",
            ("Products", product_rows(50)),
            50,
        ),
        Page(
            "products-escape",
            "50-row product list, escape-heavy names and prices",
            "products",
            ("Products & <Offers>", product_rows(50, escape_heavy=True)),
            50,
        ),
        Page(
            "admin",
            "admin page: header, nav, 50-row table (1 in 7 escaped), form",
            "admin",
            (admin_data(),),
            50,
        ),
    ]
    pages += [
        Page(
            f"scale-{n}", f"product list, {n:,} rows", "products", ("Products", product_rows(n)), n
        )
        for n in scale_sizes
    ]
    return pages


# --- what counts as the same output -------------------------------------------------
#
# Peers that write other, equivalent spellings are compared through these
# functions, applied to both the reference and the peer's output. Each one is
# a named, minimal rewrite; a contender lists the ones it may need, and the
# table names the ones a page actually needed. Anything else that differs is a
# mismatch and stops the run.

_TAG = re.compile(r"<[^<>]*>")
_ENTITY_SPELLINGS = {
    "&quot;": "&#34;",
    "&#x22;": "&#34;",
    "&#X22;": "&#34;",
    "&#x27;": "&#39;",
    "&#X27;": "&#39;",
    "&apos;": "&#39;",
    "&#x2f;": "/",
    "&#x2F;": "/",
}
_ENTITY = re.compile("|".join(re.escape(k) for k in _ENTITY_SPELLINGS))
_BOOLEAN_ATTRIBUTES = (
    "checked",
    "disabled",
    "required",
    "selected",
    "readonly",
    "multiple",
    "hidden",
)
_BOOLEAN_VALUE = re.compile(r" (%s)=(?:\"\1\"|\"\")" % "|".join(_BOOLEAN_ATTRIBUTES))
_SINGLE_QUOTED = re.compile(r"( [^\s=<>\"']+)='([^']*)'")


def _entities(html: str) -> str:
    """``&quot;`` ``&#x27;`` ``&#x2f;`` (html.escape, MiniJinja, dominate)
    to markupsafe's spelling."""
    return _ENTITY.sub(lambda m: _ENTITY_SPELLINGS[m.group(0)], html)


def _quotes(html: str) -> str:
    """Quotes left raw where HTML allows it: ``'`` anywhere, ``"`` outside tags.

    A peer that escapes only what the syntax requires writes ``it's`` and
    ``say "hi"`` in text and ``title="it's"`` in attributes, where markupsafe
    writes ``&#39;`` and ``&#34;``. Both parse to the same characters.
    """
    html = html.replace("&#39;", "'")
    parts = []
    last = 0
    for tag in _TAG.finditer(html):
        parts.append(html[last : tag.start()].replace("&#34;", '"'))
        parts.append(tag.group(0))
        last = tag.end()
    parts.append(html[last:].replace("&#34;", '"'))
    return "".join(parts)


def _boolean_attributes(html: str) -> str:
    """``checked="checked"`` and ``checked=""`` to the bare ``checked``."""
    return _BOOLEAN_VALUE.sub(r" \1", html)


def _void_slash(html: str) -> str:
    """``<meta charset="utf-8"/>`` and ``<br />`` (XHTML style) to
    ``<meta charset="utf-8">`` and ``<br>``."""
    return re.sub(r" ?/>", ">", html)


def _single_quoted_attributes(html: str) -> str:
    """``class='say "hi"'`` to ``class="say &#34;hi&#34;"``
    (fastcore quotes values holding ``"`` with ``'``)."""
    return _SINGLE_QUOTED.sub(
        lambda m: '%s="%s"' % (m.group(1), m.group(2).replace('"', "&#34;")), html
    )


# Order matters: quotes are decided after the spellings are unified.
def _doctype_case(html: str) -> str:
    return re.sub(r"^<!DOCTYPE html>", "<!doctype html>", html, flags=re.IGNORECASE)


NORMALIZATIONS = {
    "attr-quotes": _single_quoted_attributes,
    "entities": _entities,
    "quotes": _quotes,
    "bool-attrs": _boolean_attributes,
    "void-slash": _void_slash,
    "doctype-case": _doctype_case,
}

NORMALIZATION_DOCS = {
    "attr-quotes": "attribute values in single quotes rewritten to double quotes",
    "entities": "&quot; &#x22; &#x27; &apos; &#x2f; rewritten as &#34; &#39; /",
    "quotes": "' and text \" compared unescaped (peer leaves them raw where HTML allows)",
    "bool-attrs": 'checked="checked" / checked="" compared as bare checked',
    "void-slash": "<br/> and <br /> compared as <br>",
    "doctype-case": "<!DOCTYPE html> compared as <!doctype html>",
}


def normalize(html: str, names: tuple[str, ...] | list[str]) -> str:
    for name, rewrite in NORMALIZATIONS.items():
        if name in names:
            html = rewrite(html)
    return html


class OutputMismatch(Exception):
    pass


def match_output(reference: str, output: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """The normalizations under which output equals reference (``()`` for equal bytes).

    Tries the smallest set first, so the table never claims more than was
    needed. Raises OutputMismatch with a unified diff when no allowed set makes
    the two equal.
    """
    if output == reference:
        return ()
    chosen = [name for name in NORMALIZATIONS if name in allowed]
    if normalize(output, chosen) != normalize(reference, chosen):
        raise OutputMismatch(unified_diff(normalize(reference, chosen), normalize(output, chosen)))
    # drop the ones that were not needed, one at a time
    for name in list(chosen):
        fewer = [n for n in chosen if n != name]
        if normalize(output, fewer) == normalize(reference, fewer):
            chosen = fewer
    return tuple(chosen)


def unified_diff(reference: str, output: str, context: int = 2) -> str:
    """A diff that shows where two one-line documents part: split after each tag."""

    def lines(html: str) -> list[str]:
        return [piece + "\n" for piece in re.split(r"(?<=>)", html) if piece]

    diff = difflib.unified_diff(
        lines(reference), lines(output), "reference", "contender", n=context
    )
    text = "".join(diff)
    return text if len(text) < 6000 else text[:6000] + "\n... (diff cut)\n"
