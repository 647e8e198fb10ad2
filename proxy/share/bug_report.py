"""`backchannel bug-report FILE [--out DIR]`: a folder ready to attach to an issue.

It holds the recording redacted (a `sqlite` export of every run), its HAR, and `REPORT.md`: the tool, client and
server names and versions, the session rules the recording shows broken (FAIL and WARN) first, then each FAIL,
CONFIRMED or ERROR result of its scenarios, and each WARN that rests on a person's "not sure" (what a maintainer
should look at again), each with its message and the wire and terminal lines or answers its evidence cites, and
the commands that reproduce it. Everything in REPORT.md is built from the redacted copy, so nothing the redaction
removed can reach it. A person's screenshots (`check --by-hand`) are images redaction cannot read: they go into
`screenshots/` and the copy as given, stderr says so, and `--no-screenshots` leaves them out of both.
The lead registers `bug_report_command` in proxy/cli.py.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer

from backchannel.oracle import judge
from backchannel.oracle.model import Report, Result
from backchannel.oracle.requirements import requirement_of
from backchannel.proxy.share.evidence import Excerpt, excerpt
from backchannel.proxy.share.export import fail, load_recording
from backchannel.proxy.share.files import ShareError, publish
from backchannel.proxy.share.flows import client_flows
from backchannel.proxy.share.har import har_text
from backchannel.proxy.share.markdown import Markdown, render_template, text
from backchannel.proxy.share.redaction import ExportPolicy, export_policy, summary_lines
from backchannel.proxy.share.screenshots import (
    SCREENSHOTS,
    screenshot_lines,
    screenshots_in,
    write_screenshots,
)
from backchannel.proxy.share.versions import client_invocation, versions
from backchannel.recordings import redact
from backchannel.recordings.errors import RecordingError
from backchannel.recordings.model import Recording
from backchannel.recordings.safe_text import neutralise
from backchannel.recordings.screenshots import Screenshot
from backchannel.recordings.trim import trim_copy

REPORT_NAME = "REPORT.md"
MAX_EVIDENCE = 6  # per finding; the JSON report has them all
SHOWN = ("FAIL", "ERROR")  # a CONFIRMED probe is a FAIL with a verdict
RULES_SHOWN = ("FAIL", "WARN")  # a session rule broken: a MUST (FAIL) or a SHOULD (WARN)
SESSION = "session"
_SPEC = re.compile(r"https://[A-Za-z0-9._~/#%-]+")


@dataclass(frozen=True, slots=True)
class Finding:
    label: str
    id: str
    title: str
    level: str
    run: str | None
    spec: Markdown
    requirement: Markdown | None  # the sentence the check tests, quoted, and its spec anchor (requirements registry)
    message: str
    excerpts: tuple[Excerpt, ...]
    more: int


@dataclass(frozen=True, slots=True)
class BugReport:
    folder: Path
    report: Path
    recording: Path
    har: Path
    lines: tuple[str, ...]  # what to print on stderr: what was redacted, what was written


def default_folder(file: Path) -> Path:
    return file.with_name(f"{file.stem}-bug-report")


def client_text(argv: Sequence[str]) -> str:
    """The `--client` string: each word shell-quoted, `{url}` left bare so it reads as the placeholder it is."""
    return " ".join(part if part == "{url}" else shlex.quote(part) for part in argv)


def _finding(rec: Recording, result: Result) -> Finding:
    spec = Markdown(f"<{result.spec}>") if _SPEC.fullmatch(result.spec) else text(result.spec or "none given")
    return Finding(
        label=result.verdict if result.verdict == "CONFIRMED" else result.status,
        id=result.id,
        title=result.title,
        level=result.level,
        run=result.run,
        spec=spec,
        requirement=_requirement(result.id),
        message=result.message,
        excerpts=tuple(excerpt(rec, e) for e in result.evidence[:MAX_EVIDENCE]),
        more=max(len(result.evidence) - MAX_EVIDENCE, 0),
    )


def _requirement(check_id: str) -> Markdown | None:
    """The check's sentence, quoted and escaped, with the anchor where the spec says it; None without an entry."""
    traced = requirement_of(check_id)
    if traced is None:
        return None
    if traced.quote is None or traced.anchor is None:
        return Markdown(f"none quoted: {text(traced.unquoted)}")
    return Markdown(f"“{text(traced.quote)}” (<{traced.anchor}>)")


