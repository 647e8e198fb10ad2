"""The corpus document: every report, the totals, the aggregated exit code, safe bytes, valid JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from backchannel.proxy.judging.corpus import document, exit_code, render_document, totals
from backchannel.proxy.judging.parallel import JsonReport

REFERENCE = Path(__file__).resolve().parents[3] / "recordings" / "reference"


def _report(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REFERENCE / f"{name}.expected.json").read_text(encoding="utf-8"))
    return data


def test_the_exit_code_is_2_for_an_unreadable_recording_else_1_for_a_failing_report_else_0() -> None:
    fixed = {"name": "a", "report": _report("mrtr-provenance-toy-fixed")}
    flawed = {"name": "b", "report": _report("mrtr-provenance-toy-flawed")}
    broken = {"name": "c", "error": "c is not a SQLite database"}
    assert exit_code([fixed]) == 0
    assert exit_code([fixed, flawed]) == 1
    assert exit_code([flawed, broken, fixed]) == 2
    assert exit_code([]) == 0


def test_totals_add_every_reports_counts_and_count_the_unjudged() -> None:
    entries = [
        {"name": "a", "report": _report("mrtr-provenance-toy-fixed")},
        {"name": "b", "report": _report("mrtr-provenance-toy-flawed")},
        {"name": "c", "error": "x"},
    ]
    counted = totals(entries)
    assert counted["recordings"] == 3 and counted["unjudged"] == 1
    assert counted["CONFIRMED"] == 2 and counted["REFUTED"] == 2
    each = [entry["report"]["summary"] for entry in entries[:2]]
    assert counted["PASS"] == each[0]["PASS"] + each[1]["PASS"] and counted["FAIL"] == 3  # session rules pass too


def test_the_rendered_document_is_valid_json_with_no_raw_bidi_or_c1_bytes() -> None:
    name = "evil\u202ename\x9b.sqlite"
    text = render_document(
        document([{"name": name, "error": "bad"}, {"name": "ok", "report": _report("mrtr-provenance-toy-fixed")}])
    )
    assert "\u202e" not in text and "\x9b" not in text
    parsed = json.loads(text)
    assert parsed["recordings"][0]["name"] == name
    assert parsed["exit_code"] == 2 and parsed["kind"] == "backchannel-corpus"
    assert json.loads(render_document(document([])))["recordings"] == []


def test_a_report_a_worker_encoded_renders_the_same_bytes_as_its_dict_with_nothing_raw() -> None:
    report = {"summary": {"PASS": 1, "FAIL": 1}, "exit_code": 1, "results": [{"message": "said \u202eevil\x9b\x7f"}]}
    plain = render_document(document([{"name": "a\u2066.sqlite", "report": report}]))
    spliced = render_document(document([{"name": "a\u2066.sqlite", "report": JsonReport(report)}]))
    assert spliced == plain
    assert not any(raw in spliced for raw in ("\u202e", "\x9b", "\x7f", "\u2066"))
    assert json.loads(spliced)["recordings"][0]["report"]["results"][0]["message"] == "said \u202eevil\x9b\x7f"
