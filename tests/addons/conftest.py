"""Shared rig for the in-process hook tests: a real recording, the addons built in one place, flows made by tflow.

Router, Rewriter and Recorder are not registered with mitmproxy on their own: Backchannel (entry.py) calls them in
a fixed order, so the Rig calls their hooks in that same order (test_entry_hooks.py proves Backchannel keeps it),
and Backchannel itself is driven through mitmproxy's own addon manager (taddons). Nothing here opens a socket
except the HoldServer tests, which bind 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import json
import secrets
import shutil
import tempfile
import warnings
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mitmproxy import flow as mflow
from mitmproxy import http
from mitmproxy.test import tflow, tutils

from backchannel.addons.entry import Backchannel
from backchannel.addons.hold import HoldServer
from backchannel.addons.recorder import Recorder
from backchannel.addons.rewriter import Rewriter
from backchannel.addons.router import Router
from backchannel.addons.session import Session
from backchannel.recordings import Recording, load, store
from backchannel.recordings.meta import RecordingInfo
from backchannel.recordings.rows import RunRow
from backchannel.recordings.shapes import RunDetail

with warnings.catch_warnings():
    # mitmproxy.addons imports ldap3 (for proxyauth), which touches names pyasn1 0.6.2+ deprecates; with
    # filterwarnings=error that import would fail. Imported once here, quietly, every test file gets the cached module.
    warnings.simplefilter("ignore", DeprecationWarning)
    from mitmproxy.test import taddons  # noqa: F401

# where mitmdump's reverse mode points every flow before the Router looks at it (a port nothing listens on)
REVERSE_TARGET = ("127.0.0.1", 9)
# each run's own upstream; nothing is dialled in these tests, the Rig plays the upstream's part
UPSTREAM = "http://127.0.0.1:8123/mcp"
MODERN = "2026-07-28"
WAIT_S = 5.0  # the bound on anything asynchronous here

CALL: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {
        "name": "get_repo_status",
        "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        },
    },
}
RESULT: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {"content": [{"type": "text", "text": "repo demo: clean"}], "resultType": "complete"},
}
CALLS = {"method": "tools/call", "name": "get_repo_status"}
FORM_REQUEST = {
    "confirm": {
        "method": "elicitation/create",
        "params": {"mode": "form", "message": "Confirm?", "requestedSchema": {"type": "object", "properties": {}}},
    }
}


def wire(value: Any) -> bytes:
    """Compact JSON bytes, as SDKs put them on the wire."""
    return json.dumps(value, separators=(",", ":")).encode()


def run_bounded[T](coroutine: Coroutine[Any, Any, T], timeout: float = WAIT_S) -> T:
    """Run one coroutine on a fresh event loop under a hard deadline."""

    async def bounded() -> T:
        async with asyncio.timeout(timeout):
            return await coroutine

    return asyncio.run(bounded())


# ---------------------------------------------------------------------------------------------- the one factory
# The only place the addons' constructors are called: when a constructor changes, fix it here and nowhere else.


@dataclass
class Addons:
    session: Session
    holds: HoldServer
    router: Router
    rewriter: Rewriter
    recorder: Recorder


def build_addons(recording: Path, *, flow_state: bool = False) -> Addons:
    """The three addons over one Session, wired as Backchannel.configure wires them (the HoldServer not started)."""
    session = Session(str(recording))
    holds = HoldServer()
    recorder = Recorder(session, flow_state=flow_state)
    return Addons(session, holds, Router(session, holds), Rewriter(session, holds, recorder.sse_item), recorder)


def build_backchannel() -> Backchannel:
    """The mitmdump script's addon, unconfigured: it opens its recording from the backchannel_recording option."""
    return Backchannel()


# ---------------------------------------------------------------------------------------------- recordings


@functools.cache
def _empty_recording() -> Path:
    """A new, empty recording as `store.create` makes it, made once per process and copied for each rig: every rig
    starts from the same file (fixed nonce and tool version), and creating one is about 75 ms of migrations and
    fsyncs, a sixth of the offline suite's time when each of the 150-odd rigs made its own."""
    folder = Path(tempfile.mkdtemp(prefix="backchannel-empty-recording-"))
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "empty.sqlite"
    store.create(path, RecordingInfo(nonce="test-nonce", tool_version="test"))
    return path


class Runs:
    """The orchestrator's side of a recording: creates it and registers runs with their plans, as Capture does."""

    def __init__(self, path: Path) -> None:
        self.path = path
        shutil.copyfile(_empty_recording(), path)  # what store.create makes, made once per process (below)
        self.writer = store.RecordingWriter(path)
        self._ordinal = 0

    def add(self, plan: dict[str, Any] | None = None, *, upstream: str = UPSTREAM) -> str:
        """Register a run and commit it before any flow can reach its URL; returns the run id.

        The plan is stored as given (Capture validates it first; these tests pass only valid plans and do not import
        the plan parser, so they hold while the mutation internals move).
        """
        run_id = secrets.token_hex(6)
        self._ordinal += 1
        name, detail = f"run{self._ordinal}", RunDetail(url=f"/r/{run_id}/mcp")
        self.writer.insert(
            RunRow(id=run_id, ordinal=self._ordinal, name=name, upstream=upstream, plan=plan or {}, detail=detail)
        )
        self.writer.flush()
        return run_id

    def close(self) -> None:
        self.writer.close()


