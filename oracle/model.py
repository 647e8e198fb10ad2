"""The oracle's vocabulary: statuses, verdicts, evidence, findings, checks, results and the report."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal, get_args

from backchannel.recordings.model import Recording

Status = Literal["PASS", "FAIL", "WARN", "SKIP", "ERROR"]
Verdict = Literal["CONFIRMED", "REFUTED", "SKIP", "ERROR"]
Level = Literal["MUST", "SHOULD", "MAY"]

STATUSES: tuple[Status, ...] = ("PASS", "FAIL", "WARN", "SKIP", "ERROR")
SEVERITY: dict[str, int] = {"PASS": 0, "SKIP": 1, "WARN": 2, "FAIL": 3, "ERROR": 4}
VERDICT_OF: dict[str, Verdict] = {"FAIL": "CONFIRMED", "PASS": "REFUTED", "SKIP": "SKIP", "ERROR": "ERROR"}
# the protocol eras a check can declare it applies to (the three whose official schema ships in oracle/schema/)
ERAS: tuple[str, ...] = ("2025-06-18", "2025-11-25", "2026-07-28")
MODERN_ERA = "2026-07-28"
LEGACY_ERAS: tuple[str, ...] = ("2025-06-18", "2025-11-25")


EvidenceKind = Literal[
    "message", "exchange", "terminal", "file", "run", "sse", "anomaly", "recording", "screen", "model", "attestation"
]
EVIDENCE_KINDS: tuple[str, ...] = get_args(EvidenceKind)  # every kind, for readers of reports (render/from_json.py)


@dataclass(frozen=True, slots=True, kw_only=True)
class Evidence:
    """Where in the recording a finding can be seen: a message, an exchange, terminal bytes, a lab file, a run, a
    screen snapshot's rows and columns, or text in a model request (the coding agent's model context)."""

    kind: EvidenceKind
    run: str | None = None
    seq: int | None = None  # message, exchange, sse, anomaly, screen, model-exchange or attestation sequence number
    stream: str | None = None  # terminal: stdout, stderr or tty
    offset: int | None = None  # terminal or file: byte offset; model: byte offset in the cited segment's text
    length: int | None = None
    path: str | None = None  # file: path inside the lab HOME; model: the segment's JSON path in the request body
    rows: tuple[int, int] | None = None  # screen: the rows cited, [first, end) from the top (0)
    cols: tuple[int, int] | None = None  # screen: the columns cited, [first, end)
    note: str = ""

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind}
        for key in ("run", "seq", "stream", "offset", "length", "path"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        for key in ("rows", "cols"):  # only screen evidence has them: every other kind's dict is unchanged
            span = getattr(self, key)
            if span is not None:
                out[key] = list(span)
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """What one check concluded about one thing it looked at."""

    status: Status
    message: str
    evidence: tuple[Evidence, ...] = ()
    run: str | None = None
    reason: str | None = None  # a SKIP or ERROR reason id, e.g. "no-mcp-call-surface"
    signals: tuple[str, ...] = ()
    observations: tuple[str, ...] = ()
    subject: str | None = None  # what the finding is about when one check yields several (an arm, a round)
    untestable: bool = False  # a FAIL because the target lacks what the scenario needs (its message says so)
    attested: bool = False  # it rests on a person's answer (check --by-hand), not on the wire

    @staticmethod
    def passed(message: str, *evidence: Evidence, **kw: object) -> Finding:
        return Finding(status="PASS", message=message, evidence=evidence, **kw)  # type: ignore[arg-type]

    @staticmethod
    def failed(message: str, *evidence: Evidence, **kw: object) -> Finding:
        return Finding(status="FAIL", message=message, evidence=evidence, **kw)  # type: ignore[arg-type]

    @staticmethod
    def warned(message: str, *evidence: Evidence, **kw: object) -> Finding:
        return Finding(status="WARN", message=message, evidence=evidence, **kw)  # type: ignore[arg-type]

    @staticmethod
    def skipped(reason: str, message: str, *evidence: Evidence, **kw: object) -> Finding:
        return Finding(status="SKIP", message=message, reason=reason, evidence=evidence, **kw)  # type: ignore[arg-type]

    @staticmethod
    def errored(reason: str, message: str, *evidence: Evidence, **kw: object) -> Finding:
        return Finding(status="ERROR", message=message, reason=reason, evidence=evidence, **kw)  # type: ignore[arg-type]


CheckFn = Callable[[Recording], Iterator[Finding]]


@dataclass(frozen=True, slots=True, kw_only=True)
class Check:
    """One judged requirement with a stable id."""

    id: str
    scenario: str
    level: Level
    spec: str
    title: str
    doc: str
    fn: CheckFn
    cwe: tuple[str, ...] = ()
    probe: bool = False  # a security probe: FAIL renders as CONFIRMED, PASS as REFUTED
    also: tuple[str, ...] = ()  # other scenarios whose recordings this check judges too (it says which it read)
    side: str | None = None  # a session rule's: whose messages it judges ("client" or "server")
    # the protocol eras it applies to: in a run of another era the judge reports SKIP `not-in-era` (oracle/era_gate.py)
    eras: tuple[str, ...] = (MODERN_ERA,)


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """A finding with its check's identity, as it appears in every report format."""

    id: str
    scenario: str
    level: Level
    spec: str
    title: str
    status: Status
    message: str
    evidence: tuple[Evidence, ...]
    run: str | None
    reason: str | None
    signals: tuple[str, ...]
    observations: tuple[str, ...]
    cwe: tuple[str, ...]
    verdict: Verdict | None
    subject: str | None
    untestable: bool = False
    attested: bool = False  # it rests on a person's answer, not on the wire

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "id": self.id,
            "scenario": self.scenario,
            "status": self.status,
            "level": self.level,
            "title": self.title,
            "message": self.message,
            "evidence": [e.as_dict() for e in self.evidence],
            "spec": self.spec,
        }
        if self.subject is not None:
            out["subject"] = self.subject
        if self.run is not None:
            out["run"] = self.run
        if self.reason is not None:
            out["reason"] = self.reason
        if self.verdict is not None:
            out["verdict"] = self.verdict
            out["signals"] = list(self.signals)
        if self.observations:
            out["observations"] = list(self.observations)
        if self.cwe:
            out["cwe"] = list(self.cwe)
        if self.untestable:
            out["untestable"] = True
        if self.attested:
            out["attested"] = True
        return out


@dataclass(frozen=True, slots=True)
class RunEra:
    """The protocol era one run spoke (None: nothing in it says), and how that is known (oracle/session/eras.py)."""

    run: str
    name: str
    era: str | None
    era_from: str

    def as_dict(self) -> dict[str, object]:
        return {"run": self.run, "name": self.name, "era": self.era, "era_from": self.era_from}


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """Everything `judge` concluded about one recording; the same recording gives the same report."""

    tool_version: str
    oracle_version: str
    recording: str  # the recording's file name, not its path, so reports do not depend on where it lies
    recording_format: str
    nonce: str | None
    scenarios: tuple[str, ...]
    results: tuple[Result, ...] = field(default_factory=tuple)
    runs: tuple[RunEra, ...] = field(default_factory=tuple)  # the era each run spoke

    @property
    def exit_code(self) -> int:
        """1 when anything is CONFIRMED or FAIL (ERROR too: a harness that could not see is not a pass)."""
        return 1 if any(r.status in ("FAIL", "ERROR") for r in self.results) else 0

    def counts(self) -> dict[str, int]:
        return {status: sum(1 for r in self.results if r.status == status) for status in STATUSES}
