"""What an agent recipe says, read and checked: how one coding agent runs offline in a lab as the client under test.

A recipe is a TOML data file (the shipped ones are in `recipes/`; `check --agent-recipe FILE` runs a user's own). It
names the agent's executable inside its install folder, the provider API it speaks, the environment and the
configuration files the lab gives it (templates with placeholders), its non-interactive and interactive commands,
and the permission settings of each arm. Loading checks every key, so a mistake is one line naming the file and the
key, never a surprise in the middle of a run. Expanding a recipe for a run is `expand.py`'s job.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from backchannel.recordings.errors import UserError
from backchannel.recordings.model import MODEL_APIS

RECIPES_DIR = Path(__file__).resolve().parent / "recipes"
ARMS = ("default", "call-tool")  # default: the agent's own permissions; call-tool: the least that lets it call the tool
FILE_FORMATS = ("json", "toml", "text")  # how a run's values are escaped in a file, and what the result must parse as
# the values every run has; an arm adds its own `values` on top
RUN_PLACEHOLDERS = ("url", "server_name", "model_url", "api_key", "home", "cwd", "tool", "exe", "prompt")
ARM_ARGS = "{arm_args}"  # a command element replaced by the arm's arguments (appended when the command has none)
PLACEHOLDER = re.compile(r"\{([a-z][a-z0-9_]*)\}")
DEFAULT_PROMPT = "Use the {tool} tool of the {server_name} MCP server, then say in one line what it returned."
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_TOP = ("name", "description", "api", "prompt", "mcp_config", "install", "env", "files", "run", "tty", "arms")
DEFAULT_TASK_KEYS = ("{prompt}", "\r")  # [tty] task: the prompt, then Enter (typed once its text was echoed)


class RecipeError(UserError):
    """A recipe that cannot be used; the message names the file and the key that is wrong."""


@dataclass(frozen=True)
class FileTemplate:
    """A file the lab writes before the agent starts: `path` relative to the lab HOME, `text` with placeholders."""

    path: str
    format: str  # one of FILE_FORMATS
    text: str


@dataclass(frozen=True)
class Arm:
    """One permission setting: arguments, environment and template values the run adds (`why` says what it allows)."""

    name: str
    why: str
    args: tuple[str, ...]
    env: Mapping[str, str]
    values: Mapping[str, str]  # raw text (recipe-authored, not escaped) for placeholders its files and command use


@dataclass(frozen=True)
class TtyRecipe:
    """How the lab drives the agent's terminal UI (`--tty`): it types `task` once the UI shows `ready` and the
    run's server has listed its tools, and `exit` once the scripted model has given its last answer and `ready`
    shows again. Keys are typed as written; each Enter ("\r") alone, after the text before it was echoed."""

    ready: str  # a regex (re.MULTILINE) matching the screen while the UI waits for the user's input
    task: tuple[str, ...]  # with placeholders, like the command
    exit: tuple[str, ...]
    react: float = 0.0  # seconds an --answer waits after its prompt appears, at least (a UI that drops early keys)


@dataclass(frozen=True)
class AgentRecipe:
    """One agent's recipe, every key checked (see recipes/claude-code.toml for a commented example)."""

    name: str
    source: Path
    description: str
    api: str  # the provider API it speaks to the model stand-in: one of recordings.model.MODEL_APIS
    package: str  # the npm package scripts/install-clients installs
    version: str  # the version it pins
    executable: str  # relative to the install folder (.cache/clients/agents/<name>/)
    env: Mapping[str, str]
    files: tuple[FileTemplate, ...]
    mcp_config: str  # which of `files` holds the MCP server entry (its path)
    command: tuple[str, ...]  # non-interactive, with {prompt}
    interactive: tuple[str, ...]  # under --tty
    arms: Mapping[str, Arm]
    prompt: str = DEFAULT_PROMPT
    tty: TtyRecipe | None = None  # absent: the interactive command carries the task and nothing ends the UI

    def arm(self, name: str) -> Arm:
        if name not in self.arms:
            raise RecipeError(f"{self.source}: arms: no arm {name!r} (it has {', '.join(self.arms)})")
        return self.arms[name]


def shipped_recipes() -> dict[str, Path]:
    """The recipes that come with backchannel, by name."""
    return {path.stem: path for path in sorted(RECIPES_DIR.glob("*.toml"))}


