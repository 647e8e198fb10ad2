"""The toy agent's wire flaws (`--wire-flaw NAME`, toy_agent_core.WIRE_FLAWS): each changes exactly what it says on
the wire (the same call against the same in-test server, with and without the flaw, request by request), and a
recorded session with it against a real SDK server (`backchannel record --upstream`) FAILs the session rule it names
(WARNs, for the SHOULD) and no other client rule but the one it cannot help breaking, where the unflawed build
PASSes that rule (or, for a rule only a flaw exercises, leaves it not exercised)."""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from backchannel.oracle import all_checks, judge
from backchannel.proxy.clients import toy_agent_wire as wire
from backchannel.proxy.clients.toy_agent_core import INVENTED_STATE, WIRE_FLAWS, Build
from backchannel.proxy.servers.launch import ServerProcess, py_server, start_server
from backchannel.proxy.servers.paths import node_server
from backchannel.recordings import load
from tests.in_process import record_upstream
from tests.proxy.clients.conftest import (
    CC,
    CI,
    CONTENT,
    DEFAULT_CAPS,
    MODERN,
    STATE,
    Lab,
    Stub,
    call,
    elicitation,
    run_agent,
    text_result,
)

LEGACY = "2025-11-25"
FIX = ("--fix", "result-type")  # one tools/call per answer in the wire comparisons (no blind retries)
SKIPPED_HEADERS = ("host", "content-length")  # the stub's port, and a length that follows the body

# --- an in-test server with one MRTR round ---------------------------------------------------------------------


class RoundStub(Stub):
    """The conftest stub, with tools/call answering `input_required` (two form requests, and STATE unless
    `stateless`) until a call carries inputResponses, then complete; tools/list answers an empty list and a
    JSON-RPC response the client posts gets 202. Every POST is recorded, headers and all."""

    def __init__(self, *, stateless: bool = False, legacy: bool = False) -> None:
        super().__init__(text_result(CONTENT, resultType="complete"), legacy=legacy)
        self.stateless = stateless

    def answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        method, rid = body.get("method"), body.get("id")
        if method is None:  # a response of the client's
            return self._send(handler, 202, b"", "application/json")
        if method == "tools/list":
            return self._json(
                handler, 200, {"jsonrpc": "2.0", "id": rid, "result": {"resultType": "complete", "tools": []}}
            )
        if method == "tools/call" and not self.legacy and not body["params"].get("inputResponses"):
            result: dict[str, Any] = {
                "resultType": "input_required",
                "inputRequests": {"first": elicitation("Confirm one?"), "second": elicitation("Confirm two?")},
            }
            if not self.stateless:
                result["requestState"] = STATE
            return self._json(handler, 200, {"jsonrpc": "2.0", "id": rid, "result": result})
        return super().answer(handler, body)


Sent = list[dict[str, Any]]


def sent(lab: Lab, *options: str, stateless: bool = False, legacy: bool = False) -> Sent:
    """Every POST the toy made for one `mcp call` (with `options`), bodies and headers, minus SKIPPED_HEADERS."""
    with RoundStub(stateless=stateless, legacy=legacy) as stub:
        done = call(lab, stub.url, "t", {}, *FIX, *options)
    assert done.returncode == 0, done.stderr
    for request in stub.requests:
        for name in SKIPPED_HEADERS:
            request["headers"].pop(name, None)
    return stub.requests


def pair(lab: Lab, flaw: str, *options: str, stateless: bool = False, legacy: bool = False) -> tuple[Sent, Sent]:
    """What the unflawed build sent, and what the same build with `flaw` sent, for the same call."""
    clean = sent(lab, *options, stateless=stateless, legacy=legacy)
    flawed = sent(lab, "--wire-flaw", flaw, *options, stateless=stateless, legacy=legacy)
    return clean, flawed


