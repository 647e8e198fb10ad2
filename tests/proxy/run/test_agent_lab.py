"""Real coding agents as the client under test: `check --agent NAME` runs each installed agent offline against the
lab's model stand-in, and the recording holds its model exchanges, its tools/call on the wire and its run facts.

Each agent is the one scripts/install-clients installs (pinned); one that is missing fails the test with the command
that installs it, never a quiet skip. Each run takes a few seconds (measured: 2.8 s, 2.9 s, 4.6 s)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.proxy.agents.installed import find_installed
from backchannel.proxy.agents.recipe import RECIPES_DIR, RecipeError, load_recipe
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.agent_lab import (
    OUTSIDE_HOST,
    AgentLab,
    AgentLabError,
    agent_client,
    agent_server_name,
    is_agent_client,
    model_script,
    scripted,
    with_arm,
)
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.run.refusing_proxy import Refused
from backchannel.proxy.scenarios.default.endpoint import TOOLS
from backchannel.recordings import load
from backchannel.recordings.model import Recording
from tests.in_process import backchannel

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[3]
BACKCHANNEL = str(ROOT / ".venv" / "bin" / "backchannel")
API = {"claude-code": "anthropic-messages", "codex": "openai-responses", "gemini-cli": "gemini-stream"}


def _installed(name: str) -> None:
    if find_installed(load_recipe(name)) is None:  # an agent the suite cannot run is a failure to see, never a skip
        pytest.fail(f"agent {name} is not installed: run scripts/install-clients --agents {name}")


def _check(tmp_path: Path, *flags: str) -> tuple[subprocess.CompletedProcess[str], Recording]:
    out = tmp_path / "agent.sqlite"
    argv = [BACKCHANNEL, "check", *flags, "--scenario", "default", "--out", str(out), "--format", "json"]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    # 1 is a finding about the agent (Gemini CLI 0.61.0 sends no MCP-Protocol-Version header): the run still worked
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    return done, load(out)


@pytest.mark.parametrize("name", ["claude-code", "codex", "gemini-cli"])
def test_each_agent_calls_the_tool_through_the_proxy_and_its_model_context_is_recorded(
    name: str, tmp_path: Path
) -> None:
    _installed(name)
    done, recording = _check(tmp_path, "--agent", name)
    [run] = recording.runs
    assert run.exit_code == 0, done.stderr[-3000:]
    facts = run.detail.facts
    assert facts["agent"] == facts["agent_recipe"] == name and facts["agent_arm"] == "call-tool"
    assert facts["agent_version"] == load_recipe(name).version
    assert facts["agent_api"] == API[name]
    exchanges = list(recording.model_exchanges_in(run.id))
    assert len(exchanges) >= 2
    assert {exchange.api for exchange in exchanges} >= {API[name]}
    actions = [exchange.step.get("action") for exchange in exchanges]
    assert "call-tool" in actions and actions[-1] == "answer", actions
    calls = [m for m in recording.messages if m.method == "tools/call" and m.direction == "to-server"]
    assert calls and all(call.run_id == run.id for call in calls)
    assert calls[0].payload["params"]["name"] == "get_repo_status"
    assert not [a for a in recording.anomalies if a.kind == OUTSIDE_HOST]
    report = json.loads(done.stdout)
    assert report["summary"]["ERROR"] == 0


def test_an_agent_without_its_offline_settings_is_seen_reaching_out(tmp_path: Path) -> None:
    _installed("claude-code")
    text = (RECIPES_DIR / "claude-code.toml").read_text(encoding="utf-8")
    noisy = "\n".join(line for line in text.splitlines() if not line.startswith("CLAUDE_CODE_DISABLE_NONESSENTIAL"))
    for switch in ("DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING", "DISABLE_BUG_COMMAND"):
        noisy = noisy.replace(f'{switch} = "1"', "")
    recipe = tmp_path / "noisy-claude-code.toml"
    recipe.write_text(noisy, encoding="utf-8")
    _done, recording = _check(tmp_path, "--agent-recipe", str(recipe))
    [run] = recording.runs
    assert run.detail.facts["agent_recipe"] == str(recipe.resolve())
    outside = [a for a in recording.anomalies if a.kind == OUTSIDE_HOST]
    assert outside and all(a.run_id == run.id for a in outside)
    assert any("api.anthropic.com:443" in a.detail for a in outside), [a.detail for a in outside]
    assert list(recording.model_exchanges_in(run.id))  # the model stand-in still got every model request
    [rule] = [r for r in judge(recording).results if r.id == "session-agent-stays-in-lab"]
    assert rule.status == "WARN" and "api.anthropic.com:443" in rule.message


# the refusals below are the command's own checks, run in this process (tests/in_process.py): no CLI start each


def test_an_agent_that_is_not_installed_is_a_usage_error_naming_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "BACKCHANNEL_CLIENTS": str(tmp_path / "none")}
    for name, value in outside.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)
    done = backchannel("check", "--agent", "codex", "--scenario", "default", "--out", str(tmp_path / "x.sqlite"))
    assert done.exit_code == 2
    assert "agent codex is not installed" in done.stderr
    assert "run scripts/install-clients --agents codex" in done.stderr
    assert not (tmp_path / "x.sqlite").exists()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--agent", "codex", "--client", "x {url}"], "give it instead of --client/--target"),
        (["--agent", "codex", "--agent-recipe", str(RECIPES_DIR / "codex.toml")], "not both"),
        (["--agent", "cursor"], "no agent named 'cursor'; shipped: claude-code, codex, gemini-cli"),
        (["--agent-recipe", "missing.toml"], "no agent recipe 'missing.toml'"),
    ],
)
def test_check_refuses_a_wrong_agent_choice_with_exit_2(
    flags: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    done = backchannel("check", *flags)
    assert done.exit_code == 2, done.stderr
    assert message in done.stderr


def _capture_run(tmp_path: Path, argv: tuple[str, ...]) -> Recording:
    out = tmp_path / "in-process.sqlite"
    with Capture(out, endpoint=EndpointConfig(tools=TOOLS), scenario="default") as capture:
        run = capture.new_run("run", {}, scenario="default")
        capture.run_client(run, list(argv), timeout=60)
    return load(out)


def test_the_default_arm_gives_claude_code_no_permission_and_its_refusal_is_recorded(tmp_path: Path) -> None:
    _installed("claude-code")
    recording = _capture_run(tmp_path, with_arm(agent_client(load_recipe("claude-code")), "default"))
    [run] = recording.runs
    assert run.detail.facts["agent_arm"] == "default"
    assert run.detail.facts["agent_permissions"] == "(the agent's own defaults)"
    # the model asked for the tool; Claude Code's -p mode refused the call, so none reached the server
    assert [e.step.get("action") for e in recording.model_exchanges_in(run.id)] == ["call-tool", "answer"]
    assert not [m for m in recording.messages if m.method == "tools/call"]


def test_a_scenarios_model_script_drives_the_agents_model(tmp_path: Path) -> None:
    _installed("codex")
    with scripted({"answer": "the scenario's own answer"}):
        recording = _capture_run(tmp_path, agent_client(load_recipe("codex")))
    [run] = recording.runs
    stdout = b"".join(chunk.data for chunk in recording.terminal if chunk.run_id == run.id and chunk.stream == "stdout")
    assert b"the scenario's own answer" in stdout


def test_the_default_model_script_calls_the_first_tool_with_no_arguments_and_answers_done() -> None:
    script = model_script(TOOLS, "backchannel_endpoint")
    assert (script.tool, script.server, dict(script.arguments), script.answer) == (
        TOOLS[0].name,
        "backchannel_endpoint",
        {},
        "done",
    )


def test_a_scenarios_script_overrides_the_default_but_not_the_server_name() -> None:
    with scripted({"tool": "other_tool", "arguments": {"a": 1}, "server": "ignored"}):
        script = model_script(TOOLS, "backchannel_endpoint")
    assert (script.tool, dict(script.arguments), script.server) == ("other_tool", {"a": 1}, "backchannel_endpoint")
    assert model_script(TOOLS, "x").tool == TOOLS[0].name  # the block is over: the default again


def test_a_model_with_nothing_to_call_or_a_bad_script_is_a_clear_error() -> None:
    with pytest.raises(AgentLabError, match="serves none"):
        model_script((), "backchannel_endpoint")
    with scripted({"answer": 3}), pytest.raises(AgentLabError, match="the scenario's model script: .*'answer'"):
        model_script(TOOLS, "backchannel_endpoint")


def test_the_agents_server_name_keeps_only_letters_digits_and_underscores() -> None:
    assert agent_server_name("backchannel-endpoint") == "backchannel_endpoint"
    assert agent_server_name("a.b c/d") == "a_b_c_d"
    assert agent_server_name("") == "backchannel"


def test_an_agent_client_command_line_carries_its_recipe_and_arm() -> None:
    argv = agent_client(load_recipe("codex"))
    assert argv == ("{agent}", "codex", "call-tool", "{url}")  # a shipped recipe by name: the same on any machine
    assert is_agent_client(argv)
    assert with_arm(argv, "default")[2] == "default"
    assert not is_agent_client(["codex", "exec", "{url}"])
    with pytest.raises(RecipeError, match="no permission arm 'yolo'"):
        agent_client(load_recipe("codex"), "yolo")


def test_each_outside_host_is_noted_once_per_run_for_the_run_whose_agent_is_running() -> None:
    notes: list[tuple[str, str, str | None]] = []
    lab = AgentLab(lambda kind, detail, run_id: notes.append((kind, detail, run_id)))
    lab.refused(Refused("github.com:443", "CONNECT"))  # between runs: the capture's, not a run's
    lab.enter("run-1")
    lab.refused(Refused("github.com:443", "CONNECT"))
    lab.refused(Refused("github.com:443", "CONNECT"))
    lab.leave("run-1")
    assert [(kind, run_id) for kind, _, run_id in notes] == [(OUTSIDE_HOST, None), (OUTSIDE_HOST, "run-1")]
    assert "github.com:443 (CONNECT" in notes[1][1]
