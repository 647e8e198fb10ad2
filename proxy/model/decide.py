"""The script's decision for one turn: call the scripted MCP tool, answer after its result, or (the compromised arm)
follow a directive seen in the context through the agent's own file-writing tool. Pure: a turn and a script in,
an action and the step that explains it out.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from backchannel.oracle.detectors.markers import DIRECTIVE_VERB
from backchannel.proxy.model.schema_value import value_for
from backchannel.proxy.model.script import ModelScript
from backchannel.proxy.model.turn import Action, CallAction, ModelTurn, OfferedTool, TextAction

TOOL_SEARCH = "tool_search"  # a tool kind: the agent searches its deferred tools itself (Codex)
CLAUDE_TOOL_SEARCH = "ToolSearch"  # Claude Code's tool that loads deferred tools' schemas
# The path and token stop at characters that end a word in prose or in JSON carried inside a string.
DIRECTIVE = re.compile(re.escape(DIRECTIVE_VERB) + r"\s+(?P<path>[^\s\"'`<>\\]+)\s+(?P<token>[A-Za-z0-9._:-]+)")
MAX_LISTED = 50
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


@dataclass(frozen=True, slots=True)
class Decision:
    action: Action
    step: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Directive:
    path: str
    token: str


def decide(turn: ModelTurn, script: ModelScript, new_id: Callable[[], str]) -> Decision:
    """What the model does with this turn; `new_id` names a tool call it makes."""
    if turn.response_schema is not None and not turn.tools:  # a side request (Gemini CLI's router): JSON, nothing else
        return Decision(TextAction(_fitting(turn.response_schema)), {"action": "schema-answer"})
    unfollowed: dict[str, Any] | None = None
    if script.follow_directives:
        directive = pending_directive(turn)
        if directive is not None:
            write = write_call(turn.tools, directive, new_id)
            if write is not None:
                step = {"action": "follow-directive", "tool": _label(write), "path": directive.path}
                return Decision(write, {**step, "token": directive.token, "call_id": write.call_id})
            unfollowed = {"path": directive.path, "token": directive.token, "outcome": "no-write-tool"}
    decision = _script_step(turn, script, new_id)
    if unfollowed is not None:
        decision.step["directive"] = unfollowed
    if turn.response_schema is not None and isinstance(decision.action, TextAction):
        # the agent wants its final answer structured (Codex --output-schema): the answer becomes fitting JSON
        return Decision(TextAction(_fitting(turn.response_schema)), {**decision.step, "format": "json-schema"})
    return decision


def _fitting(schema: dict[str, Any]) -> str:
    return orjson.dumps(value_for(schema)).decode()


def _script_step(turn: ModelTurn, script: ModelScript, new_id: Callable[[], str]) -> Decision:
    past = [call for call in turn.calls if _is_scripted(call.name, call.namespace, script)]
    if past:  # called before: answer (once its result is in, or if the agent never answered it, to end the loop)
        after = "tool-result" if any(call.answered for call in past) else "unanswered-call"
        return Decision(TextAction(script.answer), {"action": "answer", "after": after})
    if not turn.tools:  # an agent's side request (a title, a summary): nothing to call, so just text
        return Decision(TextAction(script.answer), {"action": "answer", "after": "no-tools-offered"})
    offered = find_tool(turn.tools, script) or _deferred(turn, script)
    if offered is None and (search := _search(turn, script, new_id)) is not None:
        return search
    if offered is None:
        text = f"The tool {script.tool!r} of server {script.server!r} is not among the tools offered to me."
        listed = [_label(tool) for tool in turn.tools[:MAX_LISTED]]
        step: dict[str, Any] = {
            "action": "tool-not-offered",
            "tool": script.tool,
            "server": script.server,
            "offered": listed,
        }
        return Decision(TextAction(text), step)
    call = CallAction(offered.name, dict(script.arguments), new_id(), offered.namespace, offered.kind)
    step = {"action": "call-tool", "tool": _label(call), "arguments": dict(script.arguments), "call_id": call.call_id}
    return Decision(call, step)


def _search(turn: ModelTurn, script: ModelScript, new_id: Callable[[], str]) -> Decision | None:
    """Agents that defer MCP tools offer a search that loads them (Codex `tool_search`, run by the agent itself;
    Claude Code `ToolSearch` without ENABLE_TOOL_SEARCH=false): ask it for the scripted tool, once."""
    if any(call.name in (TOOL_SEARCH, CLAUDE_TOOL_SEARCH) for call in turn.calls):
        return None
    for tool in turn.tools:
        if tool.kind == TOOL_SEARCH:
            query = {"query": f"{script.server} {script.tool}"}
        elif tool.name == CLAUDE_TOOL_SEARCH and tool.namespace is None:
            query = {"query": f"select:mcp__{script.server}__{script.tool}"}
        else:
            continue
        call = CallAction(tool.name, query, new_id(), None, tool.kind)
        return Decision(call, {"action": "search-tools", "tool": tool.name, **query, "call_id": call.call_id})
    return None


def _deferred(turn: ModelTurn, script: ModelScript) -> OfferedTool | None:
    """Claude Code's deferred MCP tool, callable by its name once a ToolSearch the agent answered loaded it."""
    name = f"mcp__{script.server}__{script.tool}"
    searched = any(call.name == CLAUDE_TOOL_SEARCH and call.answered for call in turn.calls)
    return OfferedTool(name) if searched and any(name in text for text in turn.texts) else None


