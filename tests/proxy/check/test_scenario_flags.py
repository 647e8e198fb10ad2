"""Scenario-declared flags: every scenario's on `check`, each handed to its own scenario only."""

import inspect

import pytest

from backchannel.proxy.check import scenario_flags
from backchannel.proxy.scenarios.base import CheckError


def test_check_gains_each_declared_flag_and_hands_them_back_as_one_settings_dict():
    seen = {}

    def command(a: int = 1, settings: dict | None = None) -> None:
        seen.update(a=a, settings=settings)

    wrapped = scenario_flags.with_scenario_options(command)
    declared = scenario_flags.scenario_options()
    names = list(inspect.signature(wrapped).parameters)
    assert names[0] == "a" and set(names[1:]) == set(declared) and "settings" not in names
    wrapped(a=2, **{name: option.default for name, (option, _) in declared.items()})
    assert seen["a"] == 2 and set(seen["settings"]) == set(declared)


def test_a_flag_of_another_scenario_given_a_value_is_a_usage_error_and_defaults_pass():
    assert scenario_flags.settings_for("mrtr-provenance", {})["result_type_rule"] == "spec"
    with pytest.raises(CheckError, match="--hold-ms belongs to scenario elicitation-url-mode"):
        scenario_flags.settings_for("mrtr-provenance", {"hold_ms": 1})
    with pytest.raises(CheckError, match="unknown --result-type-rule"):
        scenario_flags.settings_for("mrtr-provenance", {"result_type_rule": "nope"})
