"""The sdk-regressions reference declarations: each flaw has its build, the careful toy runs in every era, and the
SDK drivers are declared as shipped."""

from __future__ import annotations

from pathlib import Path

from backchannel.proxy.clients.toy_agent_regressions import REGRESSION_FLAWS
from backchannel.proxy.scenarios.sdk_regressions.references import ERAS, REFERENCES

ROOT = Path(__file__).resolve().parents[4]


def test_every_flaw_is_declared_with_its_flag_and_the_careful_toy_in_every_era():
    by_name = {ref.name: ref for ref in REFERENCES}
    for flaw in REGRESSION_FLAWS:
        assert by_name[f"toy-{flaw}"].argv(ROOT)[3:] == ["regressions", "--regression-flaw", flaw, "{url}"]
    assert {by_name[f"toy-careful{'' if e == '2026-07-28' else '-' + e}"].era for e in ERAS} == set(ERAS)
    assert by_name["toy-reuse-declined-2025-06-18"].era == "2025-06-18"


def test_the_sdk_drivers_are_declared_as_shipped():
    names = {ref.name for ref in REFERENCES}
    assert {"py-sdk", "py-sdk-2025-11-25", "ts-sdk", "ts-sdk-2025-11-25"} <= names
