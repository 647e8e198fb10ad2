"""The check registry: `@check` validates and registers; every module under oracle/checks is found automatically."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable

from .model import Check, CheckFn, Level

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_REGISTRY: dict[str, Check] = {}
_LOADED = False


def check(
    id: str,
    *,
    scenario: str,
    level: Level,
    spec: str,
    title: str,
    cwe: tuple[str, ...] = (),
    probe: bool = False,
) -> Callable[[CheckFn], CheckFn]:
    """Register a check function; its docstring is its documentation."""

    def register(fn: CheckFn) -> CheckFn:
        if not _ID.match(id):
            raise ValueError(f"check id {id!r} is not a kebab-case slug")
        if level not in ("MUST", "SHOULD", "MAY"):
            raise ValueError(f"check {id}: level {level!r} is not MUST, SHOULD or MAY")
        if not spec.startswith("https://"):
            raise ValueError(f"check {id}: spec {spec!r} is not a URL")
        if not (fn.__doc__ or "").strip():
            raise ValueError(f"check {id}: the function needs a docstring saying what it judges")
        if id in _REGISTRY:
            raise ValueError(f"check {id!r} is already registered")
        _REGISTRY[id] = Check(
            id=id,
            scenario=scenario,
            level=level,
            spec=spec,
            title=title,
            doc=(fn.__doc__ or "").strip(),
            fn=fn,
            cwe=cwe,
            probe=probe,
        )
        return fn

    return register


def all_checks() -> dict[str, Check]:
    """Every registered check, by id, in id order."""
    global _LOADED
    if not _LOADED:
        package = importlib.import_module("backchannel.oracle.checks")
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
            if not info.name.startswith("_"):
                importlib.import_module(f"backchannel.oracle.checks.{info.name}")
        _LOADED = True
    return dict(sorted(_REGISTRY.items()))