@dataclass(frozen=True, slots=True)
class Section:
    heading: str
    findings: list[Finding]
    none: Markdown  # what the section says when it has no finding (backchannel's own words, not escaped)


def _shown(result: Result) -> bool:
    # a person who was not sure (an attested WARN) is exactly what a maintainer must look at again
    return result.status in SHOWN or (result.attested and result.status == "WARN")


def _sections(rec: Recording, report: Report) -> list[Section]:
    """The protocol's own rules the session broke first (they need no scenario to be read), then the rest."""
    rules = [_finding(rec, r) for r in report.results if r.scenario == SESSION and r.status in RULES_SHOWN]
    found = [_finding(rec, r) for r in report.results if r.scenario != SESSION and _shown(r)]
    return [
        Section("Protocol rules broken", rules, Markdown("The session kept every protocol rule it exercised.")),
        Section("Findings", found, Markdown("Nothing else failed, was confirmed, errored or left a person unsure.")),
    ]


def _screenshots(sections: Sequence[Section]) -> list[Screenshot]:
    """The screenshots the findings' excerpts show, each once, in the order they appear."""
    shots = (item.screenshot for s in sections for f in s.findings for item in f.excerpts if item.screenshot)
    return list({shot.seq: shot for shot in shots}.values())


def _statuses(report: Report) -> list[tuple[str, str, str | None]]:
    return sorted((r.id, r.status, r.subject) for r in report.results)


def render_report(
    rec: Recording,
    report: Report,
    *,
    recording_name: str,
    har_name: str,
    redacted: str,
    redaction_note: str = "",
    sections: list[Section] | None = None,
) -> str:
    """REPORT.md for `rec` (the redacted copy) judged to `report` (`sections`: made from them, when made already)."""
    if sections is None:
        sections = _sections(rec, report)
    found = versions(rec)
    counts = report.counts()
    invocation = client_invocation(rec)
    judge_command = shlex.join(["backchannel", "judge", recording_name])
    replay_command = None
    if invocation is not None:
        replay_command = shlex.join(
            ["backchannel", "check", "--replay", recording_name, "--client", client_text(invocation)]
        )
    clients = ", ".join(str(p) for p in found.clients) or "an unnamed client"
    servers = ", ".join(str(p) for p in found.servers) or "an unnamed server"
    created = rec.info.created_at
    return render_template(
        "report_template.md",
        title=f"{clients} against {servers}",
        versions=found,
        created=(
            datetime.fromtimestamp(created, UTC).strftime("%Y-%m-%d %H:%M UTC")
            if created is not None and 0 <= created < 253402300799
            else "an unknown date"
        ),
        scenarios=", ".join(report.scenarios) or "none named",
        oracle_version=report.oracle_version,
        counts=", ".join(f"{n} {status}" for status, n in counts.items() if n) or "no results",
        protocols=", ".join(found.protocol_versions) or "none seen",
        invocation=None if invocation is None else client_text(invocation),
        sections=sections,
        judge_command=judge_command,
        replay_command=replay_command,
        recording_name=recording_name,
        har_name=har_name,
        redacted=redacted,
        redaction_note=redaction_note,
        screenshots=sum(1 for shot in _screenshots(sections) if shot.file_name is not None),
        screenshots_folder=f"{SCREENSHOTS}/",
    )


def _make_folder(folder: Path) -> None:
    if folder.exists() and (not folder.is_dir() or folder.is_symlink() or any(folder.iterdir())):
        raise ShareError(f"{folder} already exists and is not an empty folder; choose another --out")
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise ShareError(f"cannot make {folder}: {exc.strerror or exc}") from exc


