"""The report names the protocol era each run spoke, read from what the run's messages say of themselves."""

from __future__ import annotations

import json

from backchannel.oracle import judge
from backchannel.oracle.render.json_report import render_json
from backchannel.oracle.session.spoken import run_eras
from tests.oracle.reference import recording


def eras_of(name: str) -> dict[str, str | None]:
    return {entry.name: entry.era for entry in run_eras(recording(name))}


def test_a_client_forced_into_2025_11_25_is_reported_speaking_it_in_every_run():
    eras = eras_of("mrtr-provenance-py-sdk-2025-11-25")
    assert {eras[name] for name in ("control", "probe", "absent")} == {"2025-11-25"}


def test_the_same_client_left_to_negotiate_is_reported_speaking_2026_07_28_and_2025_where_it_was_made_to():
    eras = eras_of("mrtr-provenance-py-sdk")
    assert eras["probe"] == "2026-07-28"
    assert eras["absent-legacy"] == "2025-11-25"  # the legacy-only endpoint of that run


def test_a_2025_06_18_session_is_named_and_the_report_says_how_that_is_known():
    entries = {e.name: e for e in run_eras(recording("mrtr-provenance-ts-sdk-2025-06-18"))}
    assert entries["probe"].era == "2025-06-18"
    assert entries["probe"].era_from == "its MCP-Protocol-Version header"


def test_the_json_report_carries_the_runs_and_their_eras():
    report = json.loads(render_json(judge(recording("elicitation-ui-ts-sdk-2025-11-25"))))
    assert {run["era"] for run in report["runs"] if run["name"] == "contract"} == {"2025-11-25"}
    assert all(set(run) == {"run", "name", "era", "era_from"} for run in report["runs"])
