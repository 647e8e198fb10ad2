"""A recipe filled in for a run: the command per arm, the environment, and files that parse once filled in."""

from __future__ import annotations

import dataclasses
import json
import tomllib
from pathlib import Path

import pytest

from backchannel.proxy.agents.expand import DUMMY_API_KEY, RunValues, expand_recipe, write_files
from backchannel.proxy.agents.recipe import RECIPES_DIR, RecipeError, load_recipe


def _values(tmp_path: Path, **changes: str) -> RunValues:
    base = {
        "url": "http://127.0.0.1:4000/r/abc/mcp",
        "server_name": "backchannel-endpoint",
        "model_url": "http://127.0.0.1:5000",
        "tool": "get_repo_status",
        "exe": "/opt/agent/bin/agent",
    }
    base.update(changes)
    return RunValues(home=tmp_path / "home", cwd=tmp_path / "work", **base)


def test_claude_code_call_tool_allows_the_tool_by_its_mcp_name(tmp_path: Path) -> None:
    launch = expand_recipe(load_recipe("claude-code"), "call-tool", _values(tmp_path))
    assert launch.argv[0] == "/opt/agent/bin/agent"
    assert launch.argv[-2:] == ("--allowedTools", "mcp__backchannel-endpoint__get_repo_status")
    assert "get_repo_status tool of the backchannel-endpoint MCP server" in launch.argv[2]
    assert launch.env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:5000"
    assert launch.env["ANTHROPIC_API_KEY"] == DUMMY_API_KEY
    config = json.loads(dict(launch.files)[".backchannel/claude-mcp.json"])
    assert config == {
        "mcpServers": {"backchannel-endpoint": {"type": "http", "url": "http://127.0.0.1:4000/r/abc/mcp"}}
    }


def test_the_default_arm_adds_nothing(tmp_path: Path) -> None:
    for name in ("claude-code", "codex", "gemini-cli"):
        recipe = load_recipe(name)
        default = expand_recipe(recipe, "default", _values(tmp_path))
        assert not any(part in ("--yolo", "--allowedTools", "--dangerously-skip-permissions") for part in default.argv)


def test_codex_call_tool_approves_the_server_in_its_config(tmp_path: Path) -> None:
    recipe = load_recipe("codex")
    allowed = tomllib.loads(dict(expand_recipe(recipe, "call-tool", _values(tmp_path)).files)[".codex/config.toml"])
    plain = tomllib.loads(dict(expand_recipe(recipe, "default", _values(tmp_path)).files)[".codex/config.toml"])
    assert allowed["approval_policy"] == "never"
    assert allowed["mcp_servers"]["backchannel-endpoint"] == {
        "url": "http://127.0.0.1:4000/r/abc/mcp",
        "default_tools_approval_mode": "approve",
    }
    assert "approval_policy" not in plain
    assert plain["mcp_servers"]["backchannel-endpoint"] == {"url": "http://127.0.0.1:4000/r/abc/mcp"}
    assert allowed["model_providers"]["backchannel"]["base_url"] == "http://127.0.0.1:5000/v1"
    assert allowed["features"] == {"plugins": False, "remote_plugin": False, "apps": False}


def test_gemini_cli_interactive_command_keeps_the_arm_and_leaves_the_prompt_to_be_typed(tmp_path: Path) -> None:
    launch = expand_recipe(load_recipe("gemini-cli"), "call-tool", _values(tmp_path), interactive=True)
    assert "--prompt-interactive" not in launch.argv and launch.task_keys[0] not in launch.argv
    assert "-p" not in launch.argv and "--yolo" not in launch.argv
    settings = json.loads(dict(launch.files)[".gemini/settings.json"])
    assert settings["privacy"] == {"usageStatisticsEnabled": False}


