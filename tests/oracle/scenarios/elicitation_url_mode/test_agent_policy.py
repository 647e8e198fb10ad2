"""A coding agent answers the rounds by its own policy: the contract's accept/decline is not held against it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from backchannel.oracle.registry import all_checks
from backchannel.recordings import load
from backchannel.recordings.model import Recording

REFERENCE = Path(__file__).parents[4] / "recordings" / "reference"
CHECK = "sep-2322-client-constructs-inputs"


def _judge(rec: Recording) -> list[tuple[str, str]]:
    return [(f.status, f.reason or "") for f in all_checks()[CHECK].fn(rec)]


def _as_agent(rec: Recording) -> Recording:
    runs = tuple(
        dataclasses.replace(r, detail=dataclasses.replace(r.detail, facts={**r.detail.facts, "agent": "claude-code"}))
        for r in rec.runs
    )
    return dataclasses.replace(rec, runs=runs)


def test_a_contract_client_that_accepts_where_the_contract_says_decline_fails():
    rec = load(REFERENCE / "elicitation-url-mode-legacy-contract-constructs-inputs.sqlite")
    assert [status for status, _ in _judge(rec)] == ["FAIL"]


def test_the_same_answers_from_a_coding_agent_are_skipped_as_its_own_policy_never_failed():
    rec = _as_agent(load(REFERENCE / "elicitation-url-mode-legacy-contract-constructs-inputs.sqlite"))
    assert _judge(rec) == [("SKIP", "agent-answers-by-its-own-policy")]