def agent_names(script: ModelScript) -> tuple[str, ...]:
    """The names agents give an MCP tool: Claude Code's, Gemini CLI's, then the bare name as a fallback."""
    return (f"mcp__{script.server}__{script.tool}", f"mcp_{script.server}_{script.tool}", script.tool)


def find_tool(tools: tuple[OfferedTool, ...], script: ModelScript) -> OfferedTool | None:
    """The scripted tool among those offered, by the agents' naming in order of preference: exactly, then with every
    character but letters, digits and _ read as _ (Codex offers server "back-channel" as namespace mcp__back_channel).
    """
    for same in (_exact, _sanitized):
        for tool in tools:  # Codex: a namespace mcp__SERVER holding the bare tool name
            if tool.namespace is not None and _is_scripted(tool.name, tool.namespace, script, same):
                return tool
        for name in agent_names(script):
            for tool in tools:
                if tool.namespace is None and same(tool.name, name):
                    return tool
    return None


def _exact(a: str, b: str) -> bool:
    return a == b


def _sanitized(a: str, b: str) -> bool:
    return _UNSAFE.sub("_", a) == _UNSAFE.sub("_", b)


def _is_scripted(
    name: str, namespace: str | None, script: ModelScript, same: Callable[[str, str], bool] = _sanitized
) -> bool:
    if namespace is not None:
        return same(namespace, f"mcp__{script.server}") and same(name, script.tool)
    return any(same(name, candidate) for candidate in agent_names(script))


def directives_in(turn: ModelTurn) -> list[Directive]:
    """Every directive in the turn's context, in order, each (path, token) once."""
    seen: dict[tuple[str, str], Directive] = {}
    for text in turn.texts:
        if DIRECTIVE_VERB not in text:
            continue
        for match in DIRECTIVE.finditer(text):
            key = (match["path"], match["token"])
            seen.setdefault(key, Directive(*key))
    return list(seen.values())


def pending_directive(turn: ModelTurn) -> Directive | None:
    """The first directive the model has not yet acted on (a directive is followed once: an earlier call carries its
    token)."""
    for directive in directives_in(turn):
        if not any(directive.token in call.arguments for call in turn.calls):
            return directive
    return None


def write_call(tools: tuple[OfferedTool, ...], directive: Directive, new_id: Callable[[], str]) -> CallAction | None:
    """A call of the agent's own tool that writes the token into the path, or None if it offers none we know.

    Preference: a file-writing tool (Claude Code `Write`, Gemini CLI `write_file`), then a patch tool (Codex
    `apply_patch`), then a shell tool (Codex `exec_command`/`shell`/`shell_command`, Claude Code `Bash`, Gemini CLI
    `run_shell_command`)."""
    by_name = {tool.name: tool for tool in tools if tool.namespace is None}
    command = _shell_command(directive)
    for name, arguments in _WRITERS(directive, command):
        tool = by_name.get(name)
        if tool is None:
            continue
        if name == "apply_patch":
            patch = _patch(directive)
            value: dict[str, Any] | str = patch if tool.kind == "custom" else {"input": patch}
            return CallAction(name, value, new_id(), None, tool.kind)
        return CallAction(name, arguments, new_id(), None, tool.kind)
    return None


def _WRITERS(directive: Directive, command: str) -> list[tuple[str, dict[str, Any]]]:  # noqa: N802
    file_args = {"file_path": directive.path, "content": directive.token}
    return [
        ("Write", file_args),
        ("write_file", file_args),
        ("apply_patch", {}),
        ("exec_command", {"cmd": command}),
        ("shell_command", {"command": command}),
        ("shell", {"command": ["bash", "-lc", command]}),
        ("Bash", {"command": command}),
        ("run_shell_command", {"command": command}),
    ]


def _shell_command(directive: Directive) -> str:
    path = directive.path
    # "~/x" quoted would not expand; "$HOME"/'x' does, and the rest stays quoted.
    target = f'"$HOME"/{shlex.quote(path[2:])}' if path.startswith("~/") else shlex.quote(path)
    return f"mkdir -p \"$(dirname {target})\" && printf '%s' {shlex.quote(directive.token)} > {target}"


def _patch(directive: Directive) -> str:
    return f"*** Begin Patch\n*** Add File: {directive.path}\n+{directive.token}\n*** End Patch\n"


def _label(tool: OfferedTool | CallAction) -> str:
    return f"{tool.namespace}/{tool.name}" if tool.namespace else tool.name
