"""What a scenario declares about its reference recordings, and how the registry collects the declarations."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from backchannel.proxy.agents.recipe import shipped_recipes
from backchannel.proxy.scenarios import registry
from backchannel.proxy.scenarios.base import CheckError, Scenario
from backchannel.proxy.scenarios.references import Reference, ScenarioReference, answered, coding_agents, toy
from backchannel.proxy.scenarios.registry import all_references, all_scenarios

ROOT = Path(__file__).resolve().parents[3]


def test_a_declared_reference_names_its_files_after_its_scenario():
    ref = Reference("toy-x", toy("--fix", "provenance"), True, "a note")
    assert ScenarioReference("mrtr-provenance", ref).stem == "mrtr-provenance-toy-x"
    assert ref.argv(ROOT) == [sys.executable, "-m", "backchannel.proxy.clients.toy_agent", "--fix", "provenance"]
    assert answered((r"a\? =>y\n",), piped=True).piped


def test_the_registry_collects_every_scenarios_declarations_in_scenario_order_and_skips_one_without_any():
    found = all_references()
    scenarios = [ref.scenario for ref in found]
    assert scenarios == sorted(scenarios)  # grouped by scenario, in name order
    assert set(scenarios) == set(all_scenarios()) - {"default"}  # default has no references.py
    assert all(ref.stem == f"{ref.scenario}-{ref.reference.name}" for ref in found)


def test_every_shipped_coding_agent_has_a_reference_named_after_it_that_runs_its_recipe():
    expected = [(f"agent-{name}", name, False) for name in sorted(shipped_recipes())]
    assert [(r.name, r.agent, r.discover) for r in coding_agents()] == expected


def test_a_coding_agent_reference_is_not_installed_when_the_agent_is_missing_from_the_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    monkeypatch.setenv("BACKCHANNEL_CLIENTS", str(tmp_path))  # an empty cache: no agent installed
    assert [ref.argv(ROOT) for ref in coding_agents()] == [None] * len(shipped_recipes())


def test_the_extra_root_recipe_scenario_declares_none_and_still_loads(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("BACKCHANNEL_SCENARIOS", "tests.scenario_recipe.echo_once")
    assert "echo-once" in all_scenarios()
    assert "echo-once" not in {ref.scenario for ref in all_references()}


def _fake_package(monkeypatch: pytest.MonkeyPatch, references: object) -> None:
    package = types.ModuleType("fake_scenario")
    package.__path__ = []  # a package, so find_spec looks for its references module
    package.SCENARIO = Scenario(name="fake", description="")  # type: ignore[attr-defined]
    module = types.ModuleType("fake_scenario.references")
    module.REFERENCES = references  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_scenario", package)
    monkeypatch.setitem(sys.modules, "fake_scenario.references", module)
    monkeypatch.setattr(registry, "_packages", lambda: ["fake_scenario"])
    monkeypatch.setattr(registry.importlib.util, "find_spec", lambda name: object())


def test_references_that_are_not_a_tuple_of_reference_are_refused(monkeypatch: pytest.MonkeyPatch):
    _fake_package(monkeypatch, ["not", "references"])
    with pytest.raises(CheckError, match="must define a module-level REFERENCES, a tuple of Reference"):
        all_references()


def test_one_file_declared_twice_is_refused(monkeypatch: pytest.MonkeyPatch):
    ref = Reference("twice", toy(), True, "note")
    _fake_package(monkeypatch, (ref, ref))
    with pytest.raises(CheckError, match="'fake-twice' is declared twice"):
        all_references()