def test_gemini_cli_call_tool_allows_only_the_scripted_tool_in_its_settings(tmp_path: Path) -> None:
    recipe = load_recipe("gemini-cli")
    allowed = expand_recipe(recipe, "call-tool", _values(tmp_path))
    plain = expand_recipe(recipe, "default", _values(tmp_path))
    settings = json.loads(dict(allowed.files)[".gemini/settings.json"])
    assert settings["tools"] == {"allowed": ["mcp_backchannel-endpoint_get_repo_status"]}
    assert "tools" not in json.loads(dict(plain.files)[".gemini/settings.json"])
    assert allowed.permissions == ('"tools": {"allowed": ["mcp_backchannel-endpoint_get_repo_status"]}',)
    assert plain.permissions == ()


def test_a_value_with_quotes_is_escaped_in_json_and_toml_files(tmp_path: Path) -> None:
    odd = 'http://127.0.0.1:1/r/"x\\y"/mcp'
    for name, relative in (("claude-code", ".backchannel/claude-mcp.json"), ("codex", ".codex/config.toml")):
        text = dict(expand_recipe(load_recipe(name), "call-tool", _values(tmp_path, url=odd)).files)[relative]
        parsed = json.loads(text) if relative.endswith(".json") else tomllib.loads(text)
        assert odd in json.dumps(parsed, ensure_ascii=False).replace('\\"', '"').replace("\\\\", "\\")


def test_a_file_that_does_not_parse_once_filled_in_names_the_recipe_file(tmp_path: Path) -> None:
    text = (RECIPES_DIR / "claude-code.toml").read_text().replace('"url": "{url}"}}}', '"url": {url}}}}')
    path = tmp_path / "r.toml"
    path.write_text(text)
    with pytest.raises(RecipeError, match=f"^{path}: files\\[0\\].text: not valid json once filled in"):
        expand_recipe(load_recipe(path), "call-tool", _values(tmp_path))


def test_files_are_written_owner_only_inside_home(tmp_path: Path) -> None:
    launch = expand_recipe(load_recipe("gemini-cli"), "default", _values(tmp_path))
    home = tmp_path / "home"
    home.mkdir()
    [written] = write_files(launch, home)
    assert written == (home / ".gemini" / "settings.json").resolve()
    assert written.stat().st_mode & 0o777 == 0o600


def test_an_unknown_arm_is_refused_naming_the_arms(tmp_path: Path) -> None:
    with pytest.raises(RecipeError, match="no arm 'bypass' \\(it has default, call-tool\\)"):
        expand_recipe(load_recipe("codex"), "bypass", _values(tmp_path))


def test_claude_codes_approved_key_is_the_tail_of_the_dummy_key(tmp_path: Path) -> None:
    files = dict(expand_recipe(load_recipe("claude-code"), "call-tool", _values(tmp_path)).files)
    state = json.loads(files[".claude.json"])
    assert state["customApiKeyResponses"]["approved"] == [DUMMY_API_KEY[-20:]]
    assert state["projects"] == {
        str(tmp_path / "work"): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
    }


def test_claude_codes_interactive_command_ends_with_the_arm_and_gives_no_prompt(tmp_path: Path) -> None:
    argv = expand_recipe(load_recipe("claude-code"), "call-tool", _values(tmp_path), interactive=True).argv
    assert argv[-2:] == ("--allowedTools", "mcp__backchannel-endpoint__get_repo_status")
    assert "--" not in argv  # no prompt follows: the lab types it into the UI ([tty])


def test_an_interactive_run_of_a_recipe_with_tty_types_the_filled_in_prompt_then_enter(tmp_path: Path) -> None:
    for name in ("claude-code", "codex", "gemini-cli"):
        launch = expand_recipe(load_recipe(name), "call-tool", _values(tmp_path), interactive=True)
        prompt, enter = launch.task_keys
        assert "get_repo_status tool of the backchannel-endpoint MCP server" in prompt and enter == "\r"
        assert "{" not in prompt
        assert prompt not in launch.argv  # typed into the UI, not given on its command line as well


def test_a_run_without_a_terminal_ui_to_drive_has_no_task_keys(tmp_path: Path) -> None:
    recipe = load_recipe("claude-code")
    assert expand_recipe(recipe, "default", _values(tmp_path)).task_keys == ()
    untyped = dataclasses.replace(recipe, tty=None)
    assert expand_recipe(untyped, "default", _values(tmp_path), interactive=True).task_keys == ()
