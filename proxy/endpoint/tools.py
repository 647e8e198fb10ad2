"""The scripted endpoint's vocabulary: tool calls, tool replies, tools, and the tool set one scenario serves."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

ERAS = ("auto", "2026-07-28", "2025-11-25", "2025-06-18")  # what --era takes

__all__ = [
    "ERAS",
    "EndpointConfig",
    "ListenEvent",
    "ListenHook",
    "ToolCall",
    "ToolHandler",
    "ToolReply",
    "ToolSet",
    "ToolSpec",
    "repeated_names",
]


@dataclass(frozen=True)
class ToolCall:
    """One `tools/call` request as a tool handler sees it, in either era."""

    name: str
    arguments: dict[str, Any]
    input_responses: dict[str, Any] | None
    request_state: str | None
    protocol_version: str
    era: Literal["modern", "legacy"]
    client_capabilities: dict[str, Any]
    progress_token: str | int | None
    request_id: object
    headers: dict[str, str]
    nonce: str = ""  # the endpoint's per-recording nonce, for tools that plant markers
    params: Mapping[str, str] = field(default_factory=dict)  # scenario settings (URLs to hand out, hold times)


@dataclass(frozen=True)
class ToolReply:
    """What a tool handler asks the endpoint to answer, and how to deliver it.

    `result` is the bare tool result; on the modern era the endpoint adds `resultType` (unless present) and merges
    its `serverInfo` into `_meta`. `error` is a JSON-RPC error object and wins over `result`. `hold_ms` delays the
    answer; with `transport="sse"` the endpoint streams keep-alive comments (and progress notifications when the
    request carried a progress token and `progress` is set) every `keepalive_ms` while holding. `notifications` are
    JSON-RPC notifications (method and params) the 2025 eras' channel sends on the call's stream as soon as the tool
    has replied, before it acts on the reply (e.g. `notifications/elicitation/complete`); the modern era sends none.
    """

    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    http_status: int = 200
    hold_ms: int = 0
    transport: Literal["json", "sse"] = "json"
    keepalive_ms: int = 500
    progress: bool = True
    notifications: tuple[dict[str, Any], ...] = ()


ToolHandler = Callable[[ToolCall], ToolReply | Awaitable[ToolReply]]


@dataclass(frozen=True)
class ListenEvent:
    """What happened on a 2025 session's open GET stream (proxy/endpoint/listen.py): the stream opened (trigger
    `opened`), or the client sent the notification named by `trigger`."""

    trigger: str
    protocol_version: str
    client_capabilities: Mapping[str, Any]
    params: Mapping[str, str] = field(default_factory=dict)  # the endpoint's scenario settings


# the input requests ({"method", "params"}, as a tool's inputRequests hold them) to send on the stream for an event
ListenHook = Callable[[ListenEvent], Sequence[Mapping[str, Any]]]


@dataclass(frozen=True)
class ToolSpec:
    """A tool the endpoint lists and dispatches to its handler."""

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: ToolHandler
    annotations: dict[str, Any] | None = None

    def listing(self) -> dict[str, Any]:
        """The tool as it appears in a `tools/list` result."""
        tool: dict[str, Any] = {"name": self.name, "description": self.description, "inputSchema": self.input_schema}
        if self.annotations is not None:
            tool["annotations"] = self.annotations
        return tool


def repeated_names(tools: Sequence[ToolSpec]) -> list[str]:
    """The tool names given more than once, sorted: an endpoint could dispatch only one of each."""
    names = [tool.name for tool in tools]
    return sorted({name for name in names if names.count(name) > 1})


@dataclass(frozen=True)
class ToolSet:
    """The tools the endpoint serves for one scenario (a scenario package declares them; see proxy/scenarios)."""

    name: str
    description: str
    tools: tuple[ToolSpec, ...]

    def __post_init__(self) -> None:
        duplicates = repeated_names(self.tools)
        if duplicates:
            raise ValueError(f"scenario {self.name!r} defines tool(s) {duplicates} more than once")


def answer_wait(run_timeout: float) -> float:
    """How long a 2025 call waits for an answer in a run the client may take `run_timeout` seconds for: half of it.

    The wait starts when the request goes out, after the client has started and reached its call; the other half is
    for that and for the client to read the endpoint's tool error and end, so an unanswered request shows in the
    recording as the server giving up, not as a run the harness had to kill."""
    return max(run_timeout / 2, 0.5)


@dataclass(frozen=True)
class EndpointConfig:
    """How one scripted endpoint presents itself, and the tools it serves.

    The tools are handed over as values (a scenario's `tools`, or a test's own): the endpoint never looks a scenario
    up, so nothing under proxy/endpoint imports proxy/scenarios (tests/test_import_graph.py holds that)."""

    tools: tuple[ToolSpec, ...]
    server_name: str = "backchannel-endpoint"
    server_version: str = "0.1.0"
    legacy_only: bool = False
    # the protocol era it speaks: "auto" (whatever the client negotiates), one version only ("2026-07-28"; a 2025
    # version: initialize answers that version and modern requests get the legacy server's refusal)
    era: str = "auto"
    # how long a 2025 call waits for the client to answer a request it was sent; a runner passes
    # `answer_wait(--timeout)`, so the endpoint gives up (a tool error the recording shows) before the run's timeout
    answer_timeout_s: float = 60.0
    instructions: str | None = None
    nonce: str = ""  # handed to every ToolCall, so scenario tools can tag their text with the recording's nonce
    params: Mapping[str, str] = field(default_factory=dict)  # handed to every ToolCall as scenario settings
    # what a 2025 session's GET stream carries (proxy/endpoint/listen.py): None sends only keep-alives on it
    listen: ListenHook | None = None

    def __post_init__(self) -> None:
        if self.era not in ERAS:
            raise ValueError(f"era {self.era!r} is not one of {', '.join(ERAS)}")
        duplicates = repeated_names(self.tools)
        if duplicates:
            raise ValueError(f"the endpoint would serve tool(s) {duplicates} more than once")
