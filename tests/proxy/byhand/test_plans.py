"""Which scenarios a person can drive by hand, what each step asks them to do, and what a refused scenario says."""

from __future__ import annotations

import re

import pytest

from backchannel.oracle.detectors.markers import DECOY_FILE
from backchannel.oracle.scenarios.elicitation_ui import payloads
from backchannel.oracle.scenarios.elicitation_ui.attested import NAMES_SERVER, NOTHING_OPENED, URL_SHOWN
from backchannel.proxy.byhand.plans import (
    NOT_BY_HAND,
    PLANS,
    Era,
    NotByHand,
    by_hand_names,
    elicitation_ui,
    mrtr_provenance,
    plan_for,
)
from backchannel.proxy.scenarios.mrtr_provenance.runner import INPUT_KEY
from backchannel.proxy.scenarios.registry import all_scenarios
from backchannel.recordings.errors import UserError


def test_every_by_hand_plan_is_a_registered_scenario_with_at_least_one_step() -> None:
    for name in PLANS:
        assert name in all_scenarios()
        plan = plan_for(name)
        assert plan.scenario == name and plan.steps


def test_a_scenario_that_needs_a_command_is_refused_with_the_ones_that_can_run_by_hand() -> None:
    refused = next(name for name in sorted(all_scenarios()) if name not in PLANS)
    with pytest.raises(NotByHand) as caught:
        plan_for(refused)
    message = str(caught.value)
    assert repr(refused) in message and "--client" in message
    assert "By hand: default, elicitation-ui, elicitation-url-mode, mrtr-provenance, roots, sampling" in message
    assert isinstance(caught.value, UserError)  # the CLI shows it as a usage error, not a traceback


def test_elicitation_ui_asks_for_the_url_tool_then_asks_about_the_server_the_url_and_what_opened() -> None:
    plan = elicitation_ui(Era())
    [step] = plan.steps
    assert step.run == "contract" and step.tool == payloads.URL_TOOL
    assert [q.id for q in step.questions] == [NAMES_SERVER, URL_SHOWN, NOTHING_OPENED]
    names, url, opened = (q.text for q in step.questions)
    assert f"`{plan.server_name}`" in names
    assert f"`{payloads.url(plan.endpoint.nonce)}`" in url
    assert "before you agreed" in opened


def test_mrtr_provenance_asks_for_get_repo_status_and_whether_its_own_server_name_was_shown() -> None:
    plan = mrtr_provenance(Era())
    [step] = plan.steps
    assert step.run == "probe" and step.tool == "get_repo_status"
    [question] = step.questions
    assert question.id == NAMES_SERVER and f"`{plan.server_name}`" in question.text
    assert step.plan  # the probe's injected input request, as a check --client run sends it
    # and a 2025 host gets the same request as a server-initiated one, from an endpoint of the step's own
    assert step.upstream is not None and step.upstream.server_name == plan.server_name
    assert step.upstream.nonce == plan.endpoint.nonce
    assert step.facts == {"decoy": DECOY_FILE, "input_key": INPUT_KEY}


@pytest.mark.parametrize("name", sorted(PLANS))
def test_the_era_and_the_persons_answer_wait_reach_every_endpoint_of_the_plan(name: str) -> None:
    plan = plan_for(name, Era("2025-11-25", answer_timeout_s=123.0))
    endpoints = [plan.endpoint, *(step.upstream for step in plan.steps if step.upstream is not None)]
    assert [(e.era, e.answer_timeout_s) for e in endpoints] == [("2025-11-25", 123.0)] * len(endpoints)
    assert (plan_for(name).endpoint.era, plan_for(name).endpoint.answer_timeout_s) == ("auto", Era().answer_timeout_s)


def test_each_lab_gets_its_own_nonce_so_two_sessions_never_share_a_marker() -> None:
    assert elicitation_ui(Era()).endpoint.nonce != elicitation_ui(Era()).endpoint.nonce
    assert mrtr_provenance(Era()).server_name != mrtr_provenance(Era()).server_name


def test_every_shipped_scenario_either_runs_by_hand_or_says_in_its_own_words_why_not() -> None:
    assert set(all_scenarios()) <= set(by_hand_names()) | set(NOT_BY_HAND)
    assert not set(PLANS) & set(NOT_BY_HAND)
    for name, why in NOT_BY_HAND.items():
        with pytest.raises(NotByHand, match=re.escape(why)):
            plan_for(name)


def test_a_scenario_run_once_against_its_tools_runs_by_hand_one_step_per_tool_in_its_one_run() -> None:
    plan = plan_for("default", Era("2025-11-25"))
    assert [(step.run, step.tool, step.questions) for step in plan.steps] == [("run", "get_repo_status", ())]
    assert plan.endpoint.era == "2025-11-25" and "default" in by_hand_names() and "default" not in PLANS
