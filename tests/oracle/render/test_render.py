"""`render(report, fmt)`: dispatch, determinism and the sample report the other renderer tests share."""

from __future__ import annotations

import json
import os

import pytest

from backchannel.oracle.model import Evidence, Report, Result
from backchannel.oracle.render import FORMATS, render, render_json, render_junit, render_sarif, render_text

SPEC = "https://modelcontextprotocol.io/specification/2026-07-28"


def result(**kw: object) -> Result:
    fields: dict[str, object] = {
        "scenario": "mrtr",
        "level": "MUST",
        "spec": f"{SPEC}/basic",
        "title": "A check",
        "status": "PASS",
        "message": "ok",
        "evidence": (),
        "run": None,
        "reason": None,
        "signals": (),
        "observations": (),
        "cwe": (),
        "verdict": None,
        "subject": None,
    }
    fields.update(kw)
    return Result(**fields)  # type: ignore[arg-type]


def sample_report() -> Report:
    """Every shape a renderer must handle: probe verdicts, each status, each evidence kind, hostile text."""
    return Report(
        tool_version="0.1.0",
        oracle_version="1",
        recording="run-2026.sqlite",
        recording_format="3",
        nonce="n0nce",
        scenarios=("provenance", "mrtr"),
        results=(
            result(
                id="probe-provenance",
                scenario="provenance",
                title="Server text does not drive the client",
                status="FAIL",
                verdict="CONFIRMED",
                cwe=("CWE-346",),
                subject="provenance",
                run="abc",
                message="The client executed a directive the server planted",
                evidence=(
                    Evidence(kind="message", run="abc", seq=12),
                    Evidence(kind="terminal", run="abc", stream="stdout", offset=340, length=24),
                    Evidence(kind="file", run="abc", path=".toy/marker.txt", note="marker found"),
                ),
                signals=("server-directive-executed", "marker-in-file"),
                observations=("the marker reached stdout 2 messages after the tool result",),
            ),
            result(
                id="probe-provenance",
                scenario="provenance",
                title="Server text does not drive the client",
                status="PASS",
                verdict="REFUTED",
                cwe=("CWE-346",),
                subject="resultType default",
                run="def",
                message="The client ignored the missing resultType",
                evidence=(Evidence(kind="exchange", run="def", seq=4),),
                signals=("no-directive-executed",),
            ),
            result(
                id="probe-elicitation",
                scenario="provenance",
                title="Injected input requests are not answered blindly",
                status="SKIP",
                verdict="SKIP",
                cwe=("CWE-441",),
                reason="no-mcp-call-surface",
                message="The client never made a tools/call",
            ),
            result(
                id="sep-1234-mrtr-retry",
                status="SKIP",
                reason="no-input-required",
                message="The client never declared MRTR support",
            ),
            result(
                id="witness-ledger",
                status="ERROR",
                reason="witness-self-test-failed",
                message="The ledger saw no request from the control run",
                evidence=(Evidence(kind="run", run="ctl"),),
                run="ctl",
            ),
            result(
                id="sep-2345-progress",
                level="SHOULD",
                status="WARN",
                message="Progress notifications were dropped: café ✓",
                evidence=(Evidence(kind="sse", run="abc", seq=7),),
            ),
            result(id="sep-1000-result-type", title="Results carry resultType", message="every result had resultType"),
            result(
                id="sep-1000-protocol-header",
                title="Requests carry MCP-Protocol-Version",
                status="FAIL",
                message="expected header MCP-Protocol-Version, saw none \x1b[31mred\x1b[0m \x00",
                evidence=(Evidence(kind="message", run="abc", seq=3), Evidence(kind="anomaly", run="abc", seq=1)),
                run="abc",
            ),
        ),
    )


def test_render_dispatches_each_format_to_its_renderer() -> None:
    report = sample_report()
    renderers = {"text": render_text, "json": render_json, "junit": render_junit, "sarif": render_sarif}
    assert tuple(renderers) == FORMATS
    for fmt, renderer in renderers.items():
        assert render(report, fmt) == renderer(report)


def test_an_unknown_format_raises_value_error_naming_every_valid_format() -> None:
    with pytest.raises(ValueError, match="xml") as caught:
        render(sample_report(), "xml")
    for fmt in FORMATS:
        assert fmt in str(caught.value)


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_same_report_renders_to_the_same_bytes_every_time(fmt: str) -> None:
    first = render(sample_report(), fmt)
    assert render(sample_report(), fmt) == first
    assert render(sample_report(), fmt).encode("utf-8") == first.encode("utf-8")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_ends_with_exactly_one_newline(fmt: str) -> None:
    out = render(sample_report(), fmt)
    assert out.endswith("\n") and not out.endswith("\n\n")


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_format_names_where_the_tests_run(fmt: str) -> None:
    out = render(sample_report(), fmt)
    assert os.getcwd() not in out
    assert os.path.expanduser("~") + "/" not in out


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_empty_report_renders_in_every_format(fmt: str) -> None:
    empty = Report(
        tool_version="0.1.0", oracle_version="1", recording="r.sqlite", recording_format="3", nonce=None, scenarios=()
    )
    out = render(empty, fmt)
    assert out.endswith("\n") and "backchannel" in out


HOSTILE = "\x1b]0;pwned\x07 \x9b31m \u202eevil\u2066 \x85 \u200f"
UNSAFE_RAW = ("\x1b", "\x07", "\x9b", "\x85", "\u202e", "\u2066", "\u200f")


def hostile_report() -> Report:
    """Check messages, evidence notes, file names, subjects and observations all carrying a recording's text."""
    return Report(
        tool_version="0.1.0",
        oracle_version="1",
        recording=f"bug{HOSTILE}.sqlite",
        recording_format="m002",
        nonce=HOSTILE,
        scenarios=("mrtr",),
        results=(
            result(
                id="sep-1000-hostile",
                status="FAIL",
                message=f"saw {HOSTILE}",
                subject=HOSTILE,
                run="abc",
                evidence=(
                    Evidence(kind="file", run="abc", path=f".toy/{HOSTILE}.txt", note=HOSTILE),
                    Evidence(kind="terminal", run="abc", stream="stdout", offset=0, note=HOSTILE),
                ),
                observations=(HOSTILE,),
                signals=("x",),
                verdict="CONFIRMED",
            ),
            result(id="w", status="WARN", message=HOSTILE),
            result(id="e", status="ERROR", reason="r", message=HOSTILE),
            result(id="s", status="SKIP", reason="r", message=HOSTILE),
        ),
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_neutralises_escapes_c1_controls_and_bidi_from_a_recording(fmt: str) -> None:
    out = render(hostile_report(), fmt)
    assert not [c for c in UNSAFE_RAW if c in out]
    if fmt in ("json", "sarif"):  # escaped the JSON way: the values decode back to what the recording held
        assert "\\u202e" in out and "\\u0085" in out and "\\u001b" in out
        loaded = json.loads(out)
        holder = loaded["recording"] if fmt == "json" else loaded["runs"][0]["properties"]
        assert holder["nonce"] == HOSTILE
    else:
        assert "\\u202eevil\\u2066" in out and "\\x1b]0;pwned\\x07" in out and "\\x9b31m" in out