def edited(requests: Sent, edit: Callable[[dict[str, Any]], None], *, skip: str = "server/discover") -> Sent:
    """A deep copy of `requests` with `edit` applied to each but those of method `skip`."""
    out = copy.deepcopy(requests)
    for request in out:
        if request.get("method") != skip:
            edit(request)
    return out


def index_of_retry(requests: Sent) -> int:
    return max(i for i, r in enumerate(requests) if r.get("method") == "tools/call")


def test_the_round_stub_sees_the_unflawed_toy_send_the_usual_messages(lab: Lab) -> None:
    requests = sent(lab)
    assert [r["method"] for r in requests] == ["server/discover", "tools/call", "tools/call"]
    assert [r["id"] for r in requests] == [1, 2, 3]
    retry = requests[2]["params"]
    assert retry["requestState"] == STATE and set(retry["inputResponses"]) == {"first", "second"}
    for request in requests:
        assert request["params"]["_meta"] == {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            CC: DEFAULT_CAPS,
            CI: {"name": "backchannel-toy-agent", "version": "0.1.0"},
        }
        assert request["headers"]["mcp-protocol-version"] == MODERN
        assert request["headers"]["mcp-method"] == request["method"]


# --- each flaw changes exactly what it says, in the era it belongs to --------------------------------------------


def test_retry_same_id_reuses_the_id_of_the_retried_request(lab: Lab) -> None:
    clean, flawed = pair(lab, "retry-same-id")
    expected = copy.deepcopy(clean)
    expected[2]["id"] = clean[1]["id"]
    assert flawed == expected and flawed[2]["id"] == flawed[1]["id"] == 2


def test_invent_state_sends_a_request_state_the_round_did_not_carry(lab: Lab) -> None:
    clean, flawed = pair(lab, "invent-state", stateless=True)
    assert "requestState" not in clean[2]["params"]
    expected = copy.deepcopy(clean)
    expected[2]["params"]["requestState"] = INVENTED_STATE
    assert flawed == expected
    # a round that did carry one is echoed as ever
    assert sent(lab, "--wire-flaw", "invent-state") == sent(lab)


def test_state_elsewhere_sends_the_rounds_state_on_a_tools_list_before_the_retry(lab: Lab) -> None:
    clean, flawed = pair(lab, "state-elsewhere")
    meta = clean[1]["params"]["_meta"]
    headers = {**clean[0]["headers"], "mcp-method": "tools/list"}
    listing = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"requestState": STATE, "_meta": meta}}
    retry = {**copy.deepcopy(clean[2]), "id": 4}
    assert flawed == [*clean[:2], {**listing, "headers": headers}, retry]


def test_alter_state_echoes_the_request_state_with_a_character_added(lab: Lab) -> None:
    clean, flawed = pair(lab, "alter-state")
    expected = copy.deepcopy(clean)
    expected[2]["params"]["requestState"] = STATE + "~"
    assert flawed == expected


def test_skip_input_leaves_the_last_input_request_unanswered(lab: Lab) -> None:
    clean, flawed = pair(lab, "skip-input")
    expected = copy.deepcopy(clean)
    del expected[2]["params"]["inputResponses"]["second"]
    assert flawed == expected and list(flawed[2]["params"]["inputResponses"]) == ["first"]


def test_no_client_capabilities_drops_them_from_meta_after_the_probe(lab: Lab) -> None:
    clean, flawed = pair(lab, "no-client-capabilities")
    assert flawed == edited(clean, lambda r: r["params"]["_meta"].pop(CC))
    assert CC in flawed[0]["params"]["_meta"]  # server/discover is sent right: the era stays 2026-07-28


def test_no_client_info_drops_it_from_meta_after_the_probe(lab: Lab) -> None:
    clean, flawed = pair(lab, "no-client-info")
    assert flawed == edited(clean, lambda r: r["params"]["_meta"].pop(CI))


