"""Loading the committed reference recordings that checks prove themselves against."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from backchannel.oracle import judge
from backchannel.oracle.model import Result
from backchannel.recordings import Recording, load

REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference"
CONTRACT = "elicitation-url-mode-contract"  # tests/clients/contract_client.py, one reference per variant
LEGACY_CONTRACT = "elicitation-url-mode-legacy-contract"  # tests/clients/contract_client_2025.py, the same


def path(name: str) -> Path:
    """recordings/reference/<name>.sqlite (committed; copy it before changing anything in it)."""
    return REFERENCE / f"{name}.sqlite"


def contract(variant: str) -> str:
    """The reference name of one contract-client variant: "correct", "form-only" or a `--break` name."""
    return f"{CONTRACT}-{variant}"


def legacy_contract(variant: str) -> str:
    """The reference name of one 2025 contract-client variant: "correct", "correct-2025-06-18" or a `--break`."""
    return f"{LEGACY_CONTRACT}-{variant}"


@cache
def recording(name: str) -> Recording:
    """recordings/reference/<name>.sqlite, loaded once per session (a Recording is immutable)."""
    return load(path(name))


@cache
def _judged(name: str) -> tuple[Result, ...]:
    return judge(recording(name)).results


def results(name: str) -> dict[str, Result]:
    """Judge recordings/reference/<name>.sqlite; results by check id (one per check in this scenario; the session
    rules, which judge every recording, are `session_results`)."""
    found = [r for r in _judged(name) if r.scenario != "session"]
    ids = [r.id for r in found]
    assert len(ids) == len(set(ids)), f"a check judged more than once in {name}: {ids}"
    return {r.id: r for r in found}


def session_results(name: str) -> dict[str, Result]:
    """The session rules' results on recordings/reference/<name>.sqlite, by rule id."""
    return {r.id: r for r in _judged(name) if r.scenario == "session"}


def evidence_payloads(rec: Recording, result: Result) -> list[object]:
    """The JSON-RPC payloads of the messages a result's evidence points at."""
    wanted = {(e.run, e.seq) for e in result.evidence if e.kind == "message"}
    return [m.payload for m in rec.messages if (m.run_id, m.seq) in wanted]


SERVER = "elicitation-sep1036-url-mode"  # scripts/make-reference-recordings' SERVER_REFERENCES


def server(variant: str) -> str:
    """The reference name of a server under the server scenario: "bundled", "py-sdk", "ts-sdk" or "broken-<switch>"
    (tests/servers/url_elicitation_broken.py's switches)."""
    return f"{SERVER}-{variant}"
