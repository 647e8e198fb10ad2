"""The official conformance suite's client contract, spoken by the Python SDK driver when the suite runs it.

The suite (`@modelcontextprotocol/conformance`) starts a mock server per scenario and runs the client with the
server's URL as the last argument and three variables: `MCP_CONFORMANCE_SCENARIO` (the scenario's name),
`MCP_CONFORMANCE_PROTOCOL_VERSION` and, for some scenarios, `MCP_CONFORMANCE_CONTEXT` (JSON). Its client scenarios are
scripted: the mock judges what the client sends, so the client must make the calls the mock expects. backchannel's
`conformance` scenario gives its clients the same variables and tool names.

What this module decides is only which calls to make and how to answer; the SDK does the protocol (era negotiation,
MRTR rounds, the requestState echo, headers, result validation), so the suite's verdicts speak about the SDK:

- `sep-2322-client-request-state`: list tools; call `test_mrtr_echo_state`, and from inside its first input request
  (between the round and its retry) call `test_mrtr_unrelated`; then `test_mrtr_no_state`, then
  `test_mrtr_no_result_type`. An SDK that never asks (no round) gets the unrelated call afterwards.
- a scenario whose context names `toolCalls` (`http-custom-headers`): list tools, then make exactly those calls.
- every other scenario (`request-metadata`, `tools_call`, `http-standard-headers`, `http-invalid-tool-headers`, ...):
  list tools and call each the SDK lists, with arguments made from its input schema; read every listed resource
  and get every listed prompt when the server declares those capabilities.

Elicitations are shown and answered as the drivers' contract says (`backchannel.proxy.clients.drivers`); exit 0 when
every call gave a result, 1 when any failed (the suite reads its own checks, never this code alone).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from mcp import Client
from mcp.client.session import ClientRequestContext
from mcp_types import ElicitRequestParams, ElicitRequestURLParams, ElicitResult, Implementation

from backchannel.proxy.clients.drivers.py_sdk_text import (
    DRIVER_NAME,
    DRIVER_VERSION,
    answer_for,
    error_line,
    leaf,
    origin_of,
    printable,
    render_request,
    say,
)

SCENARIO_ENV = "MCP_CONFORMANCE_SCENARIO"
VERSION_ENV = "MCP_CONFORMANCE_PROTOCOL_VERSION"
CONTEXT_ENV = "MCP_CONFORMANCE_CONTEXT"

MRTR_SCENARIO = "sep-2322-client-request-state"
ECHO_STATE = "test_mrtr_echo_state"
NO_STATE = "test_mrtr_no_state"
UNRELATED = "test_mrtr_unrelated"
NO_RESULT_TYPE = "test_mrtr_no_result_type"

# a value of each JSON Schema type, for a required argument the scenario gives no value for
SAMPLE_VALUES: dict[str, Any] = {"string": "backchannel", "integer": 2, "number": 3, "boolean": True}


@dataclass(frozen=True)
class Contract:
    """What the suite told the client: the scenario, its protocol version and its context (empty when none)."""

    scenario: str
    version: str | None = None
    context: Mapping[str, Any] = field(default_factory=dict)


def contract_from(environ: Mapping[str, str]) -> Contract | None:
    """The contract the variables name; None when `MCP_CONFORMANCE_SCENARIO` is not set (the driver's own contract).

    Raises:
        ValueError: `MCP_CONFORMANCE_CONTEXT` is set but is not a JSON object.
    """
    scenario = environ.get(SCENARIO_ENV)
    if not scenario:
        return None
    raw = environ.get(CONTEXT_ENV)
    context = json.loads(raw) if raw else {}
    if not isinstance(context, dict):
        raise ValueError(f"{CONTEXT_ENV} is not a JSON object")
    return Contract(scenario, environ.get(VERSION_ENV) or None, context)


def sample_arguments(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments for a call no scenario scripts: a value of its type for each required property (others left out)."""
    properties = schema.get("properties")
    required = schema.get("required")
    if not isinstance(properties, dict) or not isinstance(required, list):
        return {}
    chosen: dict[str, Any] = {}
    for name in required:
        kind = properties.get(name, {}).get("type") if isinstance(properties.get(name), dict) else None
        if isinstance(name, str) and isinstance(kind, str) and kind in SAMPLE_VALUES:
            chosen[name] = SAMPLE_VALUES[kind]
    return chosen


def scripted_calls(context: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]] | None:
    """The context's `toolCalls` as (name, arguments); None when the context names none."""
    calls = context.get("toolCalls")
    if not isinstance(calls, list):
        return None
    return [
        (str(call["name"]), dict(call.get("arguments") or {}))
        for call in calls
        if isinstance(call, dict) and isinstance(call.get("name"), str)
    ]