def test_capability_not_object_declares_roots_true_in_either_era(lab: Lab) -> None:
    clean, flawed = pair(lab, "capability-not-object")
    assert flawed == edited(clean, lambda r: r["params"]["_meta"][CC].update(roots=True))
    clean, flawed = pair(lab, "capability-not-object", "--variant", "legacy-only", legacy=True)
    expected = copy.deepcopy(clean)
    expected[0]["params"]["capabilities"]["roots"] = True  # initialize declares them in the 2025 eras
    assert flawed == expected and flawed[0]["params"]["capabilities"] == {**DEFAULT_CAPS, "roots": True}


@pytest.mark.parametrize(
    ("flaw", "name"), [("elicitation-not-object", "elicitation"), ("sampling-not-object", "sampling")]
)
def test_a_not_object_flaw_declares_its_capability_as_true(lab: Lab, flaw: str, name: str) -> None:
    clean, flawed = pair(lab, flaw)
    assert flawed == edited(clean, lambda r: r["params"]["_meta"][CC].update({name: True}))


def test_client_info_no_version_keeps_the_name_and_drops_the_version(lab: Lab) -> None:
    clean, flawed = pair(lab, "client-info-no-version")
    assert flawed == edited(clean, lambda r: r["params"]["_meta"][CI].pop("version"))


def test_no_version_header_drops_mcp_protocol_version_after_the_probe(lab: Lab) -> None:
    clean, flawed = pair(lab, "no-version-header")
    assert flawed == edited(clean, lambda r: r["headers"].pop("mcp-protocol-version"))
    assert all(r["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == MODERN for r in flawed)


def test_version_header_mismatch_says_2025_11_25_while_meta_says_2026_07_28(lab: Lab) -> None:
    clean, flawed = pair(lab, "version-header-mismatch")
    assert flawed == edited(clean, lambda r: r["headers"].update({"mcp-protocol-version": LEGACY}))


def test_wrong_method_header_names_another_method_than_the_body(lab: Lab) -> None:
    clean, flawed = pair(lab, "wrong-method-header")
    assert flawed == edited(clean, lambda r: r["headers"].update({"mcp-method": "tools/list"}))
    assert flawed[1]["headers"]["mcp-name"] == "t"  # Mcp-Name still follows the body
    assert wire.wrong_method("tools/list") == "ping"


def test_unasked_response_posts_a_response_to_a_request_never_sent(lab: Lab) -> None:
    clean, flawed = pair(lab, "unasked-response")
    headers = {k: v for k, v in clean[0]["headers"].items() if k != "mcp-method"}
    response = {"jsonrpc": "2.0", "id": 999, "result": {"resultType": "complete"}, "headers": headers}
    assert flawed == [clean[0], response, *clean[1:]]
    clean, flawed = pair(lab, "unasked-response", "--variant", "legacy-only", legacy=True)
    assert [r.get("method") for r in clean] == ["initialize", "notifications/initialized", "tools/call"]
    response = {"jsonrpc": "2.0", "id": 999, "result": {}, "headers": dict(clean[2]["headers"])}
    assert flawed == [*clean[:2], response, clean[2]]
    assert response["headers"]["mcp-session-id"] == "s-1"


def test_no_session_id_drops_the_session_id_after_initialize(lab: Lab) -> None:
    clean, flawed = pair(lab, "no-session-id", "--variant", "legacy-only", legacy=True)
    assert clean[2]["headers"]["mcp-session-id"] == "s-1"
    assert flawed == edited(clean, lambda r: r["headers"].pop("mcp-session-id"), skip="initialize")


def test_legacy_no_version_header_drops_mcp_protocol_version_after_initialize(lab: Lab) -> None:
    clean, flawed = pair(lab, "legacy-no-version-header", "--variant", "legacy-only", legacy=True)
    assert clean[2]["headers"]["mcp-protocol-version"] == LEGACY
    assert flawed == edited(clean, lambda r: r["headers"].pop("mcp-protocol-version"), skip="initialize")


def test_modern_flaws_leave_a_legacy_session_as_it_was(lab: Lab) -> None:
    modern_only = ["no-client-capabilities", "no-client-info", "no-version-header", "version-header-mismatch"]
    flaws = [arg for flaw in modern_only for arg in ("--wire-flaw", flaw)]
    legacy = ("--variant", "legacy-only")
    assert sent(lab, *flaws, *legacy, legacy=True) == sent(lab, *legacy, legacy=True)


# --- the command line --------------------------------------------------------------------------------------------


def test_every_wire_flaw_names_a_client_session_rule_of_its_own() -> None:
    checks = all_checks()
    for flaw, rule in WIRE_FLAWS.items():
        assert checks[rule].scenario == "session" and checks[rule].side == "client", flaw
    assert len(set(WIRE_FLAWS.values())) == len(WIRE_FLAWS)


def test_wire_flaws_are_shown_in_the_version_and_help_header_and_repeat(lab: Lab) -> None:
    done = run_agent(lab, "--wire-flaw", "retry-same-id", "--wire-flaw=no-client-info", "version")
    assert done.returncode == 0
    assert done.stdout.endswith("flaws: provenance, result-type, wire:retry-same-id, wire:no-client-info)\n")
    helped = run_agent(lab, "--fix", "provenance", "--wire-flaw", "skip-input", "--help")
    assert "flaws present: result-type, wire:skip-input." in helped.stdout
    assert Build.of(wire_flaws=frozenset({"alter-state"})).flaws() == "provenance, result-type, wire:alter-state"
    assert "wire:" not in run_agent(lab, "version").stdout


def test_an_unknown_wire_flaw_is_a_usage_error_listing_them(lab: Lab) -> None:
    done = run_agent(lab, "--wire-flaw", "nope", "version")
    assert done.returncode == 2 and done.stdout == ""
    assert "--wire-flaw 'nope' is not one of: " + ", ".join(WIRE_FLAWS) in done.stderr


def test_without_wire_flaws_the_connection_builds_what_it_always_built() -> None:
    conn = wire.Connection("http://127.0.0.1:1/mcp", DEFAULT_CAPS)
    params = conn._params("tools/call", {"name": "t", "arguments": {}})
    info = {"name": "backchannel-toy-agent", "version": "0.1.0"}
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN, CC: DEFAULT_CAPS, CI: info}
    assert json.dumps(params) == json.dumps({"name": "t", "arguments": {}, "_meta": meta})
    message = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
    assert list(conn._headers(message).items()) == [
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "t"),
    ]


