"""The JUnit XML report: one testsuite per scenario, one testcase per result, parsed back here."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from backchannel.oracle.render.junit import render_junit
from tests.oracle.render.test_render import sample_report


def _root() -> ET.Element:
    return ET.fromstring(render_junit(sample_report()).encode("utf-8"))


def _case(name: str) -> ET.Element:
    found = [c for c in _root().iter("testcase") if c.get("name") == name]
    assert len(found) == 1, name
    return found[0]


def _props(element: ET.Element) -> dict[str, str]:
    holder = element.find("properties")
    assert holder is not None
    return {p.get("name", ""): p.get("value", "") for p in holder.findall("property")}


def test_the_document_starts_with_an_xml_declaration() -> None:
    assert render_junit(sample_report()).startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')


def test_testsuites_counts_tests_failures_errors_and_skips() -> None:
    root = _root()
    assert root.tag == "testsuites"
    assert dict(root.attrib) == {"name": "backchannel", "tests": "8", "failures": "2", "errors": "1", "skipped": "2"}


def test_each_scenario_is_a_testsuite_with_its_own_counts_in_report_order() -> None:
    suites = _root().findall("testsuite")
    assert [dict(s.attrib) for s in suites] == [
        {"name": "provenance", "tests": "3", "failures": "1", "errors": "0", "skipped": "1"},
        {"name": "mrtr", "tests": "5", "failures": "1", "errors": "1", "skipped": "1"},
    ]
    assert _props(suites[0])["recording"] == "run-2026.sqlite"


def test_each_result_is_a_testcase_named_by_check_subject_and_run() -> None:
    names = [(c.get("classname"), c.get("name")) for c in _root().iter("testcase")]
    assert names == [
        ("provenance", "probe-provenance provenance run=abc"),
        ("provenance", "probe-provenance resultType default run=def"),
        ("provenance", "probe-elicitation"),
        ("mrtr", "sep-1234-mrtr-retry"),
        ("mrtr", "witness-ledger run=ctl"),
        ("mrtr", "sep-2345-progress"),
        ("mrtr", "sep-1000-result-type"),
        ("mrtr", "sep-1000-protocol-header run=abc"),
    ]


def test_a_confirmed_probe_is_a_failure_typed_by_level_with_its_evidence_and_properties() -> None:
    case = _case("probe-provenance provenance run=abc")
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("message") == "The client executed a directive the server planted"
    assert failure.get("type") == "MUST"
    assert "- stdout @ byte 340, 24 bytes (run abc)" in (failure.text or "")
    assert "- file ~/.toy/marker.txt (run abc): marker found" in (failure.text or "")
    assert _props(case) == {
        "verdict": "CONFIRMED",
        "signals": "server-directive-executed,marker-in-file",
        "cwe": "CWE-346",
    }


def test_a_refuted_probe_passes_and_keeps_its_verdict() -> None:
    case = _case("probe-provenance resultType default run=def")
    assert [child.tag for child in case] == ["properties"]
    assert _props(case)["verdict"] == "REFUTED"


def test_a_skip_is_skipped_with_its_reason() -> None:
    skipped = _case("sep-1234-mrtr-retry").find("skipped")
    assert skipped is not None
    assert skipped.get("message") == "no-input-required: The client never declared MRTR support"
    probe = _case("probe-elicitation")
    assert probe.find("skipped") is not None and _props(probe)["verdict"] == "SKIP"


def test_an_error_is_an_error_with_its_reason() -> None:
    error = _case("witness-ledger run=ctl").find("error")
    assert error is not None
    assert error.get("type") == "witness-self-test-failed"
    assert "- run ctl" in (error.text or "")


def test_a_warning_passes_and_says_warn_on_system_out() -> None:
    case = _case("sep-2345-progress")
    assert [child.tag for child in case] == ["system-out"]
    out = case.findtext("system-out") or ""
    assert out.startswith("WARN: Progress notifications were dropped: café ✓")
    assert "- SSE event #7 (run abc)" in out


def test_a_plain_pass_is_an_empty_testcase() -> None:
    assert len(_case("sep-1000-result-type")) == 0


def test_characters_xml_cannot_carry_are_escaped_so_the_document_parses() -> None:
    failure = _case("sep-1000-protocol-header run=abc").find("failure")
    assert failure is not None
    assert failure.get("message") == "expected header MCP-Protocol-Version, saw none \\x1b[31mred\\x1b[0m \\x00"
