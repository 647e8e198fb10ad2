"""A JSON report read back into a Report: every field as written, and a malformed one named, never a crash."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, get_args

import pytest

from backchannel.oracle.model import Evidence, EvidenceKind
from backchannel.oracle.render.from_json import ReportShapeError, report_from_dict
from backchannel.oracle.render.json_report import render_json
from backchannel.oracle.render.sarif import render_sarif
from tests.oracle.render.test_render import hostile_report, sample_report


def _doc() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(render_json(sample_report()))
    return loaded


def test_a_report_read_back_from_its_json_is_the_same_report() -> None:
    assert report_from_dict(_doc()) == sample_report()


def test_a_hostile_report_read_back_renders_the_same_sarif() -> None:
    report = hostile_report()
    assert render_sarif(report_from_dict(json.loads(render_json(report)))) == render_sarif(report)


def test_every_evidence_kind_a_report_can_cite_reads_back() -> None:
    # the reader's list of kinds is the model's own: a kind added to Evidence (a person's answer, "attestation")
    # reads back in a corpus SARIF log and in merge-reports instead of being refused as malformed
    kinds = get_args(EvidenceKind)
    assert "attestation" in kinds
    report = sample_report()
    first = replace(report.results[0], evidence=tuple(Evidence(kind=kind, note=kind) for kind in kinds))
    report = replace(report, results=(first, *report.results[1:]))
    assert report_from_dict(json.loads(render_json(report))) == report


@pytest.mark.parametrize(
    ("mangle", "named"),
    [
        (lambda d: d.update(results="nope"), "report.results is not a list"),
        (lambda d: d["results"][0].update(status="MAYBE"), "report.results[0].status"),
        (lambda d: d["results"][0].update(level=3), "report.results[0].level"),
        (lambda d: d["results"][0].update(evidence=[{"kind": "telepathy"}]), "report.results[0].evidence[0].kind"),
        (lambda d: d["results"][0].update(evidence=[{"kind": "terminal", "offset": "9"}]), "evidence[0].offset"),
        (lambda d: d["results"][0].update(cwe=[1]), "report.results[0].cwe"),
        (lambda d: d.update(scenarios=[None]), "report.scenarios"),
        (lambda d: d.update(runs=[7]), "report.runs[0] is not an object"),
    ],
)
def test_a_malformed_field_is_a_shape_error_naming_where_it_sits(mangle: Any, named: str) -> None:
    doc = _doc()
    mangle(doc)
    with pytest.raises(ReportShapeError, match=named.replace("[", r"\[").replace("]", r"\]")):
        report_from_dict(doc)


def test_something_that_is_not_an_object_is_a_shape_error() -> None:
    with pytest.raises(ReportShapeError, match="is not an object"):
        report_from_dict([1, 2])
