"""The mrtr-provenance probe against real clients: committed recordings re-judged exactly, and live runs.

Golden: every recordings/reference/mrtr-provenance-*.sqlite is judged again and its JSON report compared whole with
the committed .expected.json. Set BACKCHANNEL_UPDATE_GOLDEN=1 to rewrite the expected files instead (then review
the diff: a changed verdict needs a line in docs/real-clients.md).

Live: the probe runs each real client now and must reach the verdicts docs/real-clients.md explains. The Python SDK
driver always runs; the TypeScript SDK and fastmcp need scripts/install-clients, and are skipped without it except
under CI, where a missing install is a failure.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.oracle.model import Report, Result
from backchannel.oracle.terminal import raw_bytes
from backchannel.proxy.clients.drivers.paths import clients_dir, fastmcp, node_driver, py_driver
from backchannel.proxy.scenarios.base import CheckOptions
from backchannel.proxy.scenarios.mrtr_provenance.runner import SCENARIO
from backchannel.proxy.scenarios.registry import run_check
from backchannel.recordings import load
from backchannel.recordings.model import Recording

REFERENCE = Path(__file__).resolve().parents[4] / "recordings" / "reference"
NAMES = "elicitation-names-requesting-server"
ARM1 = "mrtr-provenance-input-requests"
ARM2 = "mrtr-provenance-result-type-default"
MODERN_REJECT = "rejects-missing-result-type-on-modern-connection"


# ---- live runs ----


def require(found: object, what: str) -> None:
    """Skip without the client on a developer machine; under CI (which installs clients) fail instead."""
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{what} is not installed; CI must run scripts/install-clients first")
        pytest.skip(f"{what} is not installed (run scripts/install-clients)")


def probe(
    tmp_path: Path, *, target: list[str] | None = None, client: list[str] | None = None, stdin: bytes | None = None
) -> Recording:
    out = tmp_path / "probe.sqlite"
    options = CheckOptions(out=out, target=target, client=client, timeout=30, stdin=stdin)
    run_check(SCENARIO, options, progress=lambda _t: None)
    return load(out)


def by_id(report: Report) -> dict[str, Result]:
    return {r.id: r for r in report.results}


def run_named(rec: Recording, name: str) -> str:
    return next(r.id for r in rec.runs if r.name == name)


def tool_calls(rec: Recording, run: str) -> list[str]:
    """Each tools/call the client sent in a run: "retry" when it carried inputResponses, else "call"."""
    return [
        "retry" if isinstance(m.payload, dict) and "inputResponses" in (m.payload.get("params") or {}) else "call"
        for m in rec.messages_in(run)
        if m.direction == "to-server" and m.method == "tools/call" and m.kind == "request"
    ]


def assert_sdk_verdicts(rec: Recording) -> None:
    """What both SDK drivers showed: attributed and named rendering, MRTR engaged, missing resultType rejected on
    the modern connection and treated as complete on the legacy one."""
    results = by_id(judge(rec))
    assert results[NAMES].status == "PASS"
    assert (results[ARM1].verdict, results[ARM1].signals) == ("REFUTED", ())
    assert (results[ARM2].verdict, results[ARM2].signals) == ("REFUTED", ())
    assert results[ARM2].observations == (MODERN_REJECT,)
    assert tool_calls(rec, run_named(rec, "probe")) == ["call", "retry"]
    absent = next(r for r in rec.runs if r.name == "absent")
    assert absent.exit_code == 1
    assert raw_bytes(rec, absent.id, "stdout") == b""


def test_the_python_sdk_answers_the_probe_over_mrtr_and_rejects_a_modern_result_without_result_type(tmp_path):
    rec = probe(tmp_path, client=[*py_driver(), "{url}"])
    assert_sdk_verdicts(rec)
    # the SDK's pydantic model of the 2026-07-28 wire result requires resultType
    stderr = raw_bytes(rec, run_named(rec, "absent"), "stderr")
    assert stderr.startswith(b"error: ValidationError ") and b"union[CallToolResult,InputRequiredResult]" in stderr


def test_the_typescript_sdk_in_auto_mode_answers_over_mrtr_and_rejects_a_modern_result_without_result_type(tmp_path):
    driver = node_driver()
    require(driver, "the TypeScript SDK driver")
    assert driver is not None
    rec = probe(tmp_path, client=[*driver, "{url}", "--mode", "auto"])
    assert_sdk_verdicts(rec)
    stderr = raw_bytes(rec, run_named(rec, "absent"), "stderr")
    assert stderr.startswith(b"error: INVALID_RESULT Invalid result for tools/call: missing required resultType")


def test_fastmcp_shows_the_request_under_server_asks_without_naming_the_server_and_answers_it_from_stdin(tmp_path):
    cli = fastmcp()
    require(cli, "fastmcp")
    assert cli is not None
    # the invocation --target discovery finds in fastmcp's help (its committed references were made by discovery,
    # which costs some 20 s of fastmcp start-ups; discovery itself is tested on the toy agent's shapes)
    rec = probe(tmp_path, client=[cli, "call", "{url}", "get_repo_status", "--auth", "none"], stdin=b"true\n")
    results = by_id(judge(rec))
    # "Server asks:" introduces the text (an attribution phrase), but names neither the server nor its origin
    assert (results[ARM1].verdict, results[ARM1].signals) == ("REFUTED", ())
    assert results[NAMES].status == "FAIL"
    probe_run = run_named(rec, "probe")
    stdout = raw_bytes(rec, probe_run, "stdout")
    assert b"Server asks: " in stdout and b"confirmed (boolean)" in stdout
    # its terminal handler read "true" from the lab's stdin and the SDK underneath retried over MRTR
    assert tool_calls(rec, probe_run) == ["call", "retry"]
    assert (results[ARM2].verdict, results[ARM2].observations) == ("REFUTED", (MODERN_REJECT,))


def test_no_client_is_found_in_an_empty_clients_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("BACKCHANNEL_CLIENTS", str(tmp_path))
    assert clients_dir() == tmp_path
    assert (node_driver(), fastmcp()) == (None, None)
