"""The JSON report is the stable interface users' scripts read: its keys are pinned here."""

from __future__ import annotations

import json
from typing import Any

from backchannel.oracle.render.json_report import render_json
from tests.oracle.render.test_render import sample_report

TOP_LEVEL_KEYS = [
    "tool",
    "tool_version",
    "oracle_version",
    "recording",
    "scenarios",
    "summary",
    "exit_code",
    "results",
    "runs",
]
RESULT_KEYS = {"id", "scenario", "status", "level", "title", "message", "evidence", "spec"}
PROBE_KEYS = RESULT_KEYS | {"verdict", "signals"}


def _parsed() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(render_json(sample_report()))
    return loaded


def test_the_top_level_keys_are_exactly_the_stable_interface_in_order() -> None:
    assert list(_parsed()) == TOP_LEVEL_KEYS


def test_the_header_names_the_tool_versions_and_the_recording_by_file_name() -> None:
    doc = _parsed()
    assert doc["tool"] == "backchannel"
    assert (doc["tool_version"], doc["oracle_version"]) == ("0.1.0", "1")
    assert doc["recording"] == {"file": "run-2026.sqlite", "format": "3", "nonce": "n0nce"}
    assert doc["scenarios"] == ["provenance", "mrtr"]


def test_the_summary_counts_every_status_and_the_probe_verdicts() -> None:
    summary = _parsed()["summary"]
    assert list(summary) == ["PASS", "FAIL", "WARN", "SKIP", "ERROR", "CONFIRMED", "REFUTED"]
    assert summary == {"PASS": 2, "FAIL": 2, "WARN": 1, "SKIP": 2, "ERROR": 1, "CONFIRMED": 1, "REFUTED": 1}


def test_the_exit_code_is_the_reports() -> None:
    assert _parsed()["exit_code"] == sample_report().exit_code == 1


def test_results_keep_report_order_and_equal_their_as_dict() -> None:
    report = sample_report()
    assert _parsed()["results"] == [r.as_dict() for r in report.results]


def test_a_plain_result_has_exactly_the_stable_keys() -> None:
    plain = next(r for r in _parsed()["results"] if r["id"] == "sep-1000-result-type")
    assert set(plain) == RESULT_KEYS


def test_a_probe_result_has_exactly_the_stable_keys_plus_what_it_saw() -> None:
    probe = _parsed()["results"][0]
    assert set(probe) == PROBE_KEYS | {"subject", "run", "observations", "cwe"}
    assert probe["verdict"] == "CONFIRMED" and probe["status"] == "FAIL"
    assert probe["signals"] == ["server-directive-executed", "marker-in-file"]
    assert probe["cwe"] == ["CWE-346"]


def test_a_skipped_probe_carries_its_verdict_signals_and_reason() -> None:
    skipped = next(r for r in _parsed()["results"] if r["id"] == "probe-elicitation")
    assert set(skipped) == PROBE_KEYS | {"reason", "cwe"}
    assert (skipped["verdict"], skipped["reason"], skipped["signals"]) == ("SKIP", "no-mcp-call-surface", [])


def test_evidence_keeps_only_the_fields_it_has() -> None:
    evidence = _parsed()["results"][0]["evidence"]
    assert evidence == [
        {"kind": "message", "run": "abc", "seq": 12},
        {"kind": "terminal", "run": "abc", "stream": "stdout", "offset": 340, "length": 24},
        {"kind": "file", "run": "abc", "path": ".toy/marker.txt", "note": "marker found"},
    ]


def test_non_ascii_text_is_kept_as_is_and_control_characters_are_escaped() -> None:
    out = render_json(sample_report())
    assert "café ✓" in out
    assert "\x1b" not in out and "\\u001b[31m" in out


def test_the_json_is_indented_by_two_spaces() -> None:
    assert render_json(sample_report()).startswith('{\n  "tool": "backchannel",\n')
