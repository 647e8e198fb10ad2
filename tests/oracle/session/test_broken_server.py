"""tests/servers/session_broken.py against real SDK clients: each switch, recorded through `backchannel record
--upstream` with the Python SDK driver, FAILs the server rule it names (and no other server rule but the one it
cannot help breaking); the unbroken server gives no FAIL or WARN on any session rule, in either era, with either
SDK client."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from backchannel.oracle import all_checks, judge
from backchannel.proxy.clients.drivers.paths import node_driver, py_driver
from backchannel.proxy.servers.launch import start_server
from backchannel.recordings import load
from tests.in_process import record_upstream
from tests.servers.session_broken import SWITCHES

pytestmark = pytest.mark.live

ROOT = Path(__file__).resolve().parents[3]
SERVER = ROOT / "tests" / "servers" / "session_broken.py"
MODERN, LEGACY = "2026-07-28", "legacy"
# the era (the Python driver's --mode) and tool that make each switch's break show
DRIVEN: dict[str, tuple[str, str]] = {
    "no-result-type": (MODERN, "confirm"),
    "input-required-on-list": (MODERN, "confirm"),
    "input-required-empty": (MODERN, "confirm"),
    "undeclared-input": (MODERN, "summarize"),
    "capability-error-200": (MODERN, "summarize"),
    "error-wrong-id": (MODERN, "summarize"),
    "independent-request": (MODERN, "confirm"),
    "schema-invalid": (LEGACY, "confirm"),
    "undeclared-sampling": (LEGACY, "summarize"),
    "session-id-space": (LEGACY, "confirm"),
    "sampling-tools-undeclared": (MODERN, "summarize"),
}
# the driver's own flags a switch needs: sampling-tools-undeclared asks a client that declared sampling (no tools)
FLAGS: dict[str, tuple[str, ...]] = {"sampling-tools-undeclared": ("--sampling-reply", "a stand-in model's reply")}
# a 2026-07-28 result without resultType is also invalid against the schema, which requires it of every Result
ALSO_BREAKS = {"no-result-type": {"session-server-wire-schema-valid"}}
SESSION_RULES = {c.id for c in all_checks().values() if c.scenario == "session"}
SERVER_RULES = {c.id for c in all_checks().values() if c.scenario == "session" and c.side == "server"}


def record(switch: str, client: list[str], out: Path) -> dict[str, str]:
    """Record one session of `client` (argv with {url}) with the server broken by `switch` (`backchannel record
    --upstream`, in this process); each session rule's status."""
    with start_server([sys.executable, str(SERVER), "--break", switch]) as server:
        record_upstream(server.url, client, out)
    report = judge(load(out))
    return {r.id: r.status for r in report.results if r.scenario == "session"}


def test_every_switch_names_a_server_rule_and_every_server_rule_asked_for_has_a_switch():
    assert set(DRIVEN) == {switch for switch, rule in SWITCHES.items() if rule}
    assert {rule for rule in SWITCHES.values() if rule} <= SERVER_RULES
    assert len({rule for rule in SWITCHES.values() if rule}) == len(DRIVEN), "one switch per rule"


# schema-invalid breaks either era: its 2026-07-28 round too; sampling-tools-undeclared too: its 2025 server request
CASES = [
    *((switch, *DRIVEN[switch]) for switch in sorted(DRIVEN)),
    ("schema-invalid", MODERN, "confirm"),
    ("sampling-tools-undeclared", LEGACY, "summarize"),
]


@pytest.mark.parametrize(("switch", "mode", "tool"), CASES, ids=[f"{s}-{m}" for s, m, _ in CASES])
def test_each_switch_fails_its_rule_with_a_real_client(switch, mode, tool, tmp_path):
    client = [*py_driver(), "{url}", "--mode", mode, "--tool", tool, *FLAGS.get(switch, ())]
    found = record(switch, client, tmp_path / f"{switch}.sqlite")
    rule = SWITCHES[switch]
    assert rule is not None and found[rule] == "FAIL", found
    broken = {other for other in SERVER_RULES if found.get(other) in ("FAIL", "WARN")}
    assert broken == {rule, *ALSO_BREAKS.get(switch, ())}, broken


def _client(which: str) -> list[str]:
    if which == "py":
        return py_driver()
    node = node_driver()
    if node is None:  # a client the suite cannot run is a failure to see, never a quiet skip
        pytest.fail("the TypeScript SDK driver is not installed (or node is not on PATH): run scripts/install-clients")
    return node


@pytest.mark.parametrize("tool", ["confirm", "summarize"])
@pytest.mark.parametrize(("which", "mode"), [("py", MODERN), ("py", LEGACY), ("ts", "pin"), ("ts", LEGACY)])
def test_the_unbroken_server_breaks_no_session_rule_in_either_era(which, mode, tool, tmp_path):
    argv = _client(which)
    found = record("none", [*argv, "{url}", "--mode", mode, "--tool", tool], tmp_path / "none.sqlite")
    assert set(found) == SESSION_RULES
    assert {rule: status for rule, status in found.items() if status in ("FAIL", "WARN", "ERROR")} == {}
    exercised = {rule for rule in SERVER_RULES if found[rule] == "PASS"}
    assert "session-server-wire-schema-valid" in exercised
    if mode == LEGACY:
        assert "server-session-id-visible-ascii" in exercised
    elif tool == "confirm":
        assert {"session-server-result-type", "session-server-input-required-well-formed"} <= exercised
    else:
        assert {"session-server-protocol-errors-http-400", "sep-2575-http-server-error-jsonrpc-id"} <= exercised