@pytest.fixture
def runs(tmp_path: Path) -> Iterator[Runs]:
    made = Runs(tmp_path / "recording.sqlite")
    try:
        yield made
    finally:
        made.close()


# ---------------------------------------------------------------------------------------------- flows


def client_flow(
    path: str, body: bytes, *, method: str = "POST", headers: dict[str, str] | None = None
) -> http.HTTPFlow:
    """A flow as it reaches the addons in reverse mode: addressed to the reverse target, path as the client sent it."""
    fields = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    fields.update(headers or {})
    if body:
        fields["content-length"] = str(len(body))
    request = tutils.treq(
        host=REVERSE_TARGET[0],
        port=REVERSE_TARGET[1],
        method=method.encode(),
        path=path.encode(),
        headers=http.Headers([(k.encode(), v.encode()) for k, v in fields.items()]),
        content=body,
    )
    return tflow.tflow(req=request)


def upstream_response(
    body: bytes | None, *, content_type: str = "application/json", status: int = 200, streamed: bool = False
) -> http.Response:
    """What the upstream answered; a streamed response carries headers only (its bytes go through the stream)."""
    fields = [(b"content-type", content_type.encode())]
    if not streamed and body is not None:
        fields.append((b"content-length", str(len(body)).encode()))
    return tutils.tresp(status_code=status, headers=http.Headers(fields), content=None if streamed else body)


class Rig:
    """Drives flows through Router, Rewriter and Recorder hook by hook, in Backchannel's order."""

    def __init__(self, runs: Runs, addons: Addons) -> None:
        self.runs = runs
        self.addons = addons
        self.session = addons.session

    def flow(self, run_id: str | None, body: bytes, **kwargs: Any) -> http.HTTPFlow:
        return client_flow(f"/r/{run_id}/mcp" if run_id else "/mcp", body, **kwargs)

    def send(self, flow: http.HTTPFlow) -> None:
        """The client's request: requestheaders, then request (Router → Rewriter → Recorder)."""
        self.addons.router.requestheaders(flow)
        self.addons.router.request(flow)
        self.addons.rewriter.request(flow)
        self.addons.recorder.request(flow)

    def reply(self, flow: http.HTTPFlow, response: http.Response) -> float:
        """The upstream's answer, unless the proxy already answered; returns the Rewriter's hold in seconds.

        A response the proxy made in the request hook skips responseheaders, as in mitmproxy. The Recorder's
        response hook runs at once here (Backchannel delays it by the hold).
        """
        if flow.response is None:
            flow.response = response
            self.addons.rewriter.responseheaders(flow)
            self.addons.recorder.responseheaders(flow)
        return self.addons.rewriter.response(flow)

    def finish(self, flow: http.HTTPFlow) -> None:
        self.addons.recorder.response(flow)
        self.session.flows.pop(flow.id, None)

    def exchange(self, run_id: str | None, message: Any, answer: Any = None, **kwargs: Any) -> http.HTTPFlow:
        """One whole JSON exchange; `answer` (a JSON value, or bytes taken as they are) is the upstream's body."""
        flow = self.flow(run_id, message if isinstance(message, bytes) else wire(message), **kwargs)
        self.send(flow)
        body = answer if isinstance(answer, bytes) or answer is None else wire(answer)
        self.reply(flow, upstream_response(body))
        self.finish(flow)
        return flow

    def stream(self, flow: http.HTTPFlow, *chunks: bytes) -> bytes:
        """Feed upstream SSE chunks through the flow's stream callable, then end of stream; the client's bytes."""
        assert flow.response is not None and callable(flow.response.stream), "the response is not being streamed"
        out = b"".join(b"".join(flow.response.stream(chunk)) for chunk in chunks)
        return out + b"".join(flow.response.stream(b""))

    def fail(self, flow: http.HTTPFlow, message: str) -> None:
        """mitmproxy's error hook, as when a connection drops."""
        flow.error = mflow.Error(message)
        self.addons.recorder.error(flow)
        self.session.flows.pop(flow.id, None)

    def recording(self) -> Recording:
        """Everything written so far, committed and read back the way the oracle reads it."""
        self.session.writer.flush(WAIT_S)
        return load(self.runs.path)


@pytest.fixture
def rig(runs: Runs) -> Iterator[Rig]:
    addons = build_addons(runs.path)
    try:
        yield Rig(runs, addons)
    finally:
        addons.session.writer.close()


@pytest.fixture
def rig_with_flow_state(runs: Runs) -> Iterator[Rig]:
    addons = build_addons(runs.path, flow_state=True)
    try:
        yield Rig(runs, addons)
    finally:
        addons.session.writer.close()


@pytest.fixture
def backchannel() -> Backchannel:
    return build_backchannel()
