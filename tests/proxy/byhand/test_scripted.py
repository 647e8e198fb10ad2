"""A by-hand session a script plays: the toy agent's terminal client as the host, the person's answers given in
advance. Its answers are kept exactly as the guide keeps a person's, and a host that never calls, or answers that do
not fit the plan's questions, stop it with why."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.proxy.byhand.plans import Era, plan_for
from backchannel.proxy.byhand.scripted import ScriptedHost, ScriptedHostError, play
from backchannel.recordings import load

pytestmark = pytest.mark.live

TOY = [sys.executable, "-m", "backchannel.proxy.clients.toy_agent"]


def test_the_answers_are_kept_in_question_order_and_judged_as_a_persons(tmp_path: Path) -> None:
    host = ScriptedHost([*TOY, "ui", "{url}"], answers=("y", "?", "n"), stdin="n\n")
    out = play(plan_for("elicitation-ui", Era()), tmp_path / "r.sqlite", host)
    rec = load(out)
    assert [(a.question_id, a.answer, a.who) for a in rec.attestations] == [
        ("names-requesting-server", "y", "person"),
        ("url-shown-before-consent", "?", "person"),
        ("nothing-opened-before-consent", "n", "person"),
    ]
    results = {r.id: (r.status, r.attested) for r in judge(rec).results if r.id.startswith("by-hand-")}
    assert results == {
        "by-hand-names-requesting-server": ("PASS", True),
        "by-hand-url-shown-before-consent": ("WARN", True),
        "by-hand-nothing-opened-before-consent": ("PASS", True),
    }


def test_answers_that_do_not_fit_the_questions_are_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(ScriptedHostError, match="2 answer\\(s\\) for 3 question\\(s\\) of elicitation-ui"):
        play(plan_for("elicitation-ui", Era()), tmp_path / "r.sqlite", ScriptedHost(["true"], answers=("y", "y")))
    assert not (tmp_path / "r.sqlite").exists()


def test_a_host_that_never_calls_the_steps_tool_stops_the_session_with_why(tmp_path: Path) -> None:
    host = ScriptedHost([*TOY, "version"], answers=("y",), timeout=1.0)
    with pytest.raises(ScriptedHostError, match="step 1: the host never called get_repo_status"):
        play(plan_for("mrtr-provenance", Era()), tmp_path / "r.sqlite", host)


def test_the_default_scenario_by_hand_records_the_hosts_call_in_its_one_run_for_the_wire_to_judge(
    tmp_path: Path,
) -> None:
    host = ScriptedHost([*TOY, "--fix", "provenance", "mcp", "call", "{url}", "get_repo_status"], answers=())
    rec = load(play(plan_for("default", Era()), tmp_path / "r.sqlite", host))
    [run] = rec.runs
    assert run.name == "run" and run.detail.facts.get("by_hand") is True
    assert any(m.method == "tools/call" for m in rec.messages_in(run.id))
    judged = {r.id: r.status for r in judge(rec).results}
    assert judged["session-client-wire-schema-valid"] == "PASS"
