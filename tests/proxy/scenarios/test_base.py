"""What a scenario package declares: validated names, options and tools; the run refuses what it cannot do."""

from __future__ import annotations

from pathlib import Path

import pytest

from backchannel.proxy.endpoint.tools import ToolCall, ToolReply, ToolSpec
from backchannel.proxy.scenarios.base import CheckError, CheckOptions, Option, Scenario


def _tool(name: str) -> ToolSpec:
    def handler(call: ToolCall) -> ToolReply:
        return ToolReply(result={"content": []})

    return ToolSpec(name, "a tool", {"type": "object"}, handler)


def test_a_scenario_name_must_be_a_kebab_case_slug():
    with pytest.raises(ValueError, match="kebab-case"):
        Scenario(name="Not A Slug", description="")


def test_a_scenario_with_the_same_tool_twice_is_refused():
    with pytest.raises(ValueError, match="more than once"):
        Scenario(name="twice", description="", tools=(_tool("a"), _tool("a")))


def test_a_scenario_declaring_one_option_twice_is_refused():
    option = Option("hold_ms", int, 1, "h")
    with pytest.raises(ValueError, match="option twice"):
        Scenario(name="dup", description="", options=(option, option))


def test_an_option_name_becomes_a_dashed_flag_and_its_default_must_be_a_choice():
    assert Option("hold_ms", int, 5, "h").flag == "--hold-ms"
    with pytest.raises(ValueError, match="lower-case"):
        Option("Hold-Ms", int, 5, "h")
    with pytest.raises(ValueError, match="not one of"):
        Option("rule", str, "other", "h", choices=("spec", "seed"))


def test_a_scenario_that_needs_a_client_says_so_before_running_anything(tmp_path: Path):
    scenario = Scenario(name="contract-only", description="", needs_client=True)
    with pytest.raises(CheckError, match='needs --client "CMD ... {url}"'):
        scenario.run(CheckOptions(out=tmp_path / "x.sqlite"), lambda _text: None)
    assert not (tmp_path / "x.sqlite").exists()


def test_a_client_without_the_url_placeholder_is_refused(tmp_path: Path):
    scenario = Scenario(name="plain", description="")
    with pytest.raises(CheckError, match="must say where the server is"):
        scenario.run(CheckOptions(out=tmp_path / "x.sqlite", client=["curl", "localhost"]), lambda _text: None)


def test_a_declared_runner_gets_the_options_and_its_settings(tmp_path: Path):
    seen: list[CheckOptions] = []

    def runner(options: CheckOptions, progress: object) -> Path:
        seen.append(options)
        return options.out

    scenario = Scenario(name="custom", description="", runner=runner)
    options = CheckOptions(out=tmp_path / "r.sqlite", client=["c", "{url}"], settings={"hold_ms": 7})
    assert scenario.run(options, lambda _text: None) == tmp_path / "r.sqlite"
    assert seen[0].setting("hold_ms") == 7 and seen[0].setting("absent", "fallback") == "fallback"
