"""How the lab's model behaves, as plain data: which MCP tool it asks the agent to call, what it answers after the
tool's result, and whether it follows a directive it sees in its context (the compromised-model arm)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_ANSWER = "Done: the tool answered."
_FIELDS = ("tool", "server", "arguments", "answer", "follow_directives")


class ScriptError(ValueError):
    """A model script that cannot be used; the message names the bad field."""


@dataclass(frozen=True, slots=True)
class ModelScript:
    """The model's script. `tool` is the bare MCP tool name and `server` the MCP server name the agent was configured
    with; the agent's own naming of the tool (mcp__SERVER__TOOL, a namespace mcp__SERVER, mcp_SERVER_TOOL) is
    derived from them (decide.py)."""

    tool: str
    server: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    answer: str = DEFAULT_ANSWER
    follow_directives: bool = False

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> ModelScript:
        """A script from plain data (a TOML table, JSON object).

        Raises:
            ScriptError: a field is missing, of the wrong type, or unknown.
        """
        if not isinstance(data, Mapping):
            raise ScriptError(f"model script: expected a table, got {type(data).__name__}")
        unknown = sorted(str(key) for key in data if key not in _FIELDS)
        if unknown:
            raise ScriptError(f"model script: unknown field {unknown[0]!r} (fields: {', '.join(_FIELDS)})")
        return cls(
            tool=_name(data, "tool"),
            server=_name(data, "server"),
            arguments=_arguments(data.get("arguments", {})),
            answer=_text(data, "answer", DEFAULT_ANSWER),
            follow_directives=_flag(data, "follow_directives"),
        )

    @classmethod
    def from_toml(cls, source: str | Path) -> ModelScript:
        """A script from a TOML file (a Path) or TOML text (a str); a `[model]` table is used when present.

        Raises:
            ScriptError: the TOML does not parse or a field is wrong.
            OSError: the file cannot be read.
        """
        text = source.read_text(encoding="utf-8") if isinstance(source, Path) else source
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ScriptError(f"model script: not TOML: {exc}") from None
        table = data.get("model", data)
        return cls.from_data(table)

    def to_data(self) -> dict[str, Any]:
        """The script as plain data (from_data reads it back)."""
        return {
            "tool": self.tool,
            "server": self.server,
            "arguments": dict(self.arguments),
            "answer": self.answer,
            "follow_directives": self.follow_directives,
        }


def _name(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ScriptError(f"model script: {key!r} must be a non-empty string, got {value!r}")
    if any(ch.isspace() for ch in value):
        raise ScriptError(f"model script: {key!r} must not contain whitespace, got {value!r}")
    return value


def _arguments(value: Any) -> dict[str, Any]:
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise ScriptError(f"model script: 'arguments' must be a table with string keys, got {value!r}")
    return dict(value)


def _text(data: Mapping[str, Any], key: str, default: str) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise ScriptError(f"model script: {key!r} must be a string, got {value!r}")
    return value


def _flag(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise ScriptError(f"model script: {key!r} must be true or false, got {value!r}")
    return value
