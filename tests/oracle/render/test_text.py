"""The text report: a fixed-width table, details for what did not pass, a summary line; no terminal dependence."""

from __future__ import annotations

import dataclasses
import io
import re
import sys

import pytest

from backchannel.oracle.model import Evidence
from backchannel.oracle.render.text import WIDTH, clean, evidence_line, render_text
from tests.oracle.render.test_render import result, sample_report


def _details(out: str) -> str:
    return out.split("└", 1)[1]


def _rows(out: str) -> list[list[str]]:
    """The table's rows as [check, status, level, message], wrapped cells joined back with spaces."""
    rows: list[list[str]] = []
    for line in out.split("└", 1)[0].splitlines():
        if not line.startswith("│"):
            continue
        cells = [cell.strip() for cell in line.strip("│").split("│")]
        if cells[2]:  # the level never wraps, so it starts each row
            rows.append(cells)
        else:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
    return rows


def test_each_result_gets_a_row_with_its_check_status_level_and_message_in_report_order() -> None:
    assert _rows(render_text(sample_report())) == [
        ["probe-provenance [provenance]", "CONFIRMED", "MUST", "The client executed a directive the server planted"],
        ["probe-provenance [resultType default]", "REFUTED", "MUST", "The client ignored the missing resultType"],
        ["probe-elicitation", "SKIP (no-mcp-call-surface)", "MUST", "The client never made a tools/call"],
        ["sep-1234-mrtr-retry", "SKIP (no-input-required)", "MUST", "The client never declared MRTR support"],
        [
            "witness-ledger",
            "ERROR (witness-self-test-failed)",
            "MUST",
            "The ledger saw no request from the control run",
        ],
        ["sep-2345-progress", "WARN", "SHOULD", "Progress notifications were dropped: café ✓"],
        ["sep-1000-result-type", "PASS", "MUST", "every result had resultType"],
        [
            "sep-1000-protocol-header",
            "FAIL",
            "MUST",
            "expected header MCP-Protocol-Version, saw none \\x1b[31mred\\x1b[0m \\x00",
        ],
    ]


def test_non_pass_results_list_their_evidence_signals_and_observations_below_the_table() -> None:
    details = _details(render_text(sample_report()))
    assert "CONFIRMED probe-provenance [provenance], run abc" in details
    assert "  - message #12 (run abc)" in details
    assert "  - stdout @ byte 340, 24 bytes (run abc)" in details
    assert "  - file ~/.toy/marker.txt (run abc): marker found" in details
    assert "  signals: server-directive-executed, marker-in-file" in details
    assert "  * the marker reached stdout 2 messages after the tool result" in details
    assert "  - SSE event #7 (run abc)" in details
    assert "  - anomaly #1 (run abc)" in details
    assert "ERROR (witness-self-test-failed) witness-ledger, run ctl" in details


def test_passing_results_and_refuted_probes_list_no_details() -> None:
    details = _details(render_text(sample_report()))
    assert "sep-1000-result-type" not in details
    assert "exchange #4" not in details and "resultType default" not in details


def test_the_summary_line_counts_statuses_verdicts_and_confirmed_cwe_ids() -> None:
    last = render_text(sample_report()).splitlines()[-1]
    assert last == (
        "8 results: 2 PASS, 2 FAIL, 1 WARN, 2 SKIP, 1 ERROR; probes: 1 CONFIRMED, 1 REFUTED (CWE-346); exit code 1"
    )


def test_the_header_names_versions_recording_and_scenarios() -> None:
    first = render_text(sample_report()).splitlines()[0]
    assert first == (
        "backchannel 0.1.0 (oracle 1): recording run-2026.sqlite (format 3, nonce n0nce); scenarios: provenance, mrtr"
    )


def test_a_newline_in_the_recordings_name_or_nonce_stays_on_the_header_line() -> None:
    forged = "15 results: 15 PASS, 0 FAIL, 0 WARN, 0 SKIP, 0 ERROR; exit code 0"
    report = dataclasses.replace(sample_report(), recording=f"a\n{forged}\n.sqlite", nonce=f"n\n{forged}")
    out = render_text(report).splitlines()
    assert forged not in out
    assert out[0].startswith(f"backchannel 0.1.0 (oracle 1): recording a\\n{forged}\\n.sqlite (format 3, nonce n\\n")


