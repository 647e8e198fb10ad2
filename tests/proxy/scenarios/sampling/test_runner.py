"""sampling end to end: one run of the toy agent's careful sampling client through the real proxy, answered at its
prompts, in 2026-07-28 and in 2025-11-25 (the same requests as server-initiated requests), judged."""

import sys

import pytest

from backchannel.oracle import judge
from backchannel.oracle.scenarios.sampling import payloads
from backchannel.proxy.run.tty import TtyOptions, parse_answer
from backchannel.proxy.scenarios.base import CheckError, CheckOptions
from backchannel.proxy.scenarios.registry import run_check
from backchannel.recordings import load

pytestmark = pytest.mark.live
SCENARIO = "sampling"
TOY = [sys.executable, "-m", "backchannel.proxy.clients.toy_agent", "sampling", "{url}"]
YES = TtyOptions(answers=(parse_answer(r"\[y\]es / \[n\]o: =>y\n"),), piped=True)


@pytest.mark.parametrize(("era", "asked_as"), [("2026-07-28", "response"), ("2025-11-25", "request")])
def test_one_run_calls_every_tool_and_each_sampling_request_carries_the_nonce(tmp_path, era, asked_as):
    out = tmp_path / "sampling.sqlite"
    run_check(SCENARIO, CheckOptions(out=out, client=TOY, tty=YES, era=era), lambda _: None)
    rec = load(out)
    [run] = rec.runs
    assert run.name == "contract" and run.detail.facts["tty"] is False
    called = {
        m.payload["params"]["name"] for m in rec.messages if m.method == "tools/call" and m.direction == "to-server"
    }
    assert called == set(payloads.TOOLS)
    sampled = [m for m in rec.messages if m.direction == "to-client" and "sampling/createMessage" in (m.text or "")]
    assert sampled and all(m.kind == asked_as for m in sampled)
    assert all(payloads.sample_tag(rec.info.nonce) in (m.text or "") for m in sampled)
    statuses = {r.id: r.status for r in judge(rec).results if r.scenario == SCENARIO}
    assert statuses["sampling-human-in-the-loop"] == "PASS" and statuses["sampling-names-requesting-server"] == "PASS"


def test_the_scenario_needs_a_client(tmp_path):
    with pytest.raises(CheckError, match="needs --client"):
        run_check(SCENARIO, CheckOptions(out=tmp_path / "x.sqlite"), lambda _: None)
