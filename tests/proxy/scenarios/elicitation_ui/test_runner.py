"""elicitation-ui end to end: one client run through the real proxy, piped or under a terminal, judged."""

import sys

import pytest

from backchannel.oracle import judge
from backchannel.oracle.scenarios.elicitation_ui import payloads
from backchannel.proxy.run.tty import TtyOptions
from backchannel.proxy.scenarios.base import CheckError, CheckOptions
from backchannel.proxy.scenarios.registry import run_check
from backchannel.recordings import load

pytestmark = pytest.mark.live
SCENARIO = "elicitation-ui"
DRIVER = [sys.executable, "-m", "backchannel.proxy.clients.drivers.py_sdk", "{url}"]


def test_one_contract_run_calls_every_tool_and_the_nonce_reaches_the_texts(tmp_path):
    out = tmp_path / "ui.sqlite"
    run_check(SCENARIO, CheckOptions(out=out, client=DRIVER), lambda _: None)
    rec = load(out)
    [run] = rec.runs
    assert run.name == "contract" and run.exit_code == 0
    called = {
        m.payload["params"]["name"] for m in rec.messages if m.method == "tools/call" and m.direction == "to-server"
    }
    assert called == set(payloads.TOOLS)
    assert payloads.url(rec.info.nonce).encode() in rec.terminal_bytes(run.id, "stdout")
    statuses = {r.id: r.status for r in judge(rec).results}
    assert statuses["elicitation-url-shown-before-consent"] == "PASS"  # the driver prints the URL before answering
    assert statuses["elicitation-form-reviewable-before-send"] == "FAIL"  # and answers forms by itself: no user


def test_a_tty_run_records_one_terminal_stream_and_snapshots(tmp_path):
    out = tmp_path / "ui-tty.sqlite"
    run_check(SCENARIO, CheckOptions(out=out, client=DRIVER, tty=TtyOptions()), lambda _: None)
    rec = load(out)
    [run] = rec.runs
    assert rec.is_tty(run.id) and rec.terminal_bytes(run.id, "stdout") == b""
    assert any(s.reason == "exit" for s in rec.screens)
    assert run.detail.facts["tty"] is True


def test_the_scenario_needs_a_client():
    with pytest.raises(CheckError, match="needs --client"):
        run_check(SCENARIO, CheckOptions(out=None), lambda _: None)


def test_a_client_taking_tool_runs_once_per_tool_each_run_named_contract(tmp_path):
    out = tmp_path / "per-tool.sqlite"
    toy = [sys.executable, "-m", "backchannel.proxy.clients.toy_agent", "mcp", "call", "{url}", "{tool}"]
    run_check(SCENARIO, CheckOptions(out=out, client=toy), lambda _: None)
    rec = load(out)
    assert [run.name for run in rec.runs] == ["contract"] * 5
    assert [run.detail.facts["tool"] for run in rec.runs] == list(payloads.TOOLS)
    assert all(run.client_argv and run.client_argv[-1] == run.detail.facts["tool"] for run in rec.runs)
    statuses = {r.id: r.status for r in judge(rec).results}
    assert statuses["elicitation-url-host-shown"] != "ERROR"  # each check finds its tool's run
