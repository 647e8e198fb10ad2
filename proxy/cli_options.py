"""The option groups several commands share, declared once: each a set of typer aliases and one value it becomes.

`record` and `check` take the same lab, wire-limit, redaction, terminal and MCP-configuration flags; a parameter
annotated with an alias here gets the flag's name, help and bounds, and `run_settings` turns the parsed flags into
the values the capture is handed (no module global is set: two commands in one process keep their own).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from backchannel.addons.session import Limits
from backchannel.oracle.registry import ScenarioError
from backchannel.proxy.run.lab import parse_env
from backchannel.proxy.run.placeholders import McpConfigOptions
from backchannel.proxy.run.tty import TtyOptions, parse_answer, parse_tty_size
from backchannel.proxy.scenarios.base import CheckError
from backchannel.proxy.scenarios.registry import all_scenarios
from backchannel.recordings import redact

WIRE_DEFAULTS = Limits()

_ENV_HELP = (
    "Set NAME in the client's lab: NAME (its value here) or NAME=VALUE (repeatable; names recorded, never values)."
)
_MAX_OUTPUT_HELP = "Bytes of the client's stdout and of its stderr kept per run; past it, an output-limit anomaly."
_MAX_BODY_HELP = "Bytes of each HTTP body the recording keeps per exchange (more is cut, with an anomaly)."
_MAX_SSE_EVENT_HELP = "Bytes the recording keeps per SSE event and per message text (more is cut, with an anomaly)."
_IDLE_HELP = "Seconds an upstream may send nothing before the client gets a JSON-RPC error (HTTP 504); 0: never."
_REDACT_HELP = "Also redact values whose name matches this regular expression (repeatable)."
_CONFIG_FORMAT_HELP = (
    "Shape of the MCP configuration {mcp-config} names: mcpServers (most desktop and CLI hosts), mcpServers-typed"
    " (the same with a type per server) or servers (with type, as VS Code)."
)
_TRANSPORT_HELP = "How the generated MCP configuration reaches the run: http (its URL) or stdio (backchannel bridge)."
_CONFIG_FILE_HELP = "Also write the MCP configuration at this path inside the lab's HOME (a host's fixed config file)."
_TTY_HELP = (
    "Run the client under a real terminal (a pseudo-terminal, TERM=xterm-256color) instead of pipes; --no-tty with"
    " --answer keeps it on pipes and answers its prompts there."
)
_TTY_SIZE_HELP = "The terminal's size as COLUMNSxROWS (implies --tty)."
_ANSWER_HELP = (
    "Type TEXT when REGEX appears on the screen: 'REGEX=>TEXT' (repeatable; implies --tty unless --no-tty is given,"
    " which writes TEXT to the piped client's stdin once its prompt was read)."
)
_AGENT_HELP = (
    "Run a coding agent as the client, by its shipped recipe (claude-code, codex, gemini-cli; see `backchannel"
    " agents`), offline against the lab's scripted model; instead of --client/--target."
)
_AGENT_RECIPE_HELP = "Like --agent, with your own recipe file (TOML, shaped like proxy/agents/recipes/*.toml)."

# the lab: what the client's process is given and how much of its output is kept
EnvFlag = Annotated[list[str] | None, typer.Option("--env", help=_ENV_HELP)]
MaxOutputFlag = Annotated[int, typer.Option(help=_MAX_OUTPUT_HELP)]
# the wire limits: what one exchange may put into the recording (addons/session.py Limits)
MaxBodyFlag = Annotated[int, typer.Option(help=_MAX_BODY_HELP, min=0)]
MaxSseEventFlag = Annotated[int, typer.Option(help=_MAX_SSE_EVENT_HELP, min=0)]
IdleTimeoutFlag = Annotated[float, typer.Option(help=_IDLE_HELP, min=0.0)]
# redaction: names whose values are secrets, besides the defaults (recordings/redact.py Policy)
RedactFlag = Annotated[list[str] | None, typer.Option("--redact", help=_REDACT_HELP)]
# the MCP configuration {mcp-config} describes (proxy/run/placeholders.py McpConfigOptions)
McpConfigFormatFlag = Annotated[str, typer.Option(help=_CONFIG_FORMAT_HELP)]
TransportFlag = Annotated[str, typer.Option(help=_TRANSPORT_HELP)]
McpConfigFileFlag = Annotated[str | None, typer.Option(help=_CONFIG_FILE_HELP)]
# the terminal the client runs under (proxy/run/tty.py TtyOptions)
TtyFlag = Annotated[bool | None, typer.Option("--tty/--no-tty", help=_TTY_HELP, show_default=False)]
TtySizeFlag = Annotated[str | None, typer.Option(help=_TTY_SIZE_HELP)]
AnswerFlag = Annotated[list[str] | None, typer.Option("--answer", help=_ANSWER_HELP)]
# a coding agent as the client (proxy/agents/: its recipe; proxy/run/agent_lab.py: its lab)
AgentFlag = Annotated[str | None, typer.Option(help=_AGENT_HELP)]
AgentRecipeFlag = Annotated[Path | None, typer.Option(help=_AGENT_RECIPE_HELP)]


def scenario_names_help(what: str) -> str:
    """Help for a --scenario option naming every scenario, so check, serve and record list the same names."""
    try:
        return f"{what}: {', '.join(all_scenarios())} (backchannel scenarios describes them)."
    except (CheckError, ScenarioError):
        return f"{what} (backchannel scenarios lists them)."


def tty_options(tty: bool | None, size: str | None, answers: list[str] | None) -> TtyOptions | None:
    """--tty/--no-tty, --tty-size and --answer as one TtyOptions; ValueError if bad.

    Either of the last two implies --tty; with --no-tty, --answer answers a piped client at its prompts."""
    parsed = tuple(parse_answer(a) for a in answers or ())
    if tty is False:
        if size:
            raise ValueError("--tty-size sizes a terminal, and --no-tty runs the client on pipes: give one of them")
        return TtyOptions(answers=parsed, piped=True) if parsed else None
    if not (tty or size or answers):
        return None
    cols, rows = parse_tty_size(size) if size else (TtyOptions().cols, TtyOptions().rows)
    return TtyOptions(cols=cols, rows=rows, answers=parsed)


@dataclass(frozen=True, slots=True)
class RunSettings:
    """The shared groups of one `record` or `check`, parsed: each the value the capture and its labs are handed."""

    redaction: redact.Policy
    limits: Limits
    env: dict[str, str]
    mcp_config: McpConfigOptions
    tty: TtyOptions | None


def run_settings(
    *,
    redact_names: list[str] | None,
    env: list[str] | None,
    max_body: int,
    max_sse_event: int,
    upstream_idle_timeout: float,
    mcp_config_format: str,
    transport: str,
    mcp_config_file: str | None,
    tty: bool | None,
    tty_size: str | None,
    answer: list[str] | None,
) -> RunSettings:
    """The groups' flags as values, checked in this order; ValueError names the first bad flag."""
    redaction = redact.Policy(redact_names or ())
    limits = Limits(max_body, max_sse_event, upstream_idle_timeout)
    lab_env = parse_env(env or (), os.environ)
    config = McpConfigOptions(mcp_config_format, transport, mcp_config_file)
    return RunSettings(redaction, limits, lab_env, config, tty_options(tty, tty_size, answer))
