"""The elicitation-url-mode scenario end to end with the contract client.

Every variant was run through the recording proxy against the scripted endpoint and committed as a reference
(scripts/make-reference-recordings); these tests judge those files. Only the timing test runs live here, with the
default five-second holds; tests/e2e/test_url_mode_contract_live.py re-records two variants and compares."""

import json
import time

import pytest

from backchannel.oracle import all_checks, judge
from backchannel.recordings import load
from tests.clients.contract_client import BREAKS
from tests.clients.recordings import BREAK_FAILS, CHECKS, ERA_2025_CHECKS, SCENARIO, URL_CHECKS, run_variant
from tests.oracle.reference import contract, recording, results

WALL_LIMIT_S = 15.0
MARGIN_S = 3.0  # fail while there is still headroom, not at the limit itself
DEFAULT_HOLD_S = 5.0


def statuses(variant: str) -> dict[str, str]:
    """The 2026-07-28 checks' statuses (the 2025-11-25-only ones: test_the_2025_only_checks_skip_...)."""
    return {check: result.status for check, result in results(contract(variant)).items() if check in CHECKS}


def test_the_scenario_has_the_nine_checks_of_this_client_and_two_2025_ones_and_every_break_names_its_own():
    assert {c.id for c in all_checks().values() if c.scenario == SCENARIO} == CHECKS | ERA_2025_CHECKS
    assert set(BREAK_FAILS) == set(BREAKS)
    assert {check for failed in BREAK_FAILS.values() for check in failed} == CHECKS


def test_the_contract_client_passes_all_nine_checks():
    found = {check: r for check, r in results(contract("correct")).items() if check in CHECKS}
    assert set(found) == CHECKS
    assert {check: r.status for check, r in found.items() if r.status != "PASS"} == {}


@pytest.mark.parametrize("variant", ["correct", "form-only", *sorted(BREAK_FAILS)])
def test_the_2025_only_checks_skip_every_2026_variant_with_the_eras_reason(variant):
    found = results(contract(variant))
    wanted = "mode-not-declared" if variant == "form-only" else "removed-in-2026"
    assert {check: (found[check].status, found[check].reason) for check in ERA_2025_CHECKS} == dict.fromkeys(
        ERA_2025_CHECKS, ("SKIP", wanted)
    )
    [run] = recording(contract("correct")).runs
    assert (run.name, run.exit_code) == ("contract", 0)


@pytest.mark.parametrize("variant", sorted(BREAK_FAILS))
def test_each_break_fails_exactly_its_own_checks_and_passes_the_rest(variant):
    got = statuses(variant)
    assert set(got) == CHECKS
    expected = {check: "FAIL" if check in BREAK_FAILS[variant] else "PASS" for check in CHECKS}
    assert got == expected
    [run] = recording(contract(variant)).runs
    assert run.exit_code == 0  # the client made its one mistake and carried on


def test_a_form_only_client_is_skipped_on_the_url_checks_and_never_failed():
    found = {check: r for check, r in results(contract("form-only")).items() if check in CHECKS}
    assert set(found) == CHECKS
    assert {check: (r.status, r.reason) for check, r in found.items() if check in URL_CHECKS} == {
        check: ("SKIP", "mode-not-declared") for check in URL_CHECKS
    }
    assert {check: r.status for check, r in found.items() if check not in URL_CHECKS} == {
        check: "PASS" for check in CHECKS - URL_CHECKS
    }


def test_the_early_closer_fails_both_held_checks():
    got = statuses("held-both")
    assert got["sep-1036-client-held-json-retry-complete"] == "FAIL"
    assert got["sep-1036-client-held-sse-retry-complete"] == "FAIL"


def test_every_tools_call_carries_a_progress_token_and_the_held_sse_retry_gets_progress():
    rec = recording(contract("correct"))
    calls = [m.payload for m in rec.messages if m.direction == "to-server" and m.method == "tools/call"]
    tokens = [call["params"]["_meta"].get("progressToken") for call in calls]
    assert all(tokens) and len(set(tokens)) == len(tokens)
    progressed = {m.payload["params"]["progressToken"] for m in rec.messages if m.method == "notifications/progress"}
    assert progressed and progressed <= set(tokens)


def test_the_held_sse_breaker_closes_only_after_a_keep_alive_reached_it():
    rec = recording(contract("held-sse"))
    [closed] = [x for x in rec.exchanges if x.error]
    kinds = [e.kind for e in rec.sse_events if e.flow_id == closed.flow_id]
    assert "comment" in kinds


def _is_held_retry(body: bytes | None) -> bool:
    """A tools/call of held_json or held_sse that answers the server's request: the retry the endpoint holds."""
    try:
        params = json.loads(body or b"null").get("params") or {}
    except (ValueError, AttributeError):
        return False
    return params.get("name") in ("held_json", "held_sse") and bool(params.get("inputResponses"))


@pytest.mark.live
def test_the_whole_scenario_with_the_default_five_second_holds_finishes_well_inside_fifteen_seconds(tmp_path):
    began = time.monotonic()
    out = run_variant("correct", tmp_path / "default-hold.sqlite", hold_ms=None)
    elapsed = time.monotonic() - began
    rec = load(out)
    [run] = rec.runs
    assert run.detail.facts["hold_ms"] == 5000
    # the two held retries, told by what they call (not by how long they took: on a loaded machine another
    # exchange can take as long), each really waited its whole hold
    held = [x for x in rec.exchanges if _is_held_retry(x.request_body)]
    assert len(held) == 2
    assert all(
        x.t_end is not None and x.t_request is not None and x.t_end - x.t_request >= DEFAULT_HOLD_S - 0.1 for x in held
    )
    judged = {r.id: r.status for r in judge(rec).results if r.scenario != "session"}
    assert judged == {**dict.fromkeys(CHECKS, "PASS"), **dict.fromkeys(ERA_2025_CHECKS, "SKIP")}
    # the scenario itself (first run's start to last run's end, on the recording's clock) keeps its headroom; the
    # whole call (mitmdump and the endpoint starting, beside other tests on a shared core) stays inside the budget
    span = max(r.ended_at or 0.0 for r in rec.runs) - min(r.started_at or 0.0 for r in rec.runs)
    assert span < WALL_LIMIT_S - MARGIN_S, f"the scenario's runs took {span:.1f} s of its {WALL_LIMIT_S} s budget"
    assert elapsed < WALL_LIMIT_S, f"the scenario took {elapsed:.1f} s of its {WALL_LIMIT_S} s budget"
