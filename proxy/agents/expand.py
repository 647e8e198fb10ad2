"""A recipe filled in for one run: the command line, the environment and the files the lab writes into HOME."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from backchannel.proxy.agents.recipe import ARM_ARGS, PLACEHOLDER, AgentRecipe, RecipeError

DUMMY_API_KEY = "backchannel-lab-dummy-key"  # the stand-in accepts any key; this one is redacted like a real one


@dataclass(frozen=True)
class RunValues:
    """What a run fills the placeholders with (the recipe's {tool} is the tool the scripted model asks for)."""

    url: str
    server_name: str
    model_url: str
    home: Path
    cwd: Path
    tool: str
    exe: str
    api_key: str = DUMMY_API_KEY


@dataclass(frozen=True)
class AgentLaunch:
    """The agent's command line, the environment it adds, and each file (path relative to HOME, text) to write."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    files: tuple[tuple[str, str], ...]
    permissions: tuple[str, ...] = ()  # the arm's arguments and values as filled in (what the run's facts show)
    task_keys: tuple[str, ...] = ()  # interactive with [tty]: the keys that type the task (prompt filled in)


def _fill(text: str, values: Mapping[str, str], escape: str = "text") -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:  # an arm's value: filled in afterwards, as written
            return str(match.group(0))
        value = values[name]
        if escape in ("json", "toml"):  # inside a string literal: a JSON escape is also a TOML basic-string escape
            return json.dumps(value)[1:-1]
        return value

    return PLACEHOLDER.sub(one, text)


def expand_recipe(recipe: AgentRecipe, arm_name: str, run: RunValues, *, interactive: bool = False) -> AgentLaunch:
    """The recipe for this run and permission arm; `interactive` takes its --tty command.

    Raises:
        RecipeError: no such arm, or a file that is not valid JSON/TOML once filled in (the message names it).
    """
    arm = recipe.arm(arm_name)
    values = {
        "url": run.url,
        "server_name": run.server_name,
        "model_url": run.model_url,
        "api_key": run.api_key,
        "home": str(run.home),
        "cwd": str(run.cwd),
        "tool": run.tool,
        "exe": run.exe,
    }
    values["prompt"] = _fill(recipe.prompt, values)
    with_arm = {**values, **arm.values}
    argv: list[str] = []
    arm_args = [_fill(arg, with_arm) for arg in arm.args]
    template = recipe.interactive if interactive else recipe.command
    for part in template:
        if part == ARM_ARGS:
            argv.extend(arm_args)
        else:
            argv.append(_fill(part, with_arm))
    if ARM_ARGS not in template:
        argv.extend(arm_args)
    env = {name: _fill(value, with_arm) for name, value in {**recipe.env, **arm.env}.items()}
    files = []
    for index, template_file in enumerate(recipe.files):
        text = template_file.text
        for name, raw in arm.values.items():  # recipe-authored text, inserted as written (its placeholders filled next)
            text = text.replace(f"{{{name}}}", raw)
        text = _fill(text, values, template_file.format)
        _check_parses(recipe, index, template_file.format, text)
        files.append((_fill(template_file.path, values), text))
    permissions = [" ".join(arm_args)] if arm_args else []
    permissions += [_fill(raw, values).strip(" ,") for raw in arm.values.values() if raw.strip()]
    task_keys: tuple[str, ...] = ()
    if interactive and recipe.tty is not None:
        task_keys = tuple(_fill(key, with_arm) for key in recipe.tty.task)
    return AgentLaunch(tuple(argv), env, tuple(files), tuple(permissions), task_keys)


def _check_parses(recipe: AgentRecipe, index: int, fmt: str, text: str) -> None:
    try:
        if fmt == "json":
            json.loads(text)
        elif fmt == "toml":
            tomllib.loads(text)
    except ValueError as exc:  # JSONDecodeError and TOMLDecodeError are both ValueErrors
        raise RecipeError(f"{recipe.source}: files[{index}].text: not valid {fmt} once filled in: {exc}") from None


def write_files(launch: AgentLaunch, home: Path) -> list[Path]:
    """Write the launch's files under `home` (owner-only), refusing a path that leaves it; the paths written."""
    written = []
    root = home.resolve()
    for relative, text in launch.files:
        target = (root / relative).resolve()
        if not target.is_relative_to(root):
            raise RecipeError(f"recipe file {relative!r} would be written outside the lab HOME")
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        target.write_text(text, encoding="utf-8")
        target.chmod(0o600)
        written.append(target)
    return written