def test_no_table_line_is_wider_than_the_fixed_width_and_no_line_ends_in_spaces() -> None:
    for line in render_text(sample_report()).splitlines():
        assert line == line.rstrip()
        if line[:1] in "┏┃┡│└":
            assert len(line) <= WIDTH


def test_a_long_recording_name_stays_on_the_header_line_and_changes_nothing_else() -> None:
    """Only the table is laid out to a width: the same report under another file name differs in its first line
    alone, which is the whole header however long (pipes and files get one logical line per line)."""
    short = render_text(sample_report()).splitlines()
    name = "a-recording-whose-name-alone-is-longer-than-any-terminal-" + "x" * 150 + ".sqlite"
    long = render_text(dataclasses.replace(sample_report(), recording=name)).splitlines()
    assert len(long) == len(short) and long[1:] == short[1:]
    assert long[0].endswith(f"recording {name} (format 3, nonce n0nce); scenarios: provenance, mrtr")


def test_a_long_evidence_note_is_one_line_of_the_details() -> None:
    note = "the URL the client showed, whole: https://example.test/" + "segment/" * 30
    report = sample_report()
    failing = next(r for r in report.results if r.status == "FAIL")
    longer = dataclasses.replace(failing, evidence=(Evidence(kind="message", seq=3, note=note),))
    out = render_text(dataclasses.replace(report, results=(longer,)))
    assert f"  - message #3: {note}" in out.splitlines()


def test_server_chosen_control_characters_are_shown_escaped_never_sent_to_the_terminal() -> None:
    out = render_text(sample_report())
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", out)
    assert "\\x1b[31mred\\x1b[0m \\x00" in out


def test_rendering_is_identical_whatever_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = render_text(sample_report())

    class FakeTty(io.StringIO):
        encoding = "ascii"

        def isatty(self) -> bool:
            return True

    for name, value in {
        "COLUMNS": "40",
        "LINES": "10",
        "FORCE_COLOR": "1",
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "TTY_COMPATIBLE": "1",
        "TTY_INTERACTIVE": "1",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdout", FakeTty())
    assert render_text(sample_report()) == plain
    assert "\x1b" not in plain


def test_evidence_reads_as_words_for_every_kind() -> None:
    assert evidence_line(Evidence(kind="message", run="abc", seq=12)) == "message #12 (run abc)"
    assert evidence_line(Evidence(kind="terminal", run="abc", stream="stdout", offset=340)) == (
        "stdout @ byte 340 (run abc)"
    )
    assert evidence_line(Evidence(kind="file", path=".toy/marker.txt")) == "file ~/.toy/marker.txt"
    assert evidence_line(Evidence(kind="file", path="~/.toy/marker.txt", offset=3)) == "file ~/.toy/marker.txt @ byte 3"
    assert evidence_line(Evidence(kind="exchange", run="r", seq=2)) == "exchange #2 (run r)"
    assert evidence_line(Evidence(kind="run", run="ctl", note="no traffic")) == "run ctl: no traffic"
    assert evidence_line(Evidence(kind="message")) == "message"
    cited = Evidence(kind="model", run="r", seq=7, path="$.messages[2].content", offset=12, length=22, note="bare")
    assert evidence_line(cited) == "model request #7 @ byte 12, 22 bytes (run r): bare"
    assert evidence_line(Evidence(kind="model", seq=7, path="$.input")) == "model request #7 at $.input"
    answer = Evidence(kind="attestation", run="a", seq=3, note="person answered no to: Q?")
    assert evidence_line(answer) == "answer #3 (run a): person answered no to: Q?"


def test_a_report_without_probes_has_no_probe_summary() -> None:
    report = sample_report()
    plain_only = type(report)(
        tool_version="t",
        oracle_version="1",
        recording="r.sqlite",
        recording_format="3",
        nonce=None,
        scenarios=("mrtr",),
        results=(result(id="a-check"),),
    )
    out = render_text(plain_only)
    assert out.splitlines()[-1] == "1 results: 1 PASS, 0 FAIL, 0 WARN, 0 SKIP, 0 ERROR; exit code 0"
    assert "nonce" not in out.splitlines()[0]


def test_clean_keeps_newlines_and_printable_unicode() -> None:
    assert clean("a\nb ✓ é") == "a\nb ✓ é"
    assert clean("\t\r\x7f") == "\\x09\\x0d\\x7f"
