"""Recipes load from the shipped files or a path, and every mistake is one error naming the file and the key."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from backchannel.proxy.agents.recipe import (
    ARMS,
    DEFAULT_TASK_KEYS,
    RECIPES_DIR,
    RecipeError,
    TtyRecipe,
    load_recipe,
    shipped_recipes,
)

SHIPPED = ("claude-code", "codex", "gemini-cli")
PACKAGES = Path(__file__).resolve().parents[3] / "proxy" / "agents" / "packages"


def test_the_three_agents_are_shipped_and_each_loads_by_name() -> None:
    assert tuple(shipped_recipes()) == SHIPPED
    for name in SHIPPED:
        recipe = load_recipe(name)
        assert recipe.name == name
        assert recipe.source == RECIPES_DIR / f"{name}.toml"
        assert tuple(recipe.arms) == ARMS


def test_each_recipe_speaks_the_api_its_agent_uses() -> None:
    apis = {name: load_recipe(name).api for name in SHIPPED}
    assert apis == {"claude-code": "anthropic-messages", "codex": "openai-responses", "gemini-cli": "gemini-stream"}


def test_each_recipe_pins_the_version_its_committed_package_lock_installs() -> None:
    for name in SHIPPED:
        recipe = load_recipe(name)
        manifest = json.loads((PACKAGES / name / "package.json").read_text())
        lock = json.loads((PACKAGES / name / "package-lock.json").read_text())
        assert manifest["dependencies"] == {recipe.package: recipe.version}
        assert lock["packages"][f"node_modules/{recipe.package}"]["version"] == recipe.version


def test_no_default_arm_passes_a_permission_flag_or_setting() -> None:
    for name in SHIPPED:
        default = load_recipe(name).arm("default")
        assert default.args == ()
        assert not any(default.env.values())
        assert not any(default.values.values())


def test_the_call_tool_arm_of_claude_code_allows_exactly_the_scripted_tool() -> None:
    assert load_recipe("claude-code").arm("call-tool").args == ("--allowedTools", "mcp__{server_name}__{tool}")


def test_a_recipe_loads_from_a_path(tmp_path: Path) -> None:
    copy = tmp_path / "mine.toml"
    copy.write_text((RECIPES_DIR / "codex.toml").read_text())
    assert load_recipe(copy).source == copy
    assert load_recipe(str(copy)).name == "codex"


def test_an_unknown_name_lists_the_shipped_recipes() -> None:
    with pytest.raises(RecipeError, match="no agent recipe 'cursor': not a shipped one \\(claude-code, codex"):
        load_recipe("cursor")


def _broken(tmp_path: Path, old: str, new: str, source: str = "claude-code") -> Path:
    text = (RECIPES_DIR / f"{source}.toml").read_text()
    assert old in text
    path = tmp_path / "broken.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('api = "anthropic-messages"', 'api = "smoke-signals"', "api: 'smoke-signals' is not one of"),
        ('name = "claude-code"', 'name = "Claude Code"', "name: 'Claude Code' is not a kebab-case name"),
        ("[install]", "colour = 1\n[install]", "colour: unknown key"),
        ('version = "2.1.332"', 'version = "2.1.332"\nsha = "x"', "install.sha: unknown key"),
        ('"{exe}", "-p", "{prompt}"', '"{exe}", "-p", "{task}"', "run.command: unknown placeholder {task}"),
        ('"{exe}", "-p", "{prompt}"', '"claude", "-p", "{prompt}"', "run.command: must start with {exe}"),
        ('"{exe}", "-p", "{prompt}", "--output', '"{exe}", "-p", "--output', "run.command: must hold {prompt}"),
        ("[arms.call-tool]", "[arms.bypass]", "arms: missing [arms.call-tool]"),
        ('executable = "node_modules/.bin/claude"', 'executable = "/usr/bin/claude"', "install.executable:"),
        ('format = "json"', 'format = "yaml"', "files[0].format: 'yaml' is not one of json, toml, text"),
        ('"url": "{url}"', '"url": "{upstream}"', "files[0].text: unknown placeholder {upstream}"),
        ('ENABLE_TOOL_SEARCH = "false"', "ENABLE_TOOL_SEARCH = false", "env.ENABLE_TOOL_SEARCH: must be a string"),
        ('mcp_config = ".backchannel/claude-mcp.json"', 'mcp_config = "mcp.json"', "mcp_config: 'mcp.json' is not"),
    ],
)
def test_a_bad_key_is_named_with_the_file(tmp_path: Path, old: str, new: str, message: str) -> None:
    path = _broken(tmp_path, old, new)
    with pytest.raises(RecipeError) as raised:
        load_recipe(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert message in str(raised.value)


def test_arms_must_set_the_same_values(tmp_path: Path) -> None:
    path = _broken(tmp_path, 'values = { approval_line = "", server_approval_line = "" }', "values = {}", "codex")
    with pytest.raises(RecipeError, match="arms.call-tool.values: every arm must set the same values"):
        load_recipe(path)


def test_a_file_that_is_not_toml_says_where(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text("name = \n")
    with pytest.raises(RecipeError, match=f"^{path}: not TOML"):
        load_recipe(path)


def test_every_shipped_recipe_parses_as_plain_toml_with_a_comment_on_each_arm() -> None:
    for name in SHIPPED:
        text = (RECIPES_DIR / f"{name}.toml").read_text()
        tomllib.loads(text)
        for arm in ARMS:
            assert load_recipe(name).arm(arm).why


# ------------------------------------------------------------------------------------------------ [tty]

CLAUDE_READY = r"ready = '^❯\s*$'"


def test_a_tty_table_gives_the_ready_pattern_the_task_and_exit_keys_and_the_reaction_time() -> None:
    assert load_recipe("claude-code").tty == TtyRecipe(r"^❯\s*$", ("{prompt}", "\r"), ("/exit", "\r"), 1.0)
    codex = load_recipe("codex").tty
    assert codex is not None and (codex.exit, codex.react) == (("/quit", "\r"), 0.0)


def test_a_tty_table_without_task_keys_types_the_prompt_then_enter(tmp_path: Path) -> None:
    path = _broken(tmp_path, 'task = ["{prompt}", "\\r"]\n', "", "codex")
    tty = load_recipe(path).tty
    assert tty is not None and tty.task == DEFAULT_TASK_KEYS == ("{prompt}", "\r")


def test_every_shipped_recipe_drives_its_terminal_ui_with_a_ready_pattern_that_compiles() -> None:
    for name in SHIPPED:
        recipe = load_recipe(name)
        assert recipe.tty is not None, name
        ready = re.compile(recipe.tty.ready, re.MULTILINE)
        assert ready.search("") is None
        assert any("{prompt}" in key for key in recipe.tty.task) and recipe.tty.exit
        assert not any("{prompt}" in part for part in recipe.interactive)  # the task is typed, not given twice


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("react = 1.0", "react = 1.0\ncolour = 1", "tty.colour: unknown key (known: ready, task, exit, react)"),
        (CLAUDE_READY, "ready = '(unclosed'", "tty.ready: '(unclosed' is not a regular expression"),
        (CLAUDE_READY, r"ready = '^\s*$'", "matches an empty screen, so it says nothing about the UI"),
        (CLAUDE_READY, "ready = 7", "tty.ready: "),
        ('task = ["{prompt}", "\\r"]', 'task = ["hello", "\\r"]', "tty.task: must hold {prompt}"),
        ('task = ["{prompt}", "\\r"]', 'task = ["{task}"]', "tty.task: unknown placeholder {task}"),
        ('task = ["{prompt}", "\\r"]', "task = []", "tty.task: must be a non-empty list of non-empty strings"),
        ('exit = ["/exit", "\\r"]', "", "tty.exit: missing"),
        ('exit = ["/exit", "\\r"]', 'exit = ["/exit", ""]', "tty.exit: must be a non-empty list"),
        ("react = 1.0", "react = 11", "tty.react: must be a number of seconds from 0 to 10, got 11"),
        ("react = 1.0", "react = -0.5", "tty.react: must be a number of seconds from 0 to 10, got -0.5"),
        ("react = 1.0", "react = true", "tty.react: must be a number of seconds from 0 to 10, got True"),
        ("react = 1.0", 'react = "1"', "tty.react: must be a number of seconds from 0 to 10, got '1'"),
        ("[tty]\n", "[tty.inner]\n", "tty.inner: unknown key"),
    ],
)
def test_a_bad_tty_table_is_named_with_the_file(tmp_path: Path, old: str, new: str, message: str) -> None:
    path = _broken(tmp_path, old, new)
    with pytest.raises(RecipeError) as raised:
        load_recipe(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert message in str(raised.value)


def test_a_tty_value_that_is_not_a_table_is_refused(tmp_path: Path) -> None:
    text = (RECIPES_DIR / "codex.toml").read_text()
    path = tmp_path / "flat.toml"
    path.write_text('tty = "yes"\n' + text[: text.index("\n[tty]\n")] + text[text.index("\n[arms.default]\n") :])
    with pytest.raises(RecipeError, match=f"^{path}: tty: must be a table"):
        load_recipe(path)


def test_an_interactive_command_holding_the_prompt_is_refused_when_tty_types_the_task(tmp_path: Path) -> None:
    path = _broken(
        tmp_path, 'interactive = ["{exe}", "{arm_args}"]', 'interactive = ["{exe}", "{arm_args}", "{prompt}"]', "codex"
    )
    with pytest.raises(RecipeError, match=r"run.interactive: must not hold \{prompt\} when \[tty\] types the task"):
        load_recipe(path)
