"""Stario 5's markup (CPython >= 3.12): its h.* tree and its @baked.

Stario's API has the same shape as markup's (h.Tag(attrs, *children),
render(), @baked), so the pages are the very builder functions markup's
contenders use, handed Stario's h, render and baked.
"""

from __future__ import annotations

from . import Contender
from .markup_lib import _baked_renderers, _tree_renderers

# Stario escapes only & < > in text and writes &quot; in attributes (quotes
# elsewhere stay raw), and writes void elements as <meta charset="utf-8"/>.
NORMALIZATIONS = ("entities", "quotes", "void-slash")


def baked_contender() -> Contender:
    """Stario @baked"""
    from stario.markup import baked, render
    from stario.markup import html as h

    products, admin = _baked_renderers(h, render, baked)
    return Contender("Stario @baked", "stario", products, admin, NORMALIZATIONS)


def tree_contender() -> Contender:
    """Stario h.* tree"""
    from stario.markup import html as h
    from stario.markup import render

    products, admin = _tree_renderers(h, render)
    return Contender("Stario h.* tree (per call)", "stario", products, admin, NORMALIZATIONS)


FACTORIES = (baked_contender, tree_contender)
