"""A replay recorded through the proxy: the replay stands in for the original server (its upstream side), and a
new Capture re-applies each run's recorded plan in front of it, so the new recording holds what the old one did.

`rerun` is what `check --replay FILE` calls: every recorded run again, its client re-run (the recorded argv with the
run's URL swapped, or the client or target given), a planted witness request re-sent as the harness sent it.
"""

from __future__ import annotations

import http.client
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from backchannel.addons.session import Limits
from backchannel.oracle.judge import scenarios_of
from backchannel.proxy.replay.app import RunningReplay
from backchannel.proxy.replay.session import ReplayError, load_recording, serve
from backchannel.proxy.run.capture import Capture, CaptureError, RunHandle, contract_env, plan_problem
from backchannel.proxy.run.url_servers import UrlServer
from backchannel.proxy.scenarios.registry import side_of
from backchannel.recordings.meta import MetaValue
from backchannel.recordings.model import Recording, Run
from backchannel.recordings.redact import DEFAULT_POLICY, Policy
from backchannel.recordings.rows import AnomalyRow, FileRow
from backchannel.recordings.shapes import Discovery, Invocation, ProbeOptions, UrlServers

WITNESS_TIMEOUT_S = 10.0


@dataclass
class ProxiedReplay:
    capture: Capture
    replay: RunningReplay
    handles: dict[str, RunHandle] = field(default_factory=dict)  # recorded run id -> its run in the new recording
    url_servers: list[UrlServer] = field(default_factory=list)
    unappliable: list[str] = field(default_factory=list)  # one line for each run whose stored plan does not parse

    def attribute_url_hits(self, run_id: str) -> None:
        """Hits on the URL servers from now on belong to this (recorded) run's new run."""
        for server in self.url_servers:
            server.run_id = self.handles[run_id].id


@contextmanager
def proxied_replay(
    rec: Recording,
    out: Path,
    *,
    speed: float = 1.0,
    allow_repeats: bool = False,
    redaction: Policy = DEFAULT_POLICY,
    limits: Limits | None = None,
) -> Iterator[ProxiedReplay]:
    """Serve the upstream side of every run behind a new proxy recording into `out`: one new run per recorded run,
    in order, with its plan, scenario and facts, and the scenario's meta. The replay's anomalies go into `out`."""
    handles: dict[str, RunHandle] = {}
    capture_box: list[Capture] = []

    def note(run_id: str, kind: str, detail: str) -> None:
        handle = handles.get(run_id)
        if capture_box and capture_box[0].writer is not None:
            row = AnomalyRow(kind=kind, detail=detail, run_id=handle.id if handle else None, t=time.time())
            capture_box[0].writer.insert(row)

    served = [r for r in rec.runs if any(True for _ in rec.exchanges_in(r.id))]
    if not served:
        raise ReplayError(f"{rec.path} has no run with recorded exchanges: nothing to replay")
    replay = serve(rec, served[0], side="upstream", speed=speed, allow_repeats=allow_repeats, on_anomaly=note)
    try:
        with Capture(
            out,
            upstream=replay.url,
            nonce=rec.info.nonce,
            scenario=rec.info.scenario,
            meta=scenario_meta(rec),
            redaction=redaction,
            limits=limits,
        ) as capture:
            capture_box.append(capture)
            for run in rec.runs:  # every run, in order: a check may read a run no request reached
                handles[run.id] = capture.new_run(
                    run.name,
                    dict(run.plan),
                    scenario=run.scenario,
                    upstream=replay.run_url(run.id),
                    facts=run.detail.facts,
                    stored=True,  # a plan that no longer parses is refused run by run (invalid-plan), as in check
                )
            proxied = ProxiedReplay(capture, replay, handles, unappliable=unappliable_plans(rec))
            with ExitStack() as servers:
                for server in _url_servers(rec, capture):
                    servers.callback(server.stop)
                    proxied.url_servers.append(server)
                yield proxied
    except CaptureError as exc:
        raise ReplayError(str(exc)) from exc
    finally:
        replay.stop()


