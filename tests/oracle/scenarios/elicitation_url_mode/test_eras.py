"""eras.py: the era each committed run spoke, the modes its initialize declared, and the server requests of a 2025
run paired with the client's answers."""

from backchannel.oracle.scenarios.elicitation_url_mode.eras import (
    asked,
    era_gate,
    initialize_modes,
    notifications,
    run_era,
)
from backchannel.oracle.scenarios.elicitation_url_mode.facts import contract_run
from tests.oracle.reference import contract, legacy_contract, recording


def _run(name: str):
    rec = recording(name)
    run = contract_run(rec)
    assert run is not None
    return rec, run


def test_each_run_names_the_era_it_spoke():
    assert run_era(*_run(contract("correct"))) == "2026-07-28"
    assert run_era(*_run(legacy_contract("correct"))) == "2025-11-25"
    assert run_era(*_run(legacy_contract("correct-2025-06-18"))) == "2025-06-18"
    assert run_era(*_run("elicitation-url-mode-ts-sdk-2025-11-25")) == "2025-11-25"


def test_the_modes_come_from_the_last_initialize():
    modes, init = initialize_modes(*_run(legacy_contract("correct")))
    assert modes == {"form", "url"} and init is not None and init.method == "initialize"
    assert initialize_modes(*_run(legacy_contract("supports-declared-mode")))[0] == set()
    assert initialize_modes(*_run(contract("correct"))) == (set(), None)  # 2026-07-28 declares per request


def test_the_gate_lets_2026_through_and_skips_2025_with_the_eras_reason():
    rec, run = _run(contract("correct"))
    assert era_gate(rec, run, "held_json", mrtr_only=True) is None
    rec, run = _run(legacy_contract("correct"))
    assert era_gate(rec, run, "held_json", mrtr_only=True).reason == "mrtr-only"
    assert era_gate(rec, run, "url_rounds") is None
    rec, run = _run(legacy_contract("correct-2025-06-18"))
    assert era_gate(rec, run, "url_rounds").reason == "no-url-mode"
    assert era_gate(rec, run, "form_only") is None
    rec, run = _run(legacy_contract("supports-declared-mode"))
    skipped = era_gate(rec, run, "form_only")
    assert skipped.reason == "mode-not-declared" and "(2025 has no -32021" in skipped.message


def test_a_2025_tool_call_s_server_requests_pair_with_the_answers_posted_for_them():
    rec, run = _run(legacy_contract("correct"))
    rounds = asked(rec, run, "url_rounds")
    assert [a.result for a in rounds] == [{"action": "accept"}, {"action": "accept"}, {"action": "decline"}]
    assert all(a.answer.jsonrpc_id == a.request.jsonrpc_id for a in rounds)
    assert [a.mode for a in asked(rec, run, "url_and_form")] == ["url", "form"]
    assert len(notifications(rec, run, "notifications/elicitation/complete")) == 6
    rec, run = _run(contract("correct"))
    assert asked(rec, run, "url_rounds") == []  # MRTR: the requests travel in results, not as server requests