# --- a recorded real session with each flaw breaks its rule ------------------------------------------------------

FORM_TOOL = "test_input_required_result_elicitation"  # the SDK servers' MRTR tool (a yes/no form)
UNKNOWN_TOOL = "no_such_tool"  # a legacy call the server answers at once (its form tool's elicitation/create would
# wait for an answer the toy never sends, until the toy's 30 s timeout)
PY, TS = "py", "ts"
# flaw: (server, toy options before the command, tool); the era is the toy's: legacy-only is 2025-11-25
SETUPS: dict[str, tuple[str, tuple[str, ...], str]] = {
    flaw: (PY, (), FORM_TOOL) for flaw in WIRE_FLAWS if flaw not in ("no-session-id", "legacy-no-version-header")
}
SETUPS["invent-state"] = (TS, (), FORM_TOOL)  # only the TypeScript SDK server's round carries no requestState
SETUPS["no-session-id"] = SETUPS["legacy-no-version-header"] = (PY, ("--variant", "legacy-only"), UNKNOWN_TOOL)
# what the flaw cannot help breaking besides: a missing clientCapabilities and roots that is no object are invalid
# against the schema too
ALSO_BREAKS = {
    "no-client-capabilities": {"session-client-wire-schema-valid"},
    "capability-not-object": {"session-client-wire-schema-valid"},
    "elicitation-not-object": {"session-client-wire-schema-valid"},
    "sampling-not-object": {"session-client-wire-schema-valid"},
}
# rules the unflawed toy never exercises (it declares no roots, and sends no response): not exercised, not PASS
ONLY_A_FLAW_EXERCISES = {"sep-2575-client-declares-roots-capability", "session-client-answers-only-server-requests"}
CLIENT_RULES = {c.id for c in all_checks().values() if c.scenario == "session" and c.side == "client"}


