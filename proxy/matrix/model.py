"""Recordings → the matrix: one column per recording (its client), one row per check, one case per filled cell.

Everything here is ordered by the inputs and the check ids, and carries no clock, so the same recordings give the
same site byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from backchannel.oracle import Check, Report, Result, all_checks
from backchannel.oracle.model import SEVERITY, VERDICT_OF
from backchannel.oracle.render.text import status_label
from backchannel.oracle.requirements import requirement_of
from backchannel.proxy.judging.inputs import Input
from backchannel.proxy.scenarios.registry import side_of
from backchannel.recordings.model import Recording
from backchannel.recordings.safe_text import neutralise

from .excerpts import Excerpt, Excerpter
from .identity import ClientIdentity, identify

SESSION = "session"  # the session rules' scenario name: every recording has it, a staged side or not


@dataclass(frozen=True, slots=True)
class Column:
    """One recording: the client it shows, named by the file it came from (one client may have many variants)."""

    slug: str
    recording: str
    client: ClientIdentity
    # the server too, for a session of two real parties (a `record --upstream` recording: no scenario staged a side)
    peer: ClientIdentity | None = None

    @property
    def label(self) -> str:
        return f"{self.client.label} against {self.peer.label}" if self.peer is not None else self.client.label


@dataclass(frozen=True, slots=True)
class Finding:
    """One result of a case, ready to show: status, what was observed, and its evidence cut out of the recording."""

    status: str
    subject: str | None
    message: str
    reason: str | None
    observations: tuple[str, ...]
    excerpts: tuple[Excerpt, ...]


@dataclass(frozen=True, slots=True)
class Requirement:
    """A check as a row: what it requires (title and doc), how strongly, and where the spec says so."""

    id: str
    scenario: str
    level: str
    title: str
    doc: str
    spec: str
    probe: bool
    quote: str | None = None  # the sentence the check tests, verbatim (oracle/requirements/requirements.toml)
    anchor: str | None = None  # where the spec says it
    unquoted: str | None = None  # or why no sentence is quoted


@dataclass(frozen=True, slots=True)
class Case:
    """One cell: a check judged on one recording; its worst status is the cell's status."""

    requirement: Requirement
    column: Column
    status: str  # the worst result's label: PASS/FAIL/WARN/SKIP/ERROR, CONFIRMED/REFUTED for probes
    findings: tuple[Finding, ...]

    @property
    def page(self) -> str:
        return f"cases/{self.column.slug}/{slug(self.requirement.id)}.html"


@dataclass(frozen=True, slots=True)
class Table:
    """One scenario: its checks down, the recordings judged for it across."""

    scenario: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[Requirement, tuple[Case | None, ...]], ...]


@dataclass(frozen=True, slots=True)
class Matrix:
    tables: tuple[Table, ...]

    @property
    def cases(self) -> list[Case]:
        return [case for table in self.tables for _, cells in table.rows for case in cells if case is not None]


def slug(text: str) -> str:
    """A file-name-safe form: lowercase letters, digits and dashes only (a recording may name itself anything)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80] or "x"


def _requirement(result: Result, checks: dict[str, Check]) -> Requirement:
    check = checks.get(result.id)
    traced = requirement_of(result.id)  # None for a check of a scenario from elsewhere, or a harness ERROR's id
    return Requirement(
        id=neutralise(result.id),
        scenario=neutralise(result.scenario),
        level=result.level,
        title=neutralise(result.title),
        doc=neutralise(" ".join(check.doc.split())) if check else "",
        spec=result.spec,
        probe=check.probe if check else result.verdict is not None,
        quote=traced.quote if traced else None,
        anchor=traced.anchor if traced else None,
        unquoted=traced.unquoted if traced else None,
    )


def _cell_status(results: list[Result]) -> str:
    worst = max(results, key=lambda r: SEVERITY[r.status])
    return VERDICT_OF[worst.status] if worst.verdict is not None else worst.status


def _finding(result: Result, excerpter: Excerpter) -> Finding:
    return Finding(
        status=neutralise(status_label(result)),
        subject=None if result.subject is None else neutralise(result.subject),
        message=neutralise(result.message),
        reason=None if result.reason is None else neutralise(result.reason),
        observations=tuple(neutralise(o) for o in result.observations),
        excerpts=tuple(excerpter.excerpt(ev, result.run) for ev in result.evidence),
    )


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}-{n}"
    taken.add(candidate)
    return candidate


def build(judged: Iterable[tuple[Input, Recording, Report]]) -> Matrix:
    """The matrix of judged recordings, in input order; a recording joins the table of each scenario it has."""
    checks = all_checks()
    taken: set[str] = set()
    # scenario -> column -> check id -> results, all in first-seen order
    grouped: dict[str, dict[Column, dict[str, list[Result]]]] = {}
    excerpters: dict[Column, Excerpter] = {}
    requirements: dict[tuple[str, str], Requirement] = {}
    for item, rec, report in judged:
        recording = neutralise(item.relative)
        server_side = any(side_of(scenario) == "server" for scenario in report.scenarios)
        identity = identify(rec, server_side=server_side)
        staged = [scenario for scenario in report.scenarios if scenario != SESSION]
        peer = None if staged else identify(rec, server_side=True)  # both sides real: name the server as well
        column = Column(_unique(slug(item.relative.removesuffix(".sqlite")), taken), recording, identity, peer)
        excerpters[column] = Excerpter(rec)
        for scenario in report.scenarios:
            grouped.setdefault(scenario, {}).setdefault(column, {})
        for result in report.results:
            grouped.setdefault(result.scenario, {}).setdefault(column, {}).setdefault(result.id, []).append(result)
            requirements.setdefault((result.scenario, result.id), _requirement(result, checks))
    tables = []
    for scenario in sorted(grouped):
        columns = grouped[scenario]
        ids = sorted({i for by_id in columns.values() for i in by_id})
        rows = []
        for check_id in ids:
            requirement = requirements[(scenario, check_id)]
            cells: list[Case | None] = []
            for column, by_id in columns.items():
                results = by_id.get(check_id)
                if not results:
                    cells.append(None)
                    continue
                findings = tuple(_finding(r, excerpters[column]) for r in results)
                cells.append(Case(requirement, column, _cell_status(results), findings))
            rows.append((requirement, tuple(cells)))
        tables.append(Table(neutralise(scenario), tuple(columns), tuple(rows)))
    return Matrix(tuple(tables))
