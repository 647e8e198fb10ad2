"""The scenario registry, proxy side: every package under `backchannel.proxy.scenarios`, plus the extra roots.

The oracle's registry (`backchannel.oracle.registry`) finds the same scenarios' checks; `scenario_names()` is the
one list that `check`, `serve`, `record`, `checks` and the docs show, and a test keeps the two sides equal.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from pathlib import Path

from backchannel.oracle.registry import all_scenarios as oracle_scenarios
from backchannel.oracle.registry import extra_roots
from backchannel.proxy.scenarios.base import CheckError, CheckOptions, Progress, Scenario
from backchannel.proxy.scenarios.references import Reference, ScenarioReference

BUILTIN = "backchannel.proxy.scenarios"


def _packages() -> list[str]:
    builtin = importlib.import_module(BUILTIN)
    names = sorted(i.name for i in pkgutil.iter_modules(builtin.__path__) if i.ispkg and not i.name.startswith("_"))
    return [f"{BUILTIN}.{name}" for name in names] + [f"{root}.proxy" for root in extra_roots()]


def _loaded() -> list[tuple[str, Scenario]]:
    """Every scenario package's name and SCENARIO, in package order.

    Raises:
        CheckError: a scenario package cannot be imported, has no `SCENARIO`, or repeats another's name.
    """
    found: dict[str, Scenario] = {}
    loaded = []
    for package_name in _packages():
        try:
            module = importlib.import_module(package_name)
        except ImportError as exc:
            raise CheckError(f"cannot import scenario package {package_name}: {exc}") from exc
        scenario = getattr(module, "SCENARIO", None)
        if not isinstance(scenario, Scenario):
            raise CheckError(f"{package_name} must define a module-level SCENARIO of type Scenario")
        if scenario.name in found:
            raise CheckError(f"scenario {scenario.name!r} is defined twice (again in {package_name})")
        found[scenario.name] = scenario
        loaded.append((package_name, scenario))
    return loaded


def all_scenarios() -> dict[str, Scenario]:
    """Every scenario by name, in name order.

    Raises:
        CheckError: a scenario package cannot be imported, has no `SCENARIO`, or repeats another's name.
    """
    return dict(sorted((scenario.name, scenario) for _, scenario in _loaded()))


def all_references() -> list[ScenarioReference]:
    """Every reference recording the scenarios declare (each package's `references.py`, if it has one), in scenario
    name order and then as declared.

    Raises:
        CheckError: a scenario package is broken, its `references.py` cannot be imported or holds no tuple of
            Reference named REFERENCES, or two declarations name the same file.
    """
    found: dict[str, ScenarioReference] = {}
    for package_name, scenario in sorted(_loaded(), key=lambda loaded: loaded[1].name):
        module_name = f"{package_name}.references"
        if importlib.util.find_spec(module_name) is None:
            continue  # a scenario with no committed references
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise CheckError(f"cannot import {module_name}: {exc}") from exc
        declared = getattr(module, "REFERENCES", None)
        if not isinstance(declared, tuple) or not all(isinstance(ref, Reference) for ref in declared):
            raise CheckError(f"{module_name} must define a module-level REFERENCES, a tuple of Reference")
        for ref in declared:
            named = ScenarioReference(scenario.name, ref)
            if named.stem in found:
                raise CheckError(f"reference {named.stem!r} is declared twice (again in {module_name})")
            found[named.stem] = named
    return list(found.values())


def scenario_names() -> list[str]:
    """The names every command lists: the proxy side's, which a test proves equal to the oracle side's."""
    return list(all_scenarios())


def get_scenario(name: str) -> Scenario:
    scenarios = all_scenarios()
    if name not in scenarios:
        raise CheckError(f"unknown scenario {name!r}; known: {', '.join(scenarios)}")
    return scenarios[name]


def side_of(name: str) -> str:
    """Which party the named scenario tests ("client" or "server"); one this installation does not know (or cannot
    load) counts as a client scenario."""
    try:
        known = all_scenarios().get(name)
    except CheckError:
        return "client"
    return known.side if known is not None else "client"


def missing_oracle_side() -> list[str]:
    """Scenarios with a proxy side but no oracle side (each needs both, even with no checks yet)."""
    judged = oracle_scenarios()
    return [name for name in all_scenarios() if name not in judged]


def run_check(name: str, options: CheckOptions, progress: Progress) -> Path:
    """Run the named scenario into `options.out` (what `backchannel check` does before it judges)."""
    return get_scenario(name).run(options, progress)
