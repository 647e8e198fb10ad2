"""The mutation kinds: one module per kind, each exporting its MutationKind subclass as `KIND`.

The registry is this package's modules, found by iterating it: adding a kind is adding one module, never editing a
list. Kinds are listed in module-name order.
"""

from __future__ import annotations

import importlib
import pkgutil

from .base import MutationKind, PlanError

_KINDS: dict[str, type[MutationKind]] | None = None


def kinds() -> dict[str, type[MutationKind]]:
    """Kind name -> its class, for every module of this package that exports KIND."""
    global _KINDS
    if _KINDS is None:
        found: dict[str, type[MutationKind]] = {}
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
            module = importlib.import_module(f"{__name__}.{info.name}")
            kind = getattr(module, "KIND", None)
            if not (isinstance(kind, type) and issubclass(kind, MutationKind)):
                continue
            if not kind.NAME or kind.NAME in found:
                raise ValueError(f"{module.__name__}: mutation kind {kind.NAME!r} is empty or already registered")
            found[kind.NAME] = kind
        _KINDS = found
    return _KINDS


__all__ = ["MutationKind", "PlanError", "kinds"]