def unappliable_plans(rec: Recording) -> list[str]:
    """One line for each recorded run whose stored plan does not parse: the replay refuses its requests."""
    return [
        f"run {run.name} ({run.id}): its stored plan does not parse ({problem}); the replay answers each of its"
        " requests with an error and records invalid-plan"
        for run in rec.runs
        if (problem := plan_problem(run.plan)) is not None
    ]


def _url_servers(rec: Recording, capture: Capture) -> Iterator[UrlServer]:
    """Each recorded URL server again, on its recorded port; a port now taken is an anomaly, not a failure."""
    recorded = UrlServers.read(rec.meta)
    assert capture.writer is not None
    writer = capture.writer
    for name, port in sorted(recorded.ports.items()) if recorded else ():
        try:
            yield UrlServer(name, writer.insert, port=port)
        except OSError as exc:
            detail = f"URL server {name!r} cannot listen on its recorded port {port} ({exc}): its hits go unrecorded"
            writer.insert(AnomalyRow(kind="replay-url-server-unavailable", detail=detail, t=time.time()))


def scenario_meta(rec: Recording) -> list[MetaValue]:
    """What the recording says about its scenario (options, discovery, invocation, URL servers), carried over:
    the checks read it, and the replay did not change it."""
    found: list[MetaValue | None] = [kind.read(rec.meta) for kind in _SCENARIO_META]
    return [value for value in found if value is not None]


_SCENARIO_META = (ProbeOptions, Discovery, UrlServers, Invocation)


def client_template(run: Run) -> list[str] | None:
    """The run's recorded argv with its URL put back as `{url}`; None for a run no client made (planted)."""
    if run.client_argv is None:
        return None
    marker = f"/r/{run.id}/"
    return [part if marker not in part and part != run.detail.url else "{url}" for part in run.client_argv]


def _send_planted(rec: Recording, run: Run, url: str) -> None:
    """Re-send what the harness sent on a planted run (the ledger witness), byte for byte, to the new run's URL."""
    for exchange in sorted(rec.exchanges_in(run.id), key=lambda x: x.seq):
        headers = {k: v for k, v in exchange.request_headers if k.lower() not in ("host", "content-length")}
        request = urllib.request.Request(url, data=exchange.request_body or None, method=exchange.method or "POST")
        for key, value in headers.items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=WITNESS_TIMEOUT_S) as response:
                response.read()
        except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException):
            pass  # what came back (or did not) is in the new recording; the oracle judges it


def _copy_planted_files(capture: Capture, rec: Recording, run: Run, handle: RunHandle) -> None:
    """A run's files as recorded: a planted run's are the harness's own (the marker witness), not a client's."""
    assert capture.writer is not None
    for found in (f for f in rec.files if f.run_id == run.id):
        row = FileRow(run_id=handle.id, path=found.path, size=found.size, data=found.data, truncated=found.truncated)
        capture.writer.insert(row)


def _copy_ended_run(capture: Capture, rec: Recording, run: Run, handle: RunHandle) -> None:
    """A run that never reached the server, as it was recorded: its output, its files and how it ended."""
    for chunk in sorted(rec.terminal, key=lambda c: (c.stream, c.offset)):
        if chunk.run_id == run.id:
            capture.record_output(handle.id, chunk.stream, chunk.data)
    _copy_planted_files(capture, rec, run, handle)
    capture.end_run(handle, exit_code=run.exit_code, outcome=run.outcome or "ended", note=run.detail.note or "")


