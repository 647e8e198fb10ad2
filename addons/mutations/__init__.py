"""The mutation kinds: one module per kind, each exporting its MutationKind subclass as `KIND`.

The registry is this package's modules, found by iterating it: adding a kind is adding one module, never editing a
list. Kinds are listed in module-name order. A kind's module also declares the records it leaves in an exchange's
`mutations` column (its RECORDS), whose JSON recordings/ derives from their typed fields.
"""

from __future__ import annotations

import importlib
import pkgutil

from backchannel.recordings.mutation_records import MutationRecord

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


def records() -> dict[str, type[MutationRecord]]:
    """Record kind -> its class, for every record some registered kind declares (a record kind names one class)."""
    found: dict[str, type[MutationRecord]] = {}
    for kind in kinds().values():
        for record in kind.RECORDS:
            if found.setdefault(record.KIND, record) is not record:
                raise ValueError(f"{kind.NAME}: mutation record {record.KIND!r} is already declared")
    return found


__all__ = ["MutationKind", "MutationRecord", "PlanError", "kinds", "records"]
