"""A JSON report (`judge --format json`, one entry of a corpus document) read back into a `Report`.

A corpus is judged in worker processes that hand back JSON, and `merge-reports` reads JSON files from anywhere; so
rendering either as SARIF starts from the JSON. Every field is checked: a value of the wrong kind is a
`ReportShapeError` naming where it sits, never a crash deeper in a renderer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from ..model import EVIDENCE_KINDS, STATUSES, Evidence, Level, Report, Result, RunEra, Status, Verdict

LEVELS = ("MUST", "SHOULD", "MAY")
VERDICTS = ("CONFIRMED", "REFUTED", "SKIP", "ERROR")


class ReportShapeError(ValueError):
    """A JSON report that is not the shape backchannel writes; the message says where."""


def _text(data: Mapping[str, Any], key: str, where: str, *, optional: bool = False) -> str | None:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ReportShapeError(f"{where}.{key} is not text")
    return value


def _int(data: Mapping[str, Any], key: str, where: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise ReportShapeError(f"{where}.{key} is not a whole number")
    return value


def _texts(data: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ReportShapeError(f"{where}.{key} is not a list of text")
    return tuple(value)


def _span(data: Mapping[str, Any], key: str, where: str) -> tuple[int, int] | None:
    value = data.get(key)
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise ReportShapeError(f"{where}.{key} is not a pair of whole numbers")
    return (value[0], value[1])


def _one_of(value: Any, allowed: tuple[str, ...], where: str) -> str:
    if value not in allowed:
        raise ReportShapeError(f"{where} is {str(value)[:40]!r}, not one of {', '.join(allowed)}")
    return cast(str, value)


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ReportShapeError(f"{where} is not an object")
    return value


def evidence_from(data: Any, where: str) -> Evidence:
    ev = _object(data, where)
    return Evidence(
        kind=_one_of(ev.get("kind"), EVIDENCE_KINDS, f"{where}.kind"),  # type: ignore[arg-type]
        run=_text(ev, "run", where, optional=True),
        seq=_int(ev, "seq", where),
        stream=_text(ev, "stream", where, optional=True),
        offset=_int(ev, "offset", where),
        length=_int(ev, "length", where),
        path=_text(ev, "path", where, optional=True),
        rows=_span(ev, "rows", where),
        cols=_span(ev, "cols", where),
        note=_text(ev, "note", where, optional=True) or "",
    )


def result_from(data: Any, where: str) -> Result:
    r = _object(data, where)
    evidence = r.get("evidence", [])
    if not isinstance(evidence, list):
        raise ReportShapeError(f"{where}.evidence is not a list")
    verdict = r.get("verdict")
    return Result(
        id=_text(r, "id", where) or "",
        scenario=_text(r, "scenario", where) or "",
        level=cast(Level, _one_of(r.get("level"), LEVELS, f"{where}.level")),
        spec=_text(r, "spec", where, optional=True) or "",
        title=_text(r, "title", where, optional=True) or "",
        status=cast(Status, _one_of(r.get("status"), STATUSES, f"{where}.status")),
        message=_text(r, "message", where, optional=True) or "",
        evidence=tuple(evidence_from(ev, f"{where}.evidence[{i}]") for i, ev in enumerate(evidence)),
        run=_text(r, "run", where, optional=True),
        reason=_text(r, "reason", where, optional=True),
        signals=_texts(r, "signals", where),
        observations=_texts(r, "observations", where),
        cwe=_texts(r, "cwe", where),
        verdict=None if verdict is None else cast(Verdict, _one_of(verdict, VERDICTS, f"{where}.verdict")),
        subject=_text(r, "subject", where, optional=True),
        untestable=r.get("untestable") is True,
        attested=r.get("attested") is True,
    )


def _run_era(data: Any, where: str) -> RunEra:
    run = _object(data, where)
    return RunEra(
        run=_text(run, "run", where) or "",
        name=_text(run, "name", where, optional=True) or "",
        era=_text(run, "era", where, optional=True),
        era_from=_text(run, "era_from", where, optional=True) or "",
    )


def report_from_dict(data: Any, where: str = "report") -> Report:
    """The `Report` a JSON report describes; `ReportShapeError` names the first field that is not as written."""
    doc = _object(data, where)
    recording = _object(doc.get("recording", {}), f"{where}.recording")
    results, runs, scenarios = doc.get("results"), doc.get("runs", []), doc.get("scenarios", [])
    if not isinstance(results, list):
        raise ReportShapeError(f"{where}.results is not a list")
    if not isinstance(runs, list):
        raise ReportShapeError(f"{where}.runs is not a list")
    if not isinstance(scenarios, list) or not all(isinstance(s, str) for s in scenarios):
        raise ReportShapeError(f"{where}.scenarios is not a list of text")
    return Report(
        tool_version=_text(doc, "tool_version", where, optional=True) or "",
        oracle_version=_text(doc, "oracle_version", where, optional=True) or "",
        recording=_text(recording, "file", f"{where}.recording", optional=True) or "",
        recording_format=_text(recording, "format", f"{where}.recording", optional=True) or "",
        nonce=_text(recording, "nonce", f"{where}.recording", optional=True),
        scenarios=tuple(scenarios),
        results=tuple(result_from(r, f"{where}.results[{i}]") for i, r in enumerate(results)),
        runs=tuple(_run_era(run, f"{where}.runs[{i}]") for i, run in enumerate(runs)),
    )
