"""The contenders: one renderer per page kind for each library.

Each module has a ``contenders()`` function that imports its library and
returns Contender objects; a library that is not installed raises
ImportError there, and load() turns that into a skip with the reason.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib import metadata
from typing import Any, Callable

# Modules in the order their contenders appear in the table.
MODULES = ("markup_lib", "tstrings", "templates", "fstrings", "builders")


@dataclass(frozen=True)
class Contender:
    name: str  # as printed in the table
    library: str  # distribution name, for the version line
    products: Callable[[str, list[dict[str, Any]]], str]
    admin: Callable[[dict[str, Any]], str]
    # Equivalent spellings this library may write (pages.NORMALIZATIONS).
    normalizations: tuple[str, ...] = ()

    def renderer(self, kind: str) -> Callable[..., str]:
        return getattr(self, kind)


def version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "?"


def load(modules: tuple[str, ...] = MODULES) -> tuple[list[Contender], dict[str, str]]:
    """All contenders that import, and {module: reason} for those that do not."""
    found: list[Contender] = []
    skipped: dict[str, str] = {}
    for name in modules:
        module = importlib.import_module(f"{__name__}.{name}")
        for factory in module.FACTORIES:
            try:
                found.append(factory())
            except ImportError as exc:
                skipped[factory.__doc__ or factory.__name__] = f"{type(exc).__name__}: {exc}"
    return found, skipped
