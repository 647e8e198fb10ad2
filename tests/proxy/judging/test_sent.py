"""What a worker sends for a judged recording: only what the output it feeds reads, in the order it reads it."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from backchannel.proxy.judging.sent import MESSAGE_CHARS, SHOWN, JsonReport, identities, part, shaped, summary_report
from backchannel.proxy.judging.summary import recording_lines
from backchannel.recordings.safe_text import neutralise_json

REFERENCE = Path(__file__).resolve().parents[3] / "recordings" / "reference"


def _report(name: str = "mrtr-provenance-toy-flawed") -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((REFERENCE / f"{name}.expected.json").read_text(encoding="utf-8"))
    return loaded


_PRINTED = ("id", "scenario", "status", "verdict", "subject", "message")


def _printed(result: dict[str, Any]) -> dict[str, Any]:
    out = {key: result[key] for key in _PRINTED if key in result}
    out["message"] = out["message"][: MESSAGE_CHARS + 1]
    return out


def test_a_text_summary_keeps_counts_exit_code_and_what_the_text_prints_of_each_result_it_lists() -> None:
    report = _report()
    first = next(r for r in report["results"] if r["status"] in SHOWN)
    first["message"] = "m" * 500  # printed cut at 200 characters, with a mark that it was cut
    slim = summary_report(report)
    assert slim["summary"] == report["summary"] and slim["exit_code"] == report["exit_code"]
    listed = [r for r in report["results"] if r["status"] in SHOWN]
    assert [r["id"] for r in slim["results"]] == [r["id"] for r in listed] and listed
    assert slim["results"][0]["message"] == "m" * (MESSAGE_CHARS + 1)
    assert slim["results"][1:] == [_printed(r) for r in listed[1:]]
    assert "runs" not in slim and "scenarios" not in slim and all("evidence" not in r for r in slim["results"])
    shown = {"name": "a.sqlite", "report": report}
    assert recording_lines({"name": "a.sqlite", "report": slim}) == recording_lines(shown)


def test_with_statuses_every_result_keeps_its_identity_in_report_order_and_the_listed_ones_stay_whole() -> None:
    report = _report()
    slim = summary_report(report, statuses=True)
    assert [(r["scenario"], r["id"], r["status"]) for r in slim["results"]] == [
        (r["scenario"], r["id"], r["status"]) for r in report["results"]
    ]
    for sent, result in zip(slim["results"], report["results"], strict=True):
        assert sent == (
            _printed(result) if result["status"] in SHOWN else {k: result[k] for k in ("scenario", "id", "status")}
        )


def test_a_json_report_is_the_whole_reports_neutralised_text_and_reads_as_its_counts() -> None:
    report = _report()
    sent = JsonReport(report, statuses=True)
    assert sent.text == neutralise_json(json.dumps(report, ensure_ascii=False))
    assert dict(sent) == {"summary": report["summary"], "exit_code": report["exit_code"], "results": identities(report)}
    back = pickle.loads(pickle.dumps(sent))
    assert back.text == sent.text and dict(back) == dict(sent)
    assert "results" not in JsonReport(report)  # a baseline's statuses only when asked for


def test_the_whole_report_is_sent_as_it_is_and_an_unknown_shape_is_refused() -> None:
    report = _report()
    assert shaped(report, "report") is report
    with pytest.raises(ValueError, match="unknown shape 'xml'"):
        shaped(report, "xml")


def test_a_sarif_part_is_what_the_recording_adds_to_a_corpus_log_with_its_counts() -> None:
    report = _report()
    sent = shaped(report, "sarif", name="fixtures/flawed.sqlite", statuses=True)
    assert sent["summary"] == report["summary"] and sent["exit_code"] == report["exit_code"]
    assert sent["sarif"] == part(report, "fixtures/flawed.sqlite")
    assert sent["results"] == identities(report)
    listed = sent["sarif"]["results"]
    assert listed and {r["kind"] for r in listed} <= {"fail", "open"}  # PASS and SKIP are counted, not listed
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for r in listed for loc in r["locations"]}
    assert uris == {"fixtures/flawed.sqlite"}
