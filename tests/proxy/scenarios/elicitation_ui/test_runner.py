"""elicitation-ui end to end: one client run through the real proxy, piped or under a terminal, judged; or a CLI
discovered with --target, then run once per tool."""

import sys

import pytest

from backchannel.oracle import judge
from backchannel.oracle.scenarios.elicitation_ui import payloads
from backchannel.oracle.terminal import is_tty, raw_bytes
from backchannel.proxy.run.tty import TtyOptions
from backchannel.proxy.scenarios.base import CheckError, CheckOptions
from backchannel.proxy.scenarios.registry import run_check
from backchannel.recordings import load
from backchannel.recordings.shapes import Discovery, Invocation
from tests.in_process import backchannel

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
    assert payloads.url(rec.info.nonce).encode() in raw_bytes(rec, run.id, "stdout")
    statuses = {r.id: r.status for r in judge(rec).results}
    # the driver prints the URL, then answers at once: PASS, or WARN when load lets the harness's read of the URL
    # trail the proxy's sight of the answer (too close to order), never FAIL
    assert statuses["elicitation-url-shown-before-consent"] in ("PASS", "WARN")
    assert statuses["elicitation-form-reviewable-before-send"] == "FAIL"  # and answers forms by itself: no user


def test_a_tty_run_records_one_terminal_stream_and_snapshots(tmp_path):
    out = tmp_path / "ui-tty.sqlite"
    run_check(SCENARIO, CheckOptions(out=out, client=DRIVER, tty=TtyOptions()), lambda _: None)
    rec = load(out)
    [run] = rec.runs
    assert is_tty(rec, run.id) and raw_bytes(rec, run.id, "stdout") == b""
    assert any(s.reason == "exit" for s in rec.screens)
    assert run.detail.facts["tty"] is True


def test_the_scenario_needs_a_client_or_a_target_and_not_both(tmp_path):
    with pytest.raises(CheckError, match=r"needs --target \(a CLI to discover\) or --client"):
        run_check(SCENARIO, CheckOptions(out=tmp_path / "none.sqlite"), lambda _: None)
    with pytest.raises(CheckError, match=r"--target .* or --client .*, not both"):
        run_check(SCENARIO, CheckOptions(out=tmp_path / "both.sqlite", target=TOY, client=DRIVER), lambda _: None)
    assert not list(tmp_path.iterdir())  # refused before any recording was started


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        ((), "needs --target (a CLI to discover) or --client (an invocation with {url})"),
        (("--target", "toy", "--client", "toy {url}"), "--target (a CLI to discover) or --client"),
    ],
)
def test_check_refuses_neither_or_both_flags_with_one_usage_line_and_exit_2(tmp_path, monkeypatch, flags, says):
    monkeypatch.chdir(tmp_path)
    done = backchannel("check", "--scenario", SCENARIO, *flags)  # the command's own check, in this process
    assert done.exit_code == 2
    [line] = done.stderr.strip().splitlines()
    assert says in line and "--target" in line and "--client" in line


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


TOY = [sys.executable, "-m", "backchannel.proxy.clients.toy_agent"]


def test_a_target_is_discovered_without_eliciting_then_run_once_per_tool_like_a_client_taking_tool(tmp_path):
    out = tmp_path / "target.sqlite"
    lines: list[str] = []
    run_check(SCENARIO, CheckOptions(out=out, target=TOY, timeout=20), lines.append)
    rec = load(out)
    found = Discovery.read(rec.meta)
    assert found is not None and found.status == "found"
    assert found.invocation == (*TOY, "mcp", "call", "{url}", "connect_account")
    assert Invocation.read(rec.meta) == Invocation(argv=(*TOY, "mcp", "call", "{url}", "{tool}"))
    names = [run.name for run in rec.runs]
    assert "discovery-help" in names and names.count("discovery-call") == 1
    [trial] = [run for run in rec.runs if run.name == "discovery-call"]
    assert trial.plan["mutations"][0]["kind"] == "error"
    trial_messages = list(rec.messages_in(trial.id))
    calls = [m.payload["params"]["name"] for m in trial_messages if m.method == "tools/call" and m.kind == "request"]
    assert calls == ["connect_account"]
    assert not any("inputRequests" in str(m.payload) for m in trial_messages)  # answered at once: nothing elicited
    contract = [run for run in rec.runs if run.name == "contract"]
    assert names[-5:] == ["contract"] * 5
    assert [run.detail.facts["tool"] for run in contract] == list(payloads.TOOLS)
    assert all(run.client_argv and run.client_argv[-1] == run.detail.facts["tool"] for run in contract)
    assert lines[-5:] == [f"running the client against the tool {tool}, piped" for tool in payloads.TOOLS]
    statuses = {r.id: r.status for r in judge(rec).results if r.scenario != "session"}
    assert len(statuses) == 12 and "ERROR" not in statuses.values() and "harness-saw-every-run" not in statuses
    # the three by-hand checks have no person's answer to read in a run a command drove
    assert {statuses[c] for c in statuses if c.startswith("by-hand-")} == {"SKIP"}
    # the toy's `mcp call` declares form mode only (the URL tools refuse it, -32021) and accepts a form by itself,
    # reading nothing from stdin; it prints server text raw
    assert statuses["elicitation-url-shown-before-consent"] == "SKIP"
    assert statuses["elicitation-form-reviewable-before-send"] == "FAIL"
    assert statuses["elicitation-terminal-escape-injection"] == "FAIL"


def test_a_target_discovery_that_finds_nothing_judges_error_for_every_check(tmp_path):
    out = tmp_path / "nothing.sqlite"
    run_check(SCENARIO, CheckOptions(out=out, target=[*TOY, "--variant", "no-call-surface"], timeout=20), print)
    rec = load(out)
    assert not [run for run in rec.runs if run.name == "contract"]
    assert [a.kind for a in rec.anomalies] == ["client-not-run"]
    results = [r for r in judge(rec).results if r.scenario != "session"]  # the session rules judged the trials
    checks = {r.id for r in results} - {"harness-saw-every-run"}
    assert len(checks) == 12  # every elicitation-ui check (the three by-hand ones too), and the harness's own result
    assert {(r.status, r.reason) for r in results} == {("ERROR", "client-not-run")}
