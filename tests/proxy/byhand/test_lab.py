"""A by-hand lab with its real proxy and endpoint: the host keeps one URL, and what it sends lands in whichever run
the lab made current, decided on the server side; a wait for a call is bounded and says what came instead."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from backchannel.proxy.byhand.lab import ByHandLab, Seen, seen_summary
from backchannel.proxy.byhand.plans import ByHandPlan, Era, Step, elicitation_ui, plan_for
from backchannel.recordings import load

pytestmark = pytest.mark.live

WAIT_S = 10.0  # every wait in these tests is bounded by this


def _two_steps() -> ByHandPlan:
    endpoint = elicitation_ui(Era()).endpoint
    return ByHandPlan("elicitation-ui", endpoint, (Step("first", "a_tool", ()), Step("second", "b_tool", ())))


def _post(url: str, method: str, params: dict[str, object] | None = None) -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    headers = {"Accept": "application/json, text/event-stream"}
    httpx.post(url, json=message, headers=headers, timeout=WAIT_S)  # whatever the endpoint answers: the wire has it


def test_the_stable_url_reaches_the_current_run_and_after_advance_the_next_one(tmp_path: Path) -> None:
    plan = _two_steps()
    with ByHandLab(plan, tmp_path / "rec.sqlite") as lab:
        url = lab.url
        first = lab.run
        assert first is not None  # entering the lab made step 1's run current
        _post(url, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t"}})
        assert lab.wait_for_call("b_tool", 0.5) == Seen(False, ("initialize",))
        second = lab.advance(plan.steps[1])
        assert lab.url == url and second.id != first.id  # the host's URL never changes
        _post(url, "tools/call", {"name": "b_tool", "arguments": {}})
        assert lab.wait_for_call("b_tool", WAIT_S).called
    rec = load(tmp_path / "rec.sqlite")
    assert [run.name for run in rec.runs] == ["first", "second"]
    assert [m.method for m in rec.messages_in(first.id) if m.direction == "to-server"] == ["initialize"]
    assert [m.method for m in rec.messages_in(second.id) if m.direction == "to-server"] == ["tools/call"]
    assert all(run.detail.facts.get("by_hand") for run in rec.runs)


def test_a_wait_with_nothing_sent_ends_in_its_bound_and_says_nothing_came(tmp_path: Path) -> None:
    with ByHandLab(_two_steps(), tmp_path / "rec.sqlite") as lab:
        started = time.monotonic()
        seen = lab.wait_for_call("a_tool", 0.5)
        assert time.monotonic() - started < WAIT_S
    assert seen == Seen(False, ())
    assert "nothing at all" in seen_summary(seen)


def test_an_answer_is_kept_as_a_persons_attestation_of_the_current_run(tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n"
    before = time.time()
    with ByHandLab(_two_steps(), tmp_path / "rec.sqlite") as lab:
        run = lab.run
        assert run is not None
        lab.attest("names-requesting-server", "Did the app name the server?", "n", (png, "image/png"))
    [kept] = load(tmp_path / "rec.sqlite").attestations
    assert (kept.run_id, kept.question_id, kept.answer, kept.who) == (run.id, "names-requesting-server", "n", "person")
    assert kept.screenshot == png and kept.screenshot_type == "image/png"
    assert kept.t is not None and kept.t >= before


def test_seen_summary_names_the_last_methods_the_host_sent() -> None:
    methods = tuple(f"m{i}" for i in range(10))
    assert seen_summary(Seen(False, methods), limit=3) == "m7, m8, m9"


def test_a_2025_host_keeps_its_session_across_steps_and_each_call_lands_in_the_run_current_when_it_came(
    tmp_path: Path,
) -> None:
    """A legacy host initializes once (step 1) and sends its Mcp-Session-Id with every later request; the lab's
    endpoint serves every run, so the session is still known after `advance`: the host never has to reconnect."""
    plan = _two_steps()
    legacy = {"MCP-Protocol-Version": "2025-06-18", "Accept": "application/json, text/event-stream"}
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}
    with ByHandLab(plan, tmp_path / "rec.sqlite") as lab:
        first = lab.run
        assert first is not None
        made = httpx.post(lab.url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
                          headers=legacy, timeout=WAIT_S)  # fmt: skip
        session = made.headers.get("mcp-session-id")
        assert made.status_code == 200 and session
        headers = {**legacy, "Mcp-Session-Id": session}
        httpx.post(lab.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers,
                   timeout=WAIT_S)  # fmt: skip
        second = lab.advance(plan.steps[1])
        listed = httpx.post(lab.url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers,
                            timeout=WAIT_S)  # fmt: skip
        assert listed.status_code == 200, listed.text
        assert "connect_account" in listed.text  # the scenario's tools, in the same session
    rec = load(tmp_path / "rec.sqlite")
    sent = {run.id: [m.method for m in rec.messages_in(run.id) if m.direction == "to-server"] for run in rec.runs}
    assert sent == {first.id: ["initialize", "notifications/initialized"], second.id: ["tools/list"]}


def test_a_step_of_the_run_already_current_goes_on_in_it_and_a_new_run_name_starts_one(tmp_path: Path) -> None:
    endpoint = elicitation_ui(Era()).endpoint
    steps = (Step("contract", "a_tool", ()), Step("contract", "b_tool", ()), Step("other", "c_tool", ()))
    plan = ByHandPlan("elicitation-ui", endpoint, steps)
    with ByHandLab(plan, tmp_path / "rec.sqlite") as lab:
        first = lab.run
        assert lab.advance(steps[1]) is first  # the same run: a scenario whose one run calls several tools
        assert lab.advance(steps[2]) is not first
    assert [run.name for run in load(tmp_path / "rec.sqlite").runs] == ["contract", "other"]


def test_a_plans_url_servers_run_with_the_lab_and_record_each_hit_in_the_run_current_when_it_came(
    tmp_path: Path,
) -> None:
    plan = plan_for("elicitation-url-mode", Era())
    with ByHandLab(plan, tmp_path / "rec.sqlite") as lab:
        run = lab.run
        assert run is not None
        base = {name: f"http://127.0.0.1:{port}" for name, port in _ports(lab).items()}
        assert set(base) == {"declined", "accepted"}
        assert httpx.get(f"{base['accepted']}/landing", timeout=WAIT_S).status_code == 200
        url = lab.url
    rec = load(tmp_path / "rec.sqlite")
    [hit] = rec.url_hits
    assert (hit.run_id, hit.server, hit.path) == (run.id, "accepted", "/landing")
    [made] = rec.runs
    assert made.detail.facts["url_base"] == base["accepted"] and made.detail.facts["hold_ms"] == plan.hold_ms
    for address in (*base.values(), url):  # the servers and the stable URL end with the lab
        with pytest.raises(httpx.TransportError):
            httpx.get(address, timeout=2.0)


def _ports(lab: ByHandLab) -> dict[str, int]:
    return {server.name: server.port for server in lab._servers}
