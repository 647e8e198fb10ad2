"""backchannel's pytest plugin (registered through the `pytest11` entry point): a recording as a test fixture.

    @pytest.mark.backchannel("fixtures/repo-status.sqlite", upstream="http://127.0.0.1:8000/mcp")
    def test_my_client(backchannel_server, backchannel_report):
        run_my_client(backchannel_server)              # the URL of a replay of that recording
        assert backchannel_report.failed() == []       # the recording's checks, judged on this very run

`--backchannel-record` chooses what `backchannel_server` is: `none` (default) replays the fixture, with no network;
`once` records it through the proxy from the marker's `upstream` when the file does not exist yet and replays it
otherwise; `all` records it again every time. A relative fixture path is read beside the test file.

Replaying, `backchannel_server` serves the recorded client side directly; when the test also asks for
`backchannel_report`, the replay is served through the proxy instead (its upstream side, the run's plan
re-applied), so what the client did this time is recorded and can be judged like any recording.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

MODES = ("none", "once", "all")
MARKER_HELP = (
    "backchannel(path, *, upstream=None, run=None, speed=0.0, allow_repeats=False): the recording "
    "`backchannel_server` replays (or records through the proxy from `upstream` with --backchannel-record)"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("backchannel", "backchannel record/replay fixtures")
    group.addoption(
        "--backchannel-record",
        dest="backchannel_record",
        choices=MODES,
        default="none",
        help="none: replay fixtures, no network (default); once: record missing fixtures from the marker's "
        "upstream; all: record every fixture again.",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)


@dataclass(frozen=True)
class Marked:
    """What a test's `backchannel` marker asks for."""

    path: Path
    upstream: str | None
    run: str | None
    speed: float
    allow_repeats: bool

    @classmethod
    def of(cls, request: pytest.FixtureRequest) -> Marked:
        marker = request.node.get_closest_marker("backchannel")
        if marker is None or not marker.args:
            raise pytest.UsageError(
                f"{request.node.nodeid} uses backchannel_server without @pytest.mark.backchannel('path.sqlite')"
            )
        path = Path(str(marker.args[0]))
        if not path.is_absolute():
            path = Path(str(request.node.path)).parent / path
        kw: dict[str, Any] = marker.kwargs
        return cls(
            path=path,
            upstream=kw.get("upstream"),
            run=kw.get("run"),
            speed=float(kw.get("speed", 0.0)),
            allow_repeats=bool(kw.get("allow_repeats", False)),
        )


@dataclass
class BackchannelReport:
    """The checks of what happened in this test: judge() closes the recording (once) and judges it."""

    recording: Path | None  # None: the replay was served directly, nothing was recorded
    closing: ExitStack = field(default_factory=ExitStack)
    _report: Any = None

    def close(self) -> None:
        self.closing.close()

    def judge(self) -> Any:
        """The oracle's report (backchannel.oracle.model.Report) of this test's recording."""
        if self._report is None:
            if self.recording is None:
                raise RuntimeError("nothing was recorded: request the backchannel_report fixture to record the replay")
            from backchannel.oracle import judge
            from backchannel.recordings import load

            self.close()
            self._report = judge(load(self.recording))
        return self._report

    def statuses(self) -> dict[str, str]:
        """check id -> status (the last result of a check, when it has several)."""
        return {result.id: result.status for result in self.judge().results}

    def failed(self) -> list[str]:
        """`check-id: message` for every FAIL, ERROR or CONFIRMED result."""
        bad = ("FAIL", "ERROR", "CONFIRMED")
        return [f"{r.id}: {r.message}" for r in self.judge().results if r.status in bad]

    def anomalies(self, kind_prefix: str = "") -> list[str]:
        """`kind: detail` of each anomaly in this test's recording (e.g. `replay-no-match`)."""
        from backchannel.recordings import load

        if self.recording is None:
            return []
        self.close()
        return [f"{a.kind}: {a.detail}" for a in load(self.recording).anomalies if a.kind.startswith(kind_prefix)]


@pytest.fixture
def backchannel_report(request: pytest.FixtureRequest) -> Iterator[BackchannelReport]:
    """The checks of this test's run; `backchannel_server` fills it."""
    report = BackchannelReport(recording=None)
    yield report
    report.close()


def _record_mode(request: pytest.FixtureRequest, marked: Marked) -> bool:
    mode = request.config.getoption("backchannel_record")
    return mode == "all" or (mode == "once" and not marked.path.exists())


@pytest.fixture
def backchannel_server(request: pytest.FixtureRequest) -> Iterator[str]:
    """The URL of a replay of the marker's recording, or of the proxy recording it from its upstream."""
    from backchannel.proxy.replay.session import ReplayError, choose_run, load_recording, serve

    marked = Marked.of(request)
    wants_report = "backchannel_report" in request.fixturenames
    report: BackchannelReport | None = request.getfixturevalue("backchannel_report") if wants_report else None
    if _record_mode(request, marked):
        yield from _recording(marked, report)
        return
    if not marked.path.exists():
        pytest.fail(f"{marked.path} does not exist: record it with --backchannel-record=once and upstream=URL")
    try:
        rec = load_recording(marked.path)
        run = choose_run(rec, marked.run)
    except ReplayError as exc:
        pytest.fail(str(exc))
    if report is None:
        with serve(rec, run, speed=marked.speed, allow_repeats=marked.allow_repeats, on_anomaly=None) as replay:
            yield replay.run_url(run.id)
        return
    # in the test's tmp_path: pytest keeps the last few runs' folders, so a failing test's recording can be read
    folder: Path = request.getfixturevalue("tmp_path")
    yield from _replay_recorded(rec, run.id, marked, report, folder / "backchannel-replay.sqlite")


def _replay_recorded(rec: Any, run_id: str, marked: Marked, report: BackchannelReport, out: Path) -> Iterator[str]:
    from backchannel.proxy.replay.through_proxy import proxied_replay
    from backchannel.recordings.errors import UserError

    report.recording = out
    try:
        proxied = report.closing.enter_context(
            proxied_replay(rec, report.recording, speed=marked.speed, allow_repeats=marked.allow_repeats)
        )
    except UserError as exc:  # the fixture names itself and the recording, never an internal traceback
        pytest.fail(f"backchannel_server: cannot replay {marked.path.name} through the proxy: {exc}", pytrace=False)
    handle = proxied.handles[run_id]
    proxied.attribute_url_hits(run_id)
    report.closing.callback(proxied.capture.end_run, handle, outcome="pytest")
    yield handle.url
    report.close()


def _promote(partial: Path, path: Path, started: list[bool]) -> None:
    if started:  # a capture that never started leaves the old fixture as it was
        os.replace(partial, path)


def _recording(marked: Marked, report: BackchannelReport | None) -> Iterator[str]:
    from backchannel.proxy.run.capture import Capture

    if not marked.upstream:
        pytest.fail(f"recording {marked.path.name} needs the marker's upstream=URL of a real MCP server")
    marked.path.parent.mkdir(parents=True, exist_ok=True)
    partial = marked.path.with_name(marked.path.name + ".partial")
    partial.unlink(missing_ok=True)
    closing = report.closing if report is not None else ExitStack()
    started: list[bool] = []
    # callbacks run last-in first-out: end the run, close the capture, and only then replace the fixture
    closing.callback(_promote, partial, marked.path, started)
    capture = closing.enter_context(Capture(partial, upstream=marked.upstream))
    started.append(True)
    run = capture.new_run("pytest", {})
    closing.callback(capture.end_run, run, outcome="pytest")
    if report is not None:
        report.recording = marked.path
    yield run.url
    closing.close()
