"""The check registry: `@check` validates and registers; every scenario package's checks are found automatically.

Built-in scenarios live under `backchannel.oracle.scenarios.<name>`; a scenario from elsewhere is a package root
`M` with `M.proxy` (its endpoint and runner) and `M.oracle` (its facts and `checks`), named by the
`backchannel.scenarios` entry point group or listed, comma-separated, in the BACKCHANNEL_SCENARIOS variable.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
from collections.abc import Callable
from functools import cache, lru_cache
from importlib.metadata import entry_points
from types import ModuleType

from backchannel.recordings.errors import UserError

from .model import ERAS, MODERN_ERA, Check, CheckFn, Level

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
BUILTIN = "backchannel.oracle.scenarios"
SESSION_PACKAGE = "backchannel.oracle.session"  # the session rules: judged on every recording, of no scenario
SESSION = "session"
ENTRY_POINT_GROUP = "backchannel.scenarios"
ENV_VAR = "BACKCHANNEL_SCENARIOS"
_REGISTRY: dict[str, Check] = {}  # every check registered so far, from any package
_BY_PACKAGE: dict[str, tuple[str, tuple[str, ...]]] = {}  # loaded package -> (its scenario name, its check ids)


class ScenarioError(UserError):
    """A scenario package that cannot be loaded; the message names the package and what is wrong."""


def check(
    id: str,
    *,
    scenario: str,
    level: Level,
    spec: str,
    title: str,
    cwe: tuple[str, ...] = (),
    probe: bool = False,
    also: tuple[str, ...] = (),
    side: str | None = None,
    eras: tuple[str, ...] = (MODERN_ERA,),
) -> Callable[[CheckFn], CheckFn]:
    """Register a check function; its docstring is its documentation.

    `eras` names the protocol eras the check applies to; in a run of any other era the judge reports SKIP
    `not-in-era` in its place, never a verdict. The default is 2026-07-28 alone: a check that says nothing is never
    applied to a 2025 run, so it cannot judge a 2025 client by a 2026 expectation."""

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
        if side not in (None, "client", "server"):
            raise ValueError(f"check {id}: side {side!r} is not client or server")
        if not eras or any(era not in ERAS for era in eras) or len(set(eras)) != len(eras):
            raise ValueError(f"check {id}: eras {eras!r} must name one or more of {', '.join(ERAS)}, once each")

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
            also=also,
            side=side,
            eras=tuple(sorted(eras)),
        )
        return fn

    return register


@cache
def _entry_point_roots() -> tuple[str, ...]:
    # read once per process: scanning every installed distribution's metadata cost more than judging a recording
    return tuple(ep.value for ep in entry_points(group=ENTRY_POINT_GROUP))


def extra_roots() -> tuple[str, ...]:
    """Package roots of scenarios that are not built in: entry points first, then BACKCHANNEL_SCENARIOS."""
    roots = list(_entry_point_roots())
    roots += [part.strip() for part in os.environ.get(ENV_VAR, "").split(",") if part.strip()]
    return tuple(dict.fromkeys(roots))


def scenario_packages() -> tuple[str, ...]:
    """The oracle-side package of every scenario: the built-in ones in name order, then the extra roots'."""
    return _builtin_packages() + tuple(f"{root}.oracle" for root in extra_roots())


@cache
def _builtin_packages() -> tuple[str, ...]:
    # listed once per process: the folder ships with the code, and listing it on every judge cost a tenth of one
    builtin = importlib.import_module(BUILTIN)
    names = sorted(i.name for i in pkgutil.iter_modules(builtin.__path__) if i.ispkg and not i.name.startswith("_"))
    return tuple(f"{BUILTIN}.{name}" for name in names)


def _import(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise ScenarioError(f"cannot import scenario package {name}: {exc}") from exc


def _load_package(package_name: str) -> tuple[str, tuple[str, ...]]:
    """Import one oracle-side scenario package and its checks: (scenario name, check ids)."""
    package = _import(package_name)
    name = getattr(package, "SCENARIO", None)
    if not isinstance(name, str) or not _ID.match(name):
        raise ScenarioError(f"{package_name} must define SCENARIO, the scenario's kebab-case name")
    try:
        checks = importlib.import_module(f"{package_name}.checks")
    except ModuleNotFoundError as exc:
        if exc.name == f"{package_name}.checks":
            return name, ()  # a scenario may have no checks of its own yet
        raise ScenarioError(f"cannot import {package_name}.checks: {exc}") from exc
    ids: list[str] = []
    for info in sorted(pkgutil.iter_modules(checks.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = _import(f"{checks.__name__}.{info.name}")
        ids += [c.id for c in _REGISTRY.values() if c.fn.__module__ == module.__name__]
    for check_id in ids:
        said = _REGISTRY[check_id].scenario
        if said != name:
            raise ScenarioError(f"check {check_id} lives in scenario {name!r}'s package but says scenario={said!r}")
    return name, tuple(ids)


def _active() -> dict[str, tuple[str, tuple[str, ...]]]:
    """The scenario packages in force now (the built-in ones and today's extra roots), loaded once each."""
    active: dict[str, tuple[str, tuple[str, ...]]] = {}
    for package_name in scenario_packages():
        if package_name not in _BY_PACKAGE:
            _BY_PACKAGE[package_name] = _load_package(package_name)
        name, ids = _BY_PACKAGE[package_name]
        twin = next((other for other, (n, _) in active.items() if n == name), None)
        if twin is not None:
            raise ScenarioError(f"scenario {name!r} is defined twice: {twin} and {package_name}")
        active[package_name] = (name, ids)
    return active


def session_checks() -> dict[str, Check]:
    """The session rules (oracle/session/): checks of no scenario's, judged on every recording."""
    if SESSION_PACKAGE not in _BY_PACKAGE:
        _BY_PACKAGE[SESSION_PACKAGE] = _load_package(SESSION_PACKAGE)
    _, ids = _BY_PACKAGE[SESSION_PACKAGE]
    return {check_id: _REGISTRY[check_id] for check_id in sorted(ids)}


def all_checks() -> dict[str, Check]:
    """Every check of the scenarios in force and every session rule, by id, in id order."""
    ids = {check_id for _, checks in _active().values() for check_id in checks} | set(session_checks())
    return {check_id: _REGISTRY[check_id] for check_id in sorted(ids)}


def checks_for(wanted: tuple[str, ...]) -> tuple[Check, ...]:
    """Every check in force that judges a recording of the `wanted` scenarios (its own or one it `also` judges),
    in id order."""
    return _checks_for(scenario_packages(), wanted)


@lru_cache(maxsize=256)
def _checks_for(packages: tuple[str, ...], wanted: tuple[str, ...]) -> tuple[Check, ...]:
    # remembered per set of packages in force: a loaded package's checks never change, and choosing among every
    # check on every judge cost a tenth of a small recording's judging (a package that fails to load is not
    # remembered: it fails again); bounded, since the scenario names come from the recordings
    return tuple(c for c in all_checks().values() if c.scenario in wanted or set(c.also) & set(wanted))


def all_scenarios() -> dict[str, str]:
    """Every scenario the oracle knows, by name: its oracle-side package."""
    return dict(sorted((name, package) for package, (name, _) in _active().items()))