class Session:
    """One connection to the scenario's server: calls that report their outcome, and the input-request answers."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.origin = origin_of(url)
        self.failed = False
        self.client: Client | None = None
        # run once, from inside the first input request: the MRTR scenario's call between a round and its retry
        self.on_first_round: Callable[[], Awaitable[None]] | None = None

    async def on_elicit(self, context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        kind, link = ("url", params.url) if isinstance(params, ElicitRequestURLParams) else ("form", None)
        info = context.session.server_info
        say(render_request(info.name if info else None, self.origin, kind, params.message, link))
        hook, self.on_first_round = self.on_first_round, None
        if hook is not None:
            await hook()
        answer = answer_for(kind, params.message)
        say(f"[answered: {answer['action']}{', content {confirmed: true}' if 'content' in answer else ''}]")
        return ElicitResult.model_validate(answer)

    async def call(self, name: str, arguments: dict[str, Any]) -> None:
        assert self.client is not None
        try:
            result = await self.client.call_tool(name, arguments)
        except Exception as exc:  # one call failing must not hide what the others do
            say(f"{error_line(leaf(exc))} [tool {printable(name)}]", err=True)
            self.failed = True
            return
        for block in result.content:
            text = getattr(block, "text", None)
            say(f"result {name}: {printable(text) if isinstance(text, str) else f'[{block.type} block]'}")

    async def attempt(self, what: str, step: Callable[[], Awaitable[object]]) -> None:
        """A listing or a read; a failure is reported and the run goes on."""
        try:
            await step()
        except Exception as exc:
            say(f"{error_line(leaf(exc))} [{what}]", err=True)
            self.failed = True


async def request_state(session: Session, client: Client) -> None:
    await client.list_tools()
    unrelated_called = False

    async def unrelated() -> None:
        nonlocal unrelated_called
        unrelated_called = True
        await session.call(UNRELATED, {})

    session.on_first_round = unrelated
    await session.call(ECHO_STATE, {})
    session.on_first_round = None
    if not unrelated_called:  # the SDK never asked: the call can only come after
        await unrelated()
    await session.call(NO_STATE, {})
    await session.call(NO_RESULT_TYPE, {})


async def every_call(session: Session, client: Client, context: Mapping[str, Any]) -> None:
    tools = (await client.list_tools()).tools
    scripted = scripted_calls(context)
    calls = scripted if scripted is not None else [(t.name, sample_arguments(t.input_schema)) for t in tools]
    for name, arguments in calls:
        await session.call(name, arguments)
    capabilities = client.server_capabilities
    if capabilities is not None and capabilities.resources is not None:
        for resource in (await client.list_resources()).resources:
            await session.attempt(f"resource {resource.uri}", partial(client.read_resource, resource.uri))
    if capabilities is not None and capabilities.prompts is not None:
        for prompt in (await client.list_prompts()).prompts:
            await session.attempt(f"prompt {prompt.name}", partial(client.get_prompt, prompt.name))


async def run(url: str, contract: Contract) -> int:
    session = Session(url)
    async with Client(
        url,
        mode="auto",
        elicitation_callback=session.on_elicit,
        client_info=Implementation(name=DRIVER_NAME, version=DRIVER_VERSION),
    ) as client:
        session.client = client
        if contract.scenario == MRTR_SCENARIO:
            await request_state(session, client)
        else:
            await every_call(session, client, contract.context)
    return 1 if session.failed else 0


def main(argv: Sequence[str], environ: Mapping[str, str] | None = None) -> int:
    """Run the scenario the variables name against the URL, the last argument (the suite appends it)."""
    try:
        contract = contract_from(os.environ if environ is None else environ)
    except ValueError as exc:
        say(f"error: {exc}", err=True)
        return 2
    if contract is None or not argv:
        say(f"error: the suite's contract needs {SCENARIO_ENV} and the server URL as the last argument", err=True)
        return 2
    try:
        return asyncio.run(run(argv[-1], contract))
    except Exception as exc:  # connect or list failed: one line, like an MCP error
        say(error_line(leaf(exc)), err=True)
        return 1
    except BaseExceptionGroup as group:
        say(error_line(leaf(group)), err=True)
        return 1