@dataclass(frozen=True)
class Invocations:
    """How `rerun` invokes each recorded client run again: as recorded, with a new `client` (an argv with
    `{url}`), or with a new `target` in place of the recorded one (`check --target`), help probes included."""

    client: Sequence[str] | None = None
    target: Sequence[str] | None = None
    recorded_target: Sequence[str] | None = None

    def argv(self, run: Run) -> list[str] | None:
        """The argv to run; None to carry the run over as recorded. A recording is a stranger's file: its own command
        lines are never run, only the caller's `client`, or the caller's `target` with the recorded arguments after
        the recorded target (a run that did not start with the recorded target is carried over)."""
        template = client_template(run) or []
        old = list(self.recorded_target or ())
        if self.target is not None:
            return [*self.target, *template[len(old) :]] if old and template[: len(old)] == old else None
        if self.client is not None:
            return list(self.client) if "{url}" in template else None
        return None


def refuse_server_scenario(rec: Recording, file: Path) -> None:
    """A recording of a server scenario has no client to re-run: it is judged, or its server side served."""
    servers = [name for name in scenarios_of(rec) if side_of(name) == "server"]
    if servers:
        raise ReplayError(
            f"{file} records the server scenario {servers[0]}: there is no client to re-run; re-judge it with"
            f" `backchannel judge {file}`, or serve the server's recorded answers with `backchannel replay {file}`"
        )


def rerun(
    file: Path,
    out: Path,
    *,
    client: Sequence[str] | None = None,
    target: Sequence[str] | None = None,
    timeout: float = 30.0,
    speed: float = 0.0,
    stdin: bytes | None = None,
    allow_repeats: bool = True,
    redaction: Policy = DEFAULT_POLICY,
    limits: Limits | None = None,
    note: Callable[[str], None] = lambda _line: None,
) -> Path:
    """Re-run a recorded scenario against a replay of its server side, into a new recording at `out`.

    Every recorded run is run again, in order: a client run with the argv `Invocations` gives (`client`, an argv
    with `{url}`; or `target` in place of the recorded target; never the recorded argv itself), or, for a planted
    run, the harness's requests re-sent. With only `client`, a run whose argv never named its URL (a
    discovery help probe) is carried over as recorded. `stdin` defaults to the recorded `--stdin`. Recorded waits
    are scaled by `speed` (0: none); a reply may be served again (`allow_repeats`), as a live server would answer a
    repeated call. A run whose stored plan no longer parses is run too, its requests refused (`invalid-plan`),
    and `note` gets one line for it. Returns `out`, ready for `judge`.

    Raises:
        ReplayError: the file is unreadable, holds nothing to replay, or the capture could not start.
    """
    if client is None and target is None:
        raise ReplayError(
            "give --client or --target: the client to run against the replay (a recording's own command lines are"
            " never run: it may come from anyone)"
        )
    rec = load_recording(file)
    refuse_server_scenario(rec, file)
    options = ProbeOptions.read(rec.meta)
    invocations = Invocations(client, target, options.target if options else None)
    if stdin is None and options is not None and options.stdin is not None:
        stdin = options.stdin.encode("utf-8")
    with proxied_replay(
        rec, out, speed=speed, allow_repeats=allow_repeats, redaction=redaction, limits=limits
    ) as proxied:
        for line in proxied.unappliable:  # said once, up front; the new recording keeps each as invalid-plan
            note(line)
        for run in rec.runs:
            handle = proxied.handles[run.id]
            proxied.attribute_url_hits(run.id)
            if run.client_argv is None:
                _send_planted(rec, run, handle.url)
                _copy_planted_files(proxied.capture, rec, run, handle)
                if run.detail.planted_id is not None:
                    proxied.capture.note_run(handle, planted_id=run.detail.planted_id)
                proxied.capture.end_run(handle, outcome=run.outcome or "planted")
                continue
            argv = invocations.argv(run)
            if argv is None:
                _copy_ended_run(proxied.capture, rec, run, handle)
            else:
                env = contract_env(run.detail.facts)  # a driver contract's variables (the conformance scenario's)
                proxied.capture.run_client(handle, argv, timeout=timeout, stdin=stdin, env=env)
    return out
