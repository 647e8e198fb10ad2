"""The elicitation-url-mode scenario in the 2025 eras, proved on the committed runs of the 2025 contract client
(tests/clients/contract_client_2025.py) and the SDK drivers at check --era 2025-11-25 and 2025-06-18: each break
fails exactly its own check, each check states its era, and the wire carries what 2025-11-25 asks for."""

from __future__ import annotations

from pathlib import Path

import pytest

from backchannel.proxy.scenarios.elicitation_url_mode.references import LEGACY_VARIANTS, REFERENCES
from tests.clients.contract_client_2025 import BREAKS
from tests.clients.recordings import CHECKS, ERA_2025_CHECKS
from tests.oracle.reference import legacy_contract, recording, results

ROOT = Path(__file__).resolve().parents[4]
ALL = CHECKS | ERA_2025_CHECKS
MRTR_ONLY = {
    "sep-2322-client-request-state-echoed",
    "sep-1036-client-held-json-retry-complete",
    "sep-1036-client-held-sse-retry-complete",
}
URL_MODE = {
    "sep-2322-client-constructs-inputs",
    "sep-2322-client-constructs-inputs-mixed",
    "sep-1036-client-no-url-prefetch",
    *ERA_2025_CHECKS,
}
# each deliberate mistake and the one check it breaks (the retry is optional in the spec: WARN, never FAIL)
BREAK_BREAKS = {
    "supports-declared-mode": ("sep-1036-client-supports-declared-mode", "FAIL"),
    "constructs-inputs": ("sep-2322-client-constructs-inputs", "FAIL"),
    "constructs-inputs-mixed": ("sep-2322-client-constructs-inputs-mixed", "FAIL"),
    "missing-mode-is-form": ("sep-1036-client-missing-mode-is-form", "FAIL"),
    "no-url-prefetch": ("sep-1036-client-no-url-prefetch", "FAIL"),
    "wire-schema-valid": ("wire-schema-valid", "FAIL"),
    "url-required-shown": ("sep-1036-client-url-required-urls-shown", "FAIL"),
    "url-required-retried": ("sep-1036-client-url-required-retried", "WARN"),
}


def statuses(name: str) -> dict[str, tuple[str, str | None]]:
    return {check: (r.status, r.reason) for check, r in results(name).items()}


def test_every_break_of_the_2025_client_is_a_declared_reference_invoked_as_the_client_names_it():
    assert set(BREAK_BREAKS) == set(BREAKS)
    assert set(LEGACY_VARIANTS) == {"correct", "correct-2025-06-18", *BREAKS}
    declared = {ref.name: ref for ref in REFERENCES if ref.name.startswith("legacy-contract-")}
    assert set(declared) == {f"legacy-contract-{variant}" for variant in LEGACY_VARIANTS}
    assert declared["legacy-contract-no-url-prefetch"].argv(ROOT)[-2:] == ["--break", "no-url-prefetch"]
    assert {ref.era for ref in declared.values()} == {"2025-11-25", "2025-06-18"}


def test_in_2025_11_25_the_contract_client_passes_every_check_that_applies_and_the_mrtr_ones_skip_saying_why():
    found = statuses(legacy_contract("correct"))
    assert set(found) == ALL
    assert {c: s for c, s in found.items() if c in MRTR_ONLY} == dict.fromkeys(MRTR_ONLY, ("SKIP", "mrtr-only"))
    assert {c: s[0] for c, s in found.items() if c not in MRTR_ONLY} == dict.fromkeys(ALL - MRTR_ONLY, "PASS")


def test_in_2025_06_18_the_url_checks_skip_no_url_mode_and_the_form_ones_still_judge():
    found = statuses(legacy_contract("correct-2025-06-18"))
    assert {c: s for c, s in found.items() if c in URL_MODE} == dict.fromkeys(URL_MODE, ("SKIP", "no-url-mode"))
    assert {c: s[0] for c, s in found.items() if c not in URL_MODE | MRTR_ONLY} == dict.fromkeys(
        ALL - URL_MODE - MRTR_ONLY, "PASS"
    )


@pytest.mark.parametrize("variant", sorted(BREAK_BREAKS))
def test_each_2025_break_breaks_exactly_its_own_check(variant):
    broken, status = BREAK_BREAKS[variant]
    found = {c: s[0] for c, s in statuses(legacy_contract(variant)).items()}
    assert found[broken] == status
    assert {c for c, s in found.items() if s in ("FAIL", "WARN", "ERROR")} == {broken}


def test_2025_11_25_url_requests_carry_an_elicitation_id_and_each_accept_is_followed_by_its_completion():
    rec = recording(legacy_contract("correct"))
    asked = [m for m in rec.messages if m.direction == "to-client" and m.method == "elicitation/create"]
    url_ids = [m.payload["params"]["elicitationId"] for m in asked if m.payload["params"].get("mode") == "url"]
    assert len(url_ids) == 4 and len(set(url_ids)) == 4  # three rounds and the mixed round's link
    completed = [
        m.payload["params"]["elicitationId"]
        for m in rec.messages
        if m.direction == "to-client" and m.method == "notifications/elicitation/complete"
    ]
    # rounds 1 and 2 and the link were accepted (round 3 was declined): each completion led by an unknown id
    assert completed.count("bckch-elicitation-never-issued") == 3
    assert sorted(c for c in completed if c != "bckch-elicitation-never-issued") == sorted(
        set(url_ids) - {_round_three_id(rec)}
    )


def _round_three_id(rec) -> str:
    [declined] = [
        m
        for m in rec.messages
        if m.direction == "to-client"
        and m.method == "elicitation/create"
        and m.payload["params"].get("message", "").startswith("DECLINE:")
    ]
    return declined.payload["params"]["elicitationId"]


def test_2025_06_18_gets_no_url_request_no_elicitation_id_and_no_minus_32042():
    rec = recording(legacy_contract("correct-2025-06-18"))
    asked = [m.payload["params"] for m in rec.messages if m.method == "elicitation/create" and m.kind == "request"]
    assert asked and all(p.get("mode") != "url" and "elicitationId" not in p for p in asked)
    assert not [m for m in rec.messages if m.method == "notifications/elicitation/complete"]
    assert not [m for m in rec.messages if m.kind == "error" and m.payload["error"]["code"] == -32042]


@pytest.mark.parametrize("era", ["2025-11-25", "2025-06-18"])
def test_both_sdk_drivers_in_a_2025_era_fail_nothing_but_the_python_sdks_known_missing_mode_finding(era):
    for client in ("py-sdk", "ts-sdk"):
        found = {c: s[0] for c, s in statuses(f"elicitation-url-mode-{client}-{era}").items()}
        failed = {c for c, s in found.items() if s in ("FAIL", "WARN", "ERROR")}
        assert failed == ({"sep-1036-client-missing-mode-is-form"} if client == "py-sdk" else set()), client
        skipped = MRTR_ONLY | (URL_MODE if era == "2025-06-18" else set())
        assert {c for c, s in found.items() if s == "SKIP"} == skipped, client
