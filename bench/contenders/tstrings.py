"""t-string (PEP 750) libraries, on CPython 3.14 and newer: markup's html()
per call and under @baked, tdom, html-tstring. The pages are in
tstring_pages.py, which only 3.14 can compile; before it, each contender is
skipped with the reason."""

from __future__ import annotations

import sys

from . import Contender


def _pages():
    if sys.version_info < (3, 14):
        raise ImportError("t-strings need CPython 3.14 (make bench-debian runs it)")
    from . import tstring_pages

    return tstring_pages


def markup_contender() -> Contender:
    """markup html() t-string"""
    from markup import html, when

    products, admin = _pages().markup_pages(html, when)
    return Contender("markup html() t-string (per call)", "markup-html", products, admin)


def markup_baked_contender() -> Contender:
    """markup html() t-string under @baked"""
    from markup import baked, html, when

    products, admin = _pages().markup_pages(html, when)
    return Contender(
        "markup html() t-string (@baked)", "markup-html", baked(products), baked(admin)
    )


def tdom_contender() -> Contender:
    """tdom"""
    from tdom import html

    products, admin = _pages().tdom_pages(html)
    return Contender(
        "tdom", "tdom", products, admin, ("entities", "void-slash", "doctype-case", "quotes")
    )


def html_tstring_contender() -> Contender:
    """html-tstring"""
    from html_tstring import html, render_html

    products, admin = _pages().html_tstring_pages(render_html, html)
    return Contender(
        "html-tstring",
        "html-tstring",
        products,
        admin,
        ("entities", "void-slash", "doctype-case", "quotes"),
    )


FACTORIES = (markup_contender, markup_baked_contender, tdom_contender, html_tstring_contender)
