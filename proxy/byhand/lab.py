"""A by-hand lab: one capture (endpoint + proxy) and the stable front, with the run requests go to right now.

The capture keeps runs apart exactly as for `check --client` (each its own `/r/<id>/` prefix, plan and rows); the
front's `/mcp` follows `current`, which only `advance` moves, so which run a request belongs to is decided here on
the server side, never by the host.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit

from backchannel.oracle.by_hand import BY_HAND_FACT
from backchannel.proxy.byhand.front import Front
from backchannel.proxy.byhand.plans import ByHandPlan, Step
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.run.capture import Capture, RunHandle
from backchannel.proxy.run.url_servers import UrlServer
from backchannel.recordings.model import Message
from backchannel.recordings.reader import messages_after
from backchannel.recordings.rows import AttestationRow, UrlHitRow
from backchannel.recordings.shapes import Fact, UrlServers


class _Hits:
    """Where the side servers' hits go: the recording's writer once the lab has one (hits before it are dropped: no
    host can know a URL before the lab has printed its own)."""

    def __init__(self) -> None:
        self.target: Callable[[UrlHitRow], None] | None = None

    def __call__(self, row: UrlHitRow) -> None:
        target = self.target
        if target is not None:
            target(row)


@dataclass(frozen=True)
class Seen:
    """What a wait for a tool call found in the run: whether the call came, and the methods that did."""

    called: bool
    methods: tuple[str, ...]


class ByHandLab:
    def __init__(self, plan: ByHandPlan, out: Path, *, port: int = 0) -> None:
        self.plan = plan
        self.out = out
        self.capture = self._capture(plan.endpoint)
        self.port = port
        self.front: Front | None = None
        self.run: RunHandle | None = None
        self._run_name: str | None = None
        self._hits = _Hits()
        self._servers: list[UrlServer] = []
        self._side_facts: dict[str, Fact] = {}

    def _capture(self, endpoint: EndpointConfig) -> Capture:
        return Capture(self.out, endpoint=endpoint, nonce=endpoint.nonce, scenario=self.plan.scenario)

    def _start_side_servers(self) -> None:
        """The plan's URL servers, before the endpoint: their URLs are its params (and every run's facts)."""
        if not self.plan.url_servers or self.plan.side_params is None:
            return
        self._servers = [UrlServer(name, self._hits) for name in self.plan.url_servers]
        params = self.plan.side_params({server.name: server.url("") for server in self._servers})
        self.capture = self._capture(replace(self.plan.endpoint, params=params))  # the endpoint with their URLs
        self._side_facts = {**params, **({"hold_ms": self.plan.hold_ms} if self.plan.hold_ms is not None else {})}

    def __enter__(self) -> ByHandLab:
        try:
            self._start_side_servers()
            self.capture.__enter__()
        except BaseException:
            self._stop_side_servers()
            raise
        try:
            if self._servers:
                self.capture.set_meta(UrlServers(ports={server.name: server.port for server in self._servers}))
                assert self.capture.writer is not None
                self._hits.target = self.capture.writer.insert
            assert self.capture.proxy is not None
            base = urlsplit(self.capture.proxy.base_url)
            self.advance(self.plan.steps[0])  # the host's first requests (initialize, tools/list) land in step 1's run
            self.front = Front(base.hostname or "127.0.0.1", base.port or 80, self._current_path, self.port)
            self.front.start()
        except BaseException as exc:
            try:
                self.capture.__exit__(type(exc), exc, exc.__traceback__)
            finally:
                self._stop_side_servers()
            raise
        return self

    def _stop_side_servers(self) -> None:
        for server in self._servers:
            server.stop()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        try:
            if self.front is not None:
                self.front.stop()
            if self.run is not None and exc is None:
                self.capture.end_run(self.run, outcome="ended")
        finally:
            try:
                self._hits.target = None  # a late hit after the recording closes is not kept
                self.capture.__exit__(kind, exc, tb)
            finally:
                self._stop_side_servers()

    @property
    def url(self) -> str:
        assert self.front is not None
        return self.front.url

    def _current_path(self) -> str:
        assert self.run is not None
        return urlsplit(self.run.url).path

    def advance(self, step: Step) -> RunHandle:
        """End the current run (if any) and make `step`'s run the one the stable URL forwards to from now on; a step
        of the run already current (a scenario whose one run calls several tools) goes on in it."""
        if self.run is not None and self._run_name == step.run and step.upstream is None:
            return self.run
        self._run_name = step.run
        if self.run is not None:
            self.capture.end_run(self.run, outcome="ended")
        upstream = None if step.upstream is None else self.capture.start_endpoint(step.upstream).url
        facts: dict[str, Fact] = {**self._side_facts, **step.facts, BY_HAND_FACT: True}
        scenario = self.plan.scenario
        self.run = self.capture.new_run(step.run, step.plan, scenario=scenario, facts=facts, upstream=upstream)
        for server in self._servers:  # its hits are the new run's from now on
            server.run_id = self.run.id
        return self.run

    def wait_for_call(self, tool: str, timeout: float) -> Seen:
        """Wait (bounded) until the current run's ledger holds a `tools/call` of `tool`; what came instead if not.

        Each poll reads only the messages recorded since the last one (a person may take minutes, and the recording
        grows with every run and screenshot: loading it whole 50 times a second did not scale)."""
        assert self.run is not None
        run_id = self.run.id
        sent: list[Message] = []  # the run's to-server messages so far, in order
        last = 0  # the sequence number read up to

        def called() -> bool:
            nonlocal last
            while batch := messages_after(self.capture.out, last):
                last = batch[-1].seq
                sent.extend(m for m in batch if m.run_id == run_id and m.direction == "to-server")
            return any(_calls(message, tool) for message in sent)

        found = self.capture.wait_for(called, timeout)
        return Seen(found, () if found else tuple(m.method or m.kind for m in sent))

    def attest(self, question_id: str, question: str, answer: str, screenshot: tuple[bytes, str] | None) -> None:
        """Keep a person's answer about the current run, timed here, on the proxy side."""
        assert self.run is not None and self.capture.writer is not None
        image, kind = screenshot if screenshot is not None else (None, None)
        self.capture.writer.insert(
            AttestationRow(
                run_id=self.run.id,
                question_id=question_id,
                question=question,
                answer=answer,
                who="person",
                t=time.time(),
                screenshot=image,
                screenshot_type=kind,
            )  # fmt: skip
        )
        self.capture.flush()


def _calls(message: Message, tool: str) -> bool:
    payload = message.payload
    if message.method != "tools/call" or not isinstance(payload, dict):
        return False
    params = payload.get("params")
    return isinstance(params, dict) and params.get("name") == tool


def seen_summary(seen: Seen, limit: int = 8) -> str:
    said: Sequence[str] = seen.methods[-limit:]
    return ", ".join(said) if said else "nothing at all (is the host configured with the URL, and connected?)"
