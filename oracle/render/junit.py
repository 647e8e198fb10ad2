"""The report as JUnit XML for CI: one testsuite per scenario, one testcase per result."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from backchannel.recordings.safe_text import neutralise

from ..model import Report, Result
from .text import evidence_line

DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'

# Characters XML 1.0 cannot carry at all, even escaped; server-chosen text may contain them.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    """Controls and bidi characters escaped by the shared neutraliser, then anything XML 1.0 cannot carry."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", neutralise(text))


def _sub(parent: ET.Element, tag: str, attrs: dict[str, str] | None = None, text: str | None = None) -> ET.Element:
    element = ET.SubElement(parent, tag, {k: _xml_safe(v) for k, v in (attrs or {}).items()})
    if text:
        element.text = _xml_safe(text)
    return element


def case_name(result: Result) -> str:
    """`<id>[ <subject>][ run=<run>]`: unique enough for CI to tell one check's findings apart."""
    name = result.id
    if result.subject:
        name += f" {result.subject}"
    if result.run is not None:
        name += f" run={result.run}"
    return name


def _body(result: Result) -> str:
    lines = [result.message]
    lines += [f"- {evidence_line(ev)}" for ev in result.evidence]
    if result.signals:
        lines.append(f"signals: {', '.join(result.signals)}")
    lines += [f"observation: {obs}" for obs in result.observations]
    return "\n".join(lines)


def _counts(results: list[Result]) -> dict[str, str]:
    return {
        "tests": str(len(results)),
        "failures": str(sum(1 for r in results if r.status == "FAIL")),
        "errors": str(sum(1 for r in results if r.status == "ERROR")),
        "skipped": str(sum(1 for r in results if r.status == "SKIP")),
    }


def _properties(case: ET.Element, result: Result) -> None:
    props: list[tuple[str, str]] = []
    if result.verdict is not None:
        props += [("verdict", result.verdict), ("signals", ",".join(result.signals))]
    if result.cwe:
        props.append(("cwe", ",".join(result.cwe)))
    if props:
        holder = _sub(case, "properties")
        for name, value in props:
            _sub(holder, "property", {"name": name, "value": value})


def _testcase(suite: ET.Element, result: Result) -> None:
    case = _sub(suite, "testcase", {"classname": result.scenario, "name": case_name(result)})
    _properties(case, result)
    reason = f"{result.reason}: {result.message}" if result.reason else result.message
    if result.status == "FAIL":
        _sub(case, "failure", {"message": result.message, "type": result.level}, _body(result))
    elif result.status == "ERROR":
        _sub(case, "error", {"message": reason, "type": result.reason or "ERROR"}, _body(result))
    elif result.status == "SKIP":
        _sub(case, "skipped", {"message": reason})
    elif result.status == "WARN":
        _sub(case, "system-out", None, f"WARN: {_body(result)}")


def render_junit(report: Report) -> str:
    """The report as JUnit XML with a declaration; scenarios in report order, then any only the results name."""
    scenarios = list(dict.fromkeys([*report.scenarios, *(r.scenario for r in report.results)]))
    root = ET.Element("testsuites", {"name": "backchannel", **_counts(list(report.results))})
    for scenario in scenarios:
        results = [r for r in report.results if r.scenario == scenario]
        suite = _sub(root, "testsuite", {"name": scenario, **_counts(results)})
        suite_props = _sub(suite, "properties")
        for name, value in (
            ("tool_version", report.tool_version),
            ("oracle_version", report.oracle_version),
            ("recording", report.recording),
            ("recording_format", report.recording_format),
            ("nonce", report.nonce or ""),
        ):
            _sub(suite_props, "property", {"name": name, "value": value})
        for result in results:
            _testcase(suite, result)
    ET.indent(root, space="  ")
    return DECLARATION + ET.tostring(root, encoding="unicode") + "\n"