def bug_report(
    file: Path, out: Path | None = None, patterns: Sequence[str] = (), *, screenshots: bool = True
) -> BugReport:
    """Write the bug-report folder for `file` into `out` (default: beside it, `<name>-bug-report`); without
    `screenshots`, no screenshot reaches the folder, its REPORT.md or its copy of the recording."""
    original = load_recording(file)  # a readable recording, before anything is written
    folder = out if out is not None else default_folder(file)
    try:
        policy = export_policy(original.meta, patterns)
        with redact.applying(redact.Redactor(policy.redaction)):  # the report's flows, redacted again with it
            return _write(file, original, folder, policy, screenshots=screenshots)
    except ValueError as exc:  # a bad --redact pattern
        raise ShareError(str(exc)) from exc


def _write(file: Path, original: Recording, folder: Path, policy: ExportPolicy, *, screenshots: bool) -> BugReport:
    _make_folder(folder)
    stem = file.stem if file.suffix else file.name
    recording_path = folder / f"{stem}.sqlite"
    har_path = folder / f"{stem}.har"
    try:
        summary = trim_copy(file, recording_path, policy=policy.redaction, screenshots=screenshots)
    except RecordingError as exc:
        raise ShareError(str(exc)) from exc
    shared = load_recording(recording_path)
    flows = client_flows(shared)  # from the redacted copy: redacting again finds nothing new
    har = har_text(flows).encode("utf-8", "surrogateescape")
    publish(har_path, lambda handle: handle.write(har))
    report = judge(shared)
    note = ""
    if _statuses(report) != _statuses(judge(original)):
        note = (
            "Note: redaction changed some results of this recording; the results above are those of the attached "
            "(redacted) copy."
        )
    counts = {k: dict(v) for k, v in summary.counts.items()}
    lines = summary_lines(counts, policy)
    sections = _sections(shared, report)
    markdown = render_report(
        shared,
        report,
        recording_name=recording_path.name,
        har_name=har_path.name,
        redacted=lines[0].removeprefix("redacted: "),
        redaction_note=note,
        sections=sections,
    ).encode("utf-8")
    write_screenshots(folder, _screenshots(sections))  # from the copy, as REPORT.md links them
    report_path = folder / REPORT_NAME
    publish(report_path, lambda handle: handle.write(markdown))
    # the copy's count when kept (it is what is attached); the original's when left out (what is missing)
    shots = screenshot_lines(screenshots_in(shared if screenshots else original), kept=screenshots)
    return BugReport(folder, report_path, recording_path, har_path, (*lines, *shots, f"wrote {folder}/"))


def bug_report_command(
    file: Annotated[Path, typer.Argument(help="The recording to report (.sqlite).")],
    out: Annotated[
        Path | None,
        typer.Option(help="The folder to write (default: beside FILE, <name>-bug-report); must be new or empty."),
    ] = None,
    redact_names: Annotated[
        list[str] | None,
        typer.Option("--redact", help="Also redact names matching this regular expression; repeatable."),
    ] = None,
    no_screenshots: Annotated[
        bool,
        typer.Option(
            "--no-screenshots",
            help="Leave a person's screenshots out of REPORT.md, the folder and the recording copy "
            "(redaction cannot read images).",
        ),
    ] = False,
) -> None:
    """Write a folder to attach to a bug report: REPORT.md, the recording redacted, its HAR, and any screenshots."""
    try:
        done = bug_report(file, out, redact_names or (), screenshots=not no_screenshots)
    except ShareError as exc:
        raise fail(str(exc)) from exc
    except OSError as exc:
        raise fail(f"cannot write the bug report: {exc.strerror or exc}") from exc
    for line in done.lines:
        print(neutralise(line), file=sys.stderr, flush=True)
    print(done.report, flush=True)