@pytest.fixture(scope="module")
def py_sdk() -> Iterator[ServerProcess]:
    with start_server(py_server()) as server:
        yield server


@pytest.fixture(scope="module")
def ts_sdk() -> Iterator[ServerProcess]:
    found = node_server()
    if found is None:
        pytest.fail("the TypeScript SDK server is not installed (or node is not on PATH): run scripts/install-clients")
    with start_server(found) as server:
        yield server


def record(server: ServerProcess, options: tuple[str, ...], tool: str, out: Path) -> dict[str, str]:
    """Record one toy-agent session against `server` (`backchannel record --upstream`, in this process); each
    session rule's status."""
    client = [sys.executable, "-m", "backchannel.proxy.clients.toy_agent", *options, "mcp", "call", "{url}", tool]
    record_upstream(server.url, client, out)
    return {r.id: r.status for r in judge(load(out)).results if r.scenario == "session"}


@pytest.fixture(scope="module")
def unflawed(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., dict[str, str]]:
    """The unflawed toy's session rule statuses per server and setup, recorded once per module (and worker)."""
    seen: dict[tuple[str, tuple[str, ...], str], dict[str, str]] = {}

    def statuses(server: ServerProcess, options: tuple[str, ...], tool: str) -> dict[str, str]:
        key = (server.url, options, tool)
        if key not in seen:
            seen[key] = record(server, options, tool, tmp_path_factory.mktemp("unflawed") / "session.sqlite")
        return seen[key]

    return statuses


def test_every_wire_flaw_has_a_recorded_setup() -> None:
    assert set(SETUPS) == set(WIRE_FLAWS)


def breaks_its_rule(flaw: str, server: ServerProcess, unflawed: Callable[..., dict[str, str]], out: Path) -> None:
    _, options, tool = SETUPS[flaw]
    rule = WIRE_FLAWS[flaw]
    found = record(server, ("--wire-flaw", flaw, *options), tool, out)
    level = all_checks()[rule].level
    assert found[rule] == ("WARN" if level == "SHOULD" else "FAIL"), found
    broken = {other for other in CLIENT_RULES if found.get(other) in ("FAIL", "WARN")}
    assert broken == {rule, *ALSO_BREAKS.get(flaw, ())}, broken
    clean = unflawed(server, options, tool)
    assert clean[rule] == ("SKIP" if rule in ONLY_A_FLAW_EXERCISES else "PASS"), clean
    assert not {other for other in CLIENT_RULES if clean.get(other) in ("FAIL", "WARN", "ERROR")}


@pytest.mark.parametrize("flaw", [flaw for flaw, (kind, _, _) in SETUPS.items() if kind == PY])
def test_a_recorded_session_with_the_python_sdk_server_breaks_the_flaws_rule_and_no_other_client_rule(
    flaw: str, py_sdk: ServerProcess, unflawed: Any, tmp_path: Path
) -> None:
    breaks_its_rule(flaw, py_sdk, unflawed, tmp_path / f"{flaw}.sqlite")


@pytest.mark.parametrize("flaw", [flaw for flaw, (kind, _, _) in SETUPS.items() if kind == TS])
def test_a_recorded_session_with_the_typescript_sdk_server_breaks_the_flaws_rule_and_no_other_client_rule(
    flaw: str, ts_sdk: ServerProcess, unflawed: Any, tmp_path: Path
) -> None:
    breaks_its_rule(flaw, ts_sdk, unflawed, tmp_path / f"{flaw}.sqlite")