def load_recipe(name_or_path: str | Path) -> AgentRecipe:
    """A shipped recipe by name (`claude-code`), or the recipe in a TOML file.

    Raises:
        RecipeError: no such recipe, the file cannot be read or parsed, or a key is missing, unknown or wrong.
    """
    shipped = shipped_recipes()
    if isinstance(name_or_path, str) and name_or_path in shipped:
        path = shipped[name_or_path]
    else:
        path = Path(name_or_path)
        if not path.is_file():
            known = ", ".join(shipped) or "none"
            raise RecipeError(f"no agent recipe {str(name_or_path)!r}: not a shipped one ({known}) nor a file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise RecipeError(f"{path}: cannot be read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RecipeError(f"{path}: not TOML: {exc}") from None
    return _Reader(path).recipe(data)


class _Reader:
    """Reads one recipe's table, each problem raised as `<file>: <key>: <what is wrong>`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data: dict[str, Any] = {}

    def fail(self, key: str, problem: str) -> RecipeError:
        return RecipeError(f"{self.path}: {key}: {problem}")

    def recipe(self, data: dict[str, Any]) -> AgentRecipe:
        self.data = data
        self.only(data, "", _TOP)
        install = self.table(data, "install")
        self.only(install, "install.", ("package", "version", "executable"))
        run = self.table(data, "run")
        self.only(run, "run.", ("command", "interactive"))
        name = self.text(data, "name")
        if not _NAME.match(name):
            raise self.fail("name", f"{name!r} is not a kebab-case name")
        api = self.text(data, "api")
        if api not in MODEL_APIS or api == "unknown":
            raise self.fail("api", f"{api!r} is not one of {', '.join(a for a in MODEL_APIS if a != 'unknown')}")
        executable = self.text(install, "executable", "install.executable")
        self.relative(executable, "install.executable")
        arms = self.arms(self.table(data, "arms"))
        extra = set(next(iter(arms.values())).values)
        files = self.files(data.get("files", []), extra)
        mcp_config = self.text(data, "mcp_config")
        if mcp_config not in {template.path for template in files}:
            raise self.fail("mcp_config", f"{mcp_config!r} is not the path of one of the [[files]]")
        recipe = AgentRecipe(
            name=name,
            source=self.path,
            description=self.text(data, "description"),
            api=api,
            package=self.text(install, "package", "install.package"),
            version=self.text(install, "version", "install.version"),
            executable=executable,
            env=self.env(data.get("env", {}), "env", extra),
            files=files,
            mcp_config=mcp_config,
            command=self.command(run, "command", extra),
            interactive=self.command(run, "interactive", extra),
            arms=arms,
            prompt=self.text(data, "prompt") if "prompt" in data else DEFAULT_PROMPT,
            tty=self.tty(data["tty"], extra) if "tty" in data else None,
        )
        self.placeholders(recipe.prompt, "prompt", set())
        return recipe

    def only(self, table: Mapping[str, Any], prefix: str, known: Sequence[str]) -> None:
        for key in table:
            if key not in known:
                raise self.fail(f"{prefix}{key}", f"unknown key (known: {', '.join(known)})")

    def table(self, data: Mapping[str, Any], key: str) -> dict[str, Any]:
        value = data.get(key)
        if not isinstance(value, dict):
            raise self.fail(key, "missing, or not a table")
        return value

    def text(self, data: Mapping[str, Any], key: str, where: str | None = None) -> str:
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(where or key, f"must be a non-empty string, got {value!r}")
        return value

    def relative(self, path: str, key: str) -> None:
        parts = PurePosixPath(path)
        if parts.is_absolute() or ".." in parts.parts or path.endswith("/"):
            raise self.fail(key, f"{path!r} must be a relative file path with no ..")

    def placeholders(self, text: str, key: str, extra: set[str]) -> None:
        for found in PLACEHOLDER.findall(text):
            if found not in RUN_PLACEHOLDERS and found not in extra:
                allowed = ", ".join(f"{{{name}}}" for name in (*RUN_PLACEHOLDERS, *sorted(extra)))
                raise self.fail(key, f"unknown placeholder {{{found}}} (known: {allowed})")

    def env(self, value: Any, key: str, extra: set[str]) -> dict[str, str]:
        if not isinstance(value, dict):
            raise self.fail(key, 'must be a table of NAME = "value"')
        for name, item in value.items():
            if not _ENV_NAME.match(name):
                raise self.fail(f"{key}.{name}", "not an environment variable name")
            if not isinstance(item, str):
                raise self.fail(f"{key}.{name}", f"must be a string, got {item!r}")
            self.placeholders(item, f"{key}.{name}", extra)
        return dict(value)

    def command(self, run: Mapping[str, Any], key: str, extra: set[str]) -> tuple[str, ...]:
        value = run.get(key)
        where = f"run.{key}"
        if not isinstance(value, list) or not value or not all(isinstance(part, str) for part in value):
            raise self.fail(where, "must be a non-empty list of strings")
        if value[0] != "{exe}":
            raise self.fail(where, "must start with {exe} (the agent's executable in its install folder)")
        if value.count(ARM_ARGS) > 1:
            raise self.fail(where, f"holds {ARM_ARGS} twice (it stands for the arm's arguments, once)")
        for part in value:
            if part != ARM_ARGS:
                self.placeholders(part, where, extra)
        if key == "command" and not any("{prompt}" in part for part in value):
            raise self.fail(where, "must hold {prompt} (the task the agent is given)")
        if key == "interactive" and "tty" in self.data and any("{prompt}" in part for part in value):
            raise self.fail(where, "must not hold {prompt} when [tty] types the task (it would be given twice)")
        return tuple(value)

    def tty(self, value: Any, extra: set[str]) -> TtyRecipe:
        if not isinstance(value, dict):
            raise self.fail("tty", "must be a table")
        self.only(value, "tty.", ("ready", "task", "exit", "react"))
        react = value.get("react", 0.0)
        if isinstance(react, bool) or not isinstance(react, int | float) or not 0 <= react <= 10:
            raise self.fail("tty.react", f"must be a number of seconds from 0 to 10, got {react!r}")
        ready = self.text(value, "ready", "tty.ready")
        try:
            compiled = re.compile(ready, re.MULTILINE)
        except re.error as exc:
            raise self.fail("tty.ready", f"{ready!r} is not a regular expression ({exc})") from None
        if compiled.search("") is not None:
            raise self.fail("tty.ready", f"{ready!r} matches an empty screen, so it says nothing about the UI")
        task = self.keys(value.get("task", list(DEFAULT_TASK_KEYS)), "tty.task", extra)
        if not any("{prompt}" in key for key in task):
            raise self.fail("tty.task", "must hold {prompt} (the task the agent is given)")
        if "exit" not in value:
            raise self.fail("tty.exit", 'missing: the keys that end the agent\'s terminal UI, e.g. ["/exit", "\\r"]')
        return TtyRecipe(ready, task, self.keys(value["exit"], "tty.exit", set()), float(react))

    def keys(self, value: Any, where: str, extra: set[str]) -> tuple[str, ...]:
        if not isinstance(value, list) or not value or not all(isinstance(key, str) and key for key in value):
            raise self.fail(where, "must be a non-empty list of non-empty strings (keys typed in order)")
        for key in value:
            self.placeholders(key, where, extra)
        return tuple(value)

    def files(self, value: Any, extra: set[str]) -> tuple[FileTemplate, ...]:
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise self.fail("files", "must be an array of tables ([[files]])")
        out = []
        for index, item in enumerate(value):
            key = f"files[{index}]"
            self.only(item, f"{key}.", ("path", "format", "text"))
            path = self.text(item, "path", f"{key}.path")
            self.relative(path, f"{key}.path")
            fmt = self.text(item, "format", f"{key}.format")
            if fmt not in FILE_FORMATS:
                raise self.fail(f"{key}.format", f"{fmt!r} is not one of {', '.join(FILE_FORMATS)}")
            text = item.get("text")
            if not isinstance(text, str):
                raise self.fail(f"{key}.text", "must be a string")
            self.placeholders(text, f"{key}.text", extra)
            out.append(FileTemplate(path, fmt, text))
        if len({template.path for template in out}) != len(out):
            raise self.fail("files", "two files have the same path")
        return tuple(out)

    def arms(self, value: dict[str, Any]) -> dict[str, Arm]:
        missing = [name for name in ARMS if name not in value]
        if missing:
            raise self.fail("arms", f"missing [arms.{missing[0]}] (every recipe has {', '.join(ARMS)})")
        arms: dict[str, Arm] = {}
        names: set[str] | None = None
        for name in ARMS:
            key = f"arms.{name}"
            table = value[name]
            if not isinstance(table, dict):
                raise self.fail(key, "must be a table")
            self.only(table, f"{key}.", ("why", "args", "env", "values"))
            values = self.env(table.get("values", {}), f"{key}.values", set())
            for value_name in values:
                if not PLACEHOLDER.fullmatch(f"{{{value_name}}}") or value_name in RUN_PLACEHOLDERS:
                    raise self.fail(f"{key}.values.{value_name}", "must be lower_case and not a run placeholder")
            if names is not None and set(values) != names:
                raise self.fail(f"{key}.values", f"every arm must set the same values ({', '.join(sorted(names))})")
            names = set(values)
            args = table.get("args", [])
            if not isinstance(args, list) or not all(isinstance(part, str) for part in args):
                raise self.fail(f"{key}.args", "must be a list of strings")
            for part in args:
                self.placeholders(part, f"{key}.args", set(values))
            arms[name] = Arm(
                name=name,
                why=self.text(table, "why", f"{key}.why"),
                args=tuple(args),
                env=self.env(table.get("env", {}), f"{key}.env", set(values)),
                values=values,
            )
        for name in value:
            if name not in ARMS:
                raise self.fail(f"arms.{name}", f"unknown arm (arms: {', '.join(ARMS)})")
        return arms
