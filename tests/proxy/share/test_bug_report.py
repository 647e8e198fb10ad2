"""`bug-report FILE` writes a folder to attach: a REPORT.md safe to render on GitHub, the redacted recording, a HAR."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from backchannel.oracle import judge
from backchannel.oracle.model import Evidence, Report, Result
from backchannel.oracle.terminal import stream_bytes
from backchannel.proxy.share.bug_report import render_report
from backchannel.recordings import load
from tests.factories import HOSTILE_SHOT, JPEG_SHOT, PNG_SHOT, answered_recording

from .conftest import FLAWED, HOSTILE, REFERENCE, RUN_ID, invoke

REFERENCES = sorted(REFERENCE.glob("*.sqlite"))
REFERENCE_PATTERNS = {
    "message": re.compile(r"message #(\d+)"),
    "exchange": re.compile(r"exchange #(\d+)"),
    "sse": re.compile(r"SSE item #(\d+)"),
    "anomaly": re.compile(r"anomaly #(\d+)"),
}
TERMINAL = re.compile(r"(stdout|stderr|tty) of run (`+) ?(.*?) ?\2, bytes (\d+) to (\d+)")
SCREEN = re.compile(r"screen #(\d+) ")
FILE = re.compile(r"file (`+) ?(.*?) ?\1 of run (`+) ?(.*?) ?\3")
ANSWER = re.compile(r"^Evidence: answer #(\d+) ")


def tokens(markdown: str) -> list[Token]:
    return MarkdownIt("commonmark").enable("table").parse(markdown)


def evidence_lines(markdown: str) -> list[str]:
    return [t.content for t in tokens(markdown) if t.type == "inline" and t.content.startswith("Evidence: ")]


SCREENSHOT_SRC = re.compile(r"screenshots/answer-\d+\.(png|jpg)")


def assert_safe(markdown: str) -> None:
    parsed = tokens(markdown)
    assert not [t for t in parsed if t.type in ("html_block", "html_inline")]
    inline = [c for t in parsed if t.children for c in t.children]
    assert not [c for c in inline if c.type == "html_inline"]
    # the only images are the screenshots the report wrote beside it, named by an answer's number
    assert all(SCREENSHOT_SRC.fullmatch(str(c.attrs["src"])) for c in inline if c.type == "image")
    # the only links are the checks' own spec links (from backchannel's registry, never from the recording)
    links = [c.attrs["href"] for c in inline if c.type == "link_open"]
    assert all(str(href).startswith("https://modelcontextprotocol.io/") for href in links), links
    assert "\x1b" not in markdown and "\u202e" not in markdown
    fences = [t for t in parsed if t.type == "fence"]
    # a fence that is never closed swallows the rest of the file: every fence ends before the next heading
    headings = [t.map[0] for t in parsed if t.type == "heading_open" and t.map]
    for fence in fences:
        assert fence.map is not None
        assert markdown.splitlines()[fence.map[1] - 1].startswith("```"), "a code fence is not closed"
        assert not [h for h in headings if fence.map[0] < h < fence.map[1]]


def listed(result: Result) -> bool:
    """What REPORT.md lists: FAIL and ERROR, a session rule's WARN, and a WARN that is a person's "not sure"."""
    warned = result.status == "WARN" and (result.scenario == "session" or result.attested)
    return result.status in ("FAIL", "ERROR") or warned


def make(recording: Path, out: Path) -> str:
    result = invoke("bug-report", recording, "--out", out)
    assert result.exit_code == 0, result.output
    return (out / "REPORT.md").read_text(encoding="utf-8")


def test_the_folder_holds_the_report_the_redacted_recording_and_its_har(tmp_path):
    report = make(FLAWED, tmp_path / "report")
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == [
        "REPORT.md",
        "mrtr-provenance-toy-flawed.har",
        "mrtr-provenance-toy-flawed.sqlite",
    ]
    shared = load(tmp_path / "report" / "mrtr-provenance-toy-flawed.sqlite")
    assert "redactions:export" in shared.meta
    har = json.loads((tmp_path / "report" / "mrtr-provenance-toy-flawed.har").read_text())
    assert len(har["log"]["entries"]) == len(shared.exchanges)
    assert "# backchannel bug report" in report


def test_the_report_names_tool_client_server_and_each_failed_or_confirmed_check(tmp_path):
    report = make(FLAWED, tmp_path / "report")
    parsed = tokens(report)
    headings = [parsed[i + 1].content for i, t in enumerate(parsed) if t.type == "heading_open"]
    assert headings[0].startswith("backchannel bug report: backchannel")
    assert {"Versions", "Findings", "Reproduce", "Attached"} <= set(headings)
    assert "FAIL: `elicitation-names-requesting-server`" in headings
    assert "CONFIRMED: `mrtr-provenance-input-requests`" in headings
    assert "CONFIRMED: `mrtr-provenance-result-type-default`" in headings
    text = MarkdownIt("commonmark").enable("table").render(report)
    assert "backchannel-toy-agent 0.1.0" in text and "backchannel-probe-a2375f993340 0.1.0" in text
    assert "backchannel 0.1.0" in text and "mitmproxy 12.3.1" in text


def test_the_report_gives_the_exact_commands_that_reproduce_it(tmp_path):
    report = make(FLAWED, tmp_path / "report")
    commands = [t.content.strip() for t in tokens(report) if t.type == "fence" and t.info == "sh"]
    assert "backchannel judge mrtr-provenance-toy-flawed.sqlite" in commands
    replay = next(c for c in commands if c.startswith("backchannel check --replay"))
    argv = shlex.split(replay)
    assert argv[:5] == ["backchannel", "check", "--replay", "mrtr-provenance-toy-flawed.sqlite", "--client"]
    assert shlex.split(argv[5]) == json.loads(load(FLAWED).meta["invocation"])  # the recorded client, {url} and all


@pytest.mark.parametrize("recording", REFERENCES, ids=lambda p: p.stem)
def test_every_reference_recording_gives_a_safe_report_whose_evidence_all_resolves(tmp_path, recording):
    report = make(recording, tmp_path / "report")
    assert_safe(report)
    rec = load(tmp_path / "report" / f"{recording.stem}.sqlite")
    lines = evidence_lines(report)
    failing = [r for r in judge(rec).results if listed(r)]
    assert bool(lines) == any(r.evidence for r in failing)
    for line in lines:
        assert "is not in the recording" not in line, line
        assert_resolves(rec, line)


def assert_resolves(rec, line: str) -> None:
    seqs = {
        "message": {m.seq for m in rec.messages},
        "exchange": {x.seq for x in rec.exchanges},
        "sse": {s.seq for s in rec.sse_events},
        "anomaly": {a.seq for a in rec.anomalies},
    }
    resolved = False
    for kind, pattern in REFERENCE_PATTERNS.items():
        for found in pattern.finditer(line):
            assert int(found.group(1)) in seqs[kind], line
            resolved = True
    if (terminal := TERMINAL.search(line)) is not None:
        stream, run, start, end = terminal.group(1), terminal.group(3), int(terminal.group(4)), int(terminal.group(5))
        assert 0 <= start <= end <= len(stream_bytes(rec, run, stream)), line  # a tty stream: its plain text
        resolved = True
    if (screen := SCREEN.search(line)) is not None:
        assert int(screen.group(1)) in {found.seq for found in rec.screens}, line
        resolved = True
    if (file := FILE.search(line)) is not None:
        assert (file.group(4), file.group(2)) in {(f.run_id, f.path) for f in rec.files}, line
        resolved = True
    if (answer := ANSWER.search(line)) is not None:
        assert int(answer.group(1)) in {found.seq for found in rec.attestations}, line
        resolved = True
    if line.startswith("Evidence: run ") or line.startswith("Evidence: the recording"):
        resolved = True
    assert resolved, f"an evidence line names nothing the test can look up: {line}"


def test_a_hostile_recording_gives_a_report_with_no_markup_escape_or_bidi_from_it(tmp_path, hostile):
    rec = load(hostile)
    everything = (
        Evidence(kind="message", run=RUN_ID, seq=rec.messages[0].seq, note=HOSTILE),
        Evidence(kind="exchange", run=RUN_ID, seq=rec.exchanges[0].seq),
        Evidence(kind="terminal", run=RUN_ID, stream="stdout", offset=0, length=8),
        Evidence(kind="file", run=RUN_ID, path=rec.files[0].path),
        Evidence(kind="run", run=RUN_ID),
        Evidence(kind="message", run=RUN_ID, seq=999),
    )
    result = Result(
        id="a-check", scenario="mrtr-provenance", level="MUST", spec="javascript:alert(1)", title=HOSTILE,
        status="FAIL", message=HOSTILE, evidence=everything, run=RUN_ID, reason=None, signals=(), observations=(),
        cwe=(), verdict=None, subject=None,
    )  # fmt: skip
    report = Report(
        tool_version="t", oracle_version="1", recording="hostile.sqlite", recording_format="f", nonce=None,
        scenarios=("mrtr-provenance",), results=(result,),
    )  # fmt: skip
    markdown = render_report(rec, report, recording_name="hostile.sqlite", har_name="hostile.har", redacted="nothing")
    assert_safe(markdown)
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    assert "<script" not in html and "<img" not in html and "<b>" not in html and "<i>" not in html
    assert "&lt;script&gt;" in html  # shown, as text
    lines = evidence_lines(markdown)
    assert len(lines) == len(everything)
    # evidence that points at nothing says so, and is not written as a reference (no "#")
    assert lines[-1].startswith("Evidence: message 999") and "is not in the recording" in lines[-1]
    for line in lines[:-1]:
        assert_resolves(rec, line)


def test_a_hostile_recording_makes_a_complete_folder_through_the_command(tmp_path, hostile):
    report = make(hostile, tmp_path / "report")
    assert_safe(report)
    assert "<script" not in MarkdownIt("commonmark").render(report)
    replay = next(t.content for t in tokens(report) if t.type == "fence" and "--replay" in t.content)
    assert shlex.split(replay)[-1] == "evil-client --x {url} '$(touch pwned)'"  # quoted: never runs


def test_an_existing_folder_with_files_in_it_is_refused_with_exit_2(tmp_path):
    (tmp_path / "report").mkdir()
    (tmp_path / "report" / "keep.txt").write_text("mine")
    result = invoke("bug-report", FLAWED, "--out", tmp_path / "report")
    assert result.exit_code == 2
    assert "already exists" in result.output and (tmp_path / "report" / "keep.txt").read_text() == "mine"


def test_a_file_that_is_not_a_recording_is_refused_with_one_line_and_exit_2(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database")
    result = invoke("bug-report", junk, "--out", tmp_path / "report")
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "report").exists()


def test_a_recording_that_is_not_all_utf8_gives_a_whole_report_folder(tmp_path, not_utf8):
    make(not_utf8, tmp_path / "report")
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == ["REPORT.md", "not-utf8.har", "not-utf8.sqlite"]
    json.loads((tmp_path / "report" / "not-utf8.har").read_bytes().decode("utf-8"))
    assert load(tmp_path / "report" / "not-utf8.sqlite").exchanges[0].response_headers[1] == ("x-odd", "a\udcffb")


def test_the_machines_home_folder_never_reaches_a_report_and_the_summary_says_it_was_masked(tmp_path):
    from backchannel.recordings.shapes import RunDetail
    from tests.factories import new_recording

    home = str(Path.home())
    printed = f"PATH={home}/.local/bin:/usr/bin\n".encode()
    source = new_recording(
        tmp_path / "env.sqlite",
        runs=[
            {"id": "r1", "name": "probe", "scenario": "mrtr-provenance", "detail": RunDetail(url="/r/r1/mcp").to_json()}
        ],
        terminal=[{"run_id": "r1", "stream": "stdout", "offset": 0, "data": printed}],
    )
    result = invoke("bug-report", source, "--out", tmp_path / "report")
    assert result.exit_code == 0, result.output
    assert "home folder" in result.output  # the summary line names what was masked, never the value
    for shared in (tmp_path / "report").iterdir():
        assert f"{home}/.local".encode() not in shared.read_bytes(), shared.name


def test_the_session_rules_a_recording_broke_come_first_with_their_evidence(tmp_path):
    broken = REFERENCE / "elicitation-url-mode-contract-constructs-inputs.sqlite"  # its client skips an input request
    report = make(broken, tmp_path / "report")
    parsed = tokens(report)
    headings = [parsed[i + 1].content for i, t in enumerate(parsed) if t.type == "heading_open"]
    rules, findings = headings.index("Protocol rules broken"), headings.index("Findings")
    assert rules < headings.index("FAIL: `session-client-answers-every-input-request`") < findings
    assert "answers 0 of 1" in report and evidence_lines(report)


def test_a_session_that_kept_every_rule_says_so(tmp_path):
    report = make(REFERENCE / "mrtr-provenance-toy-fixed.sqlite", tmp_path / "report")
    assert "The session kept every protocol rule it exercised." in report


def test_each_finding_links_the_sentence_its_check_tests_and_the_spec_anchor(tmp_path):
    report = make(FLAWED, tmp_path / "report")
    html = MarkdownIt("commonmark").render(report)
    anchor = "https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype"
    assert f'<a href="{anchor}">{anchor}</a>' in html
    assert "The requirement: “For backward compatibility with servers implementing earlier protocol" in html
    assert "clients MUST treat an absent `resultType` as `&quot;complete&quot;`.”" in html  # escaped: shown as typed
    section = report.split("### CONFIRMED: `mrtr-provenance-result-type-default`", 1)[1].split("\n### ", 1)[0]
    assert f"(<{anchor}>)" in section


def images(markdown: str) -> list[str]:
    return [str(c.attrs["src"]) for t in tokens(markdown) if t.children for c in t.children if c.type == "image"]


def test_a_persons_screenshots_are_written_beside_the_report_with_their_exact_bytes_and_linked_from_it(tmp_path):
    source = answered_recording(tmp_path / "answered.sqlite")
    result = invoke("bug-report", source, "--out", tmp_path / "report")
    assert result.exit_code == 0, result.output
    report = (tmp_path / "report" / "REPORT.md").read_text(encoding="utf-8")
    assert_safe(report)
    shots = load(source).attestations
    png, hostile, jpeg = (f"screenshots/answer-{a.seq}" for a in shots[:3])
    assert images(report) == [f"{png}.png", f"{jpeg}.jpg"]
    assert (tmp_path / "report" / f"{png}.png").read_bytes() == PNG_SHOT
    assert (tmp_path / "report" / f"{jpeg}.jpg").read_bytes() == JPEG_SHOT
    assert sorted(p.name for p in (tmp_path / "report" / "screenshots").iterdir()) == [
        f"answer-{shots[0].seq}.png",
        f"answer-{shots[2].seq}.jpg",
    ]
    assert "`screenshots/` | 2 screenshot(s) a person gave with their answers" in report
    assert "kept 3 screenshot(s) as the person gave them: redaction cannot read images" in result.output


def test_a_screenshot_whose_bytes_are_not_the_image_its_row_says_is_not_written_and_the_report_says_so(tmp_path):
    source = answered_recording(tmp_path / "answered.sqlite")
    report = make(source, tmp_path / "report")
    hostile = load(source).attestations[1]
    assert not list((tmp_path / "report").rglob(f"answer-{hostile.seq}.*"))
    section = report.split("### FAIL: `by-hand-url-shown-before-consent`", 1)[1].split("\n## ", 1)[0]
    assert "The screenshot given with this answer is not included: its bytes are not a PNG image." in section
    assert not images(section)
    assert HOSTILE_SHOT.decode() not in report and "<script" not in MarkdownIt("commonmark").render(report)


def test_an_answer_is_quoted_as_what_the_person_was_asked_and_said_and_a_not_sure_is_shown_as_a_warning(tmp_path):
    source = answered_recording(tmp_path / "answered.sqlite")
    report = make(source, tmp_path / "report")
    no_shot = load(source).attestations[3]
    assert f"Evidence: answer #{no_shot.seq} of run `b` (a person): person answered no" in report
    fences = [t.content for t in tokens(report) if t.type == "fence" and t.content.startswith("Question:")]
    assert "Question: About names-requesting-server?\nAnswer: no\n" in fences
    assert "Question: About nothing-opened-before-consent?\nAnswer: not sure\n" in fences
    assert "### WARN: `by-hand-nothing-opened-before-consent`" in report  # not sure: a maintainer should look
    assert "is not in the recording" not in report
    for line in evidence_lines(report):
        assert_resolves(load(tmp_path / "report" / "answered.sqlite"), line)


def test_no_screenshots_leaves_every_image_out_of_the_folder_the_report_and_the_attached_recording(tmp_path):
    source = answered_recording(tmp_path / "answered.sqlite")
    result = invoke("bug-report", source, "--out", tmp_path / "report", "--no-screenshots")
    assert result.exit_code == 0, result.output
    assert "left out 3 screenshot(s) (--no-screenshots)" in result.output and "kept" not in result.output
    report = (tmp_path / "report" / "REPORT.md").read_text(encoding="utf-8")
    assert not images(report) and "screenshot" not in report
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == ["REPORT.md", "answered.har", "answered.sqlite"]
    copy = (tmp_path / "report" / "answered.sqlite").read_bytes()
    assert b"png-payload" not in copy and b"jpeg-payload" not in copy and b"not a png" not in copy
    assert [(a.answer, a.screenshot) for a in load(tmp_path / "report" / "answered.sqlite").attestations] == [
        ("n", None),
        ("n", None),
        ("?", None),
        ("n", None),
    ]


def test_a_recording_without_screenshots_says_nothing_about_them(tmp_path):
    result = invoke("bug-report", FLAWED, "--out", tmp_path / "report")
    assert result.exit_code == 0 and "screenshot" not in result.output
    assert "screenshot" not in (tmp_path / "report" / "REPORT.md").read_text(encoding="utf-8")
