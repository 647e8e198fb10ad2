"""The mitmdump script (`mitmdump -s entry.py`): one addon that runs Router, Rewriter and Recorder in order."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from http.client import responses
from typing import Any

from mitmproxy import ctx, exceptions, http
from mitmproxy.net.http.http1 import assemble_response

from backchannel.addons import marks, stopping
from backchannel.addons.hold import HoldServer
from backchannel.addons.recorder import Recorder
from backchannel.addons.rewriter import Rewriter
from backchannel.addons.router import Router
from backchannel.addons.session import READY_MARKER, FlowState, Limits, Session
from backchannel.addons.transforms import UPSTREAM_TIMEOUT, proxy_error
from backchannel.addons.unread_body import streamed_unread
from backchannel.addons.upstream_timeout import answer_as_upstream, chunk, cut_off, last_upstream_bytes
from backchannel.recordings import redact
from backchannel.recordings.errors import RecordingError

DEFAULTS = Limits()


class Backchannel:
    """Order matters: the Router sees the client's request first, the Recorder sees everything last."""

    def __init__(self) -> None:
        self.session: Session | None = None
        self.holds = HoldServer()
        self.router: Router | None = None
        self.rewriter: Rewriter | None = None
        self.recorder: Recorder | None = None
        self._refused = False  # a path was refused: the rollback to "" that follows is not a second error
        self._stop_signal: tuple[str, bool] | None = None  # the first stop signal, and whether the parent asked

    def load(self, loader: Any) -> None:
        loader.add_option("backchannel_recording", str, "", "The SQLite recording to write into (must exist).")
        loader.add_option("backchannel_flow_state", bool, False, "Also store mitmproxy's flow state per exchange.")
        loader.add_option("backchannel_max_body", int, DEFAULTS.max_body, "Bytes of each body stored per exchange.")
        loader.add_option(
            "backchannel_max_sse_event", int, DEFAULTS.max_sse_event, "Bytes stored per SSE item and message text."
        )
        loader.add_option(  # text: mitmproxy's --set cannot parse a float option
            "backchannel_upstream_idle_timeout",
            str,
            f"{DEFAULTS.upstream_idle_timeout:g}",
            "Seconds an upstream may send nothing before the client gets a JSON-RPC error with HTTP 504 (0: never).",
        )
        loader.add_option("backchannel_redact", Sequence[str], [], "More secret-name patterns (--redact).")

    def configure(self, updated: set[str]) -> None:
        if "backchannel_recording" not in updated or self.session is not None:
            return
        path = ctx.options.backchannel_recording
        if not path:
            if self._refused:  # mitmproxy rolled the refused path back to "": the refusal already said why
                return
            raise exceptions.OptionsError("backchannel_recording is required: the recording to write into")  # type: ignore[no-untyped-call]
        try:
            policy = redact.Policy(ctx.options.backchannel_redact)
            self.session = Session(path, _limits(), policy)
        except (RecordingError, OSError, ValueError) as exc:
            self._refused = True
            raise exceptions.OptionsError(f"cannot open recording {path}: {exc}") from exc  # type: ignore[no-untyped-call]
        if "stream_large_bodies" in ctx.options and ctx.options.stream_large_bodies is None:  # not in bare hook tests
            # mitmproxy buffers a whole body before the hooks see it: past the bound it streams it instead, and the
            # proxy passes it on unread (unread_body.py) rather than hold whatever a peer sends
            ctx.options.update(stream_large_bodies=str(self.session.limits.max_held))  # type: ignore[no-untyped-call]
        self.recorder = Recorder(self.session, flow_state=ctx.options.backchannel_flow_state)
        self.router = Router(self.session, self.holds)
        self.rewriter = Rewriter(self.session, self.holds, self.recorder.sse_item)

    async def running(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):  # in place of mitmproxy's own, which only shut down
            loop.add_signal_handler(sig, self._signalled, sig.name)
        await self.holds.start()
        addrs = ctx.master.addons.get("proxyserver").listen_addrs()  # type: ignore[no-untyped-call]
        info = {"proxy_port": addrs[0][1] if addrs else None, "hold_port": self.holds.port, "pid": os.getpid()}
        # the launcher waits for this line on our stdout: readiness is an event, not a poll
        print(READY_MARKER, json.dumps(info), flush=True)

    def _signalled(self, name: str) -> None:
        if self._stop_signal is None:  # was it asked for? decided now: the parent may ask later, once we are gone
            self._stop_signal = (name, stopping.STOP_ASKED.is_set())
        ctx.master.shutdown()  # type: ignore[no-untyped-call]

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if self.router and self.recorder:
            self.router.requestheaders(flow)
            self.recorder.requestheaders(flow)

    def request(self, flow: http.HTTPFlow) -> None:
        if self.router and self.rewriter and self.recorder:
            self.router.request(flow)
            self._guarded(flow, "request", self.rewriter.request)
            self.recorder.request(flow)
            if flow.response is None and self.session is not None and self.session.limits.upstream_idle_timeout > 0:
                self._watch(flow, self.session.limits.upstream_idle_timeout)

    def _watch(self, flow: http.HTTPFlow, seconds: float) -> None:
        """Give the upstream `seconds` of silence at most until its response is complete (progress restarts it)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # driven outside mitmproxy's loop (hook tests): nothing to time
        state = self.session.flows.get(flow.id) if self.session is not None else None
        if state is not None:
            state.idle_since = time.monotonic()
            state.upstream_bytes_at = last_upstream_bytes(flow)
            state.idle_timer = loop.call_later(seconds, self._idle, flow, seconds)

    def _idle(self, flow: http.HTTPFlow, seconds: float) -> None:
        if flow.error is not None or not flow.live or self.session is None:
            return
        state = self.session.flows.get(flow.id)
        if state is None or state.idle_timer is None:
            return
        quiet = time.monotonic() - max(state.idle_since, state.upstream_bytes_at() if state.upstream_bytes_at else 0)
        if quiet < seconds:  # the upstream sent bytes meanwhile: wait for the rest of a full quiet spell
            state.idle_timer = asyncio.get_running_loop().call_later(seconds - quiet, self._idle, flow, seconds)
            return
        state.idle_timer = None
        if flow.response is None:
            detail = f"the upstream sent nothing for {seconds:g} s; the client got a JSON-RPC error (HTTP 504)"
        elif streamed_unread(flow.response):
            # part of a body too large to hold is the client's already, framed as the upstream framed it: nothing
            # can follow it but the end of the connection
            detail = (
                f"the upstream sent part of a response body too large to hold, then nothing for {seconds:g} s;"
                " the client's connection was closed"
            )
            self.session.anomaly(flow.id, state.run_id, "upstream-idle-timeout", detail, time.time())
            if not cut_off(flow, b""):
                flow.kill()  # type: ignore[no-untyped-call]
            return
        elif not flow.response.stream:
            detail = (
                f"the upstream sent its response head, then nothing for {seconds:g} s;"
                " the client got a JSON-RPC error (HTTP 504) instead"
            )
        elif _owes_response(state):
            detail = (
                f"the upstream's SSE stream sent nothing for {seconds:g} s before the response;"
                " the client got a JSON-RPC error event and the stream ended"
            )
        else:
            return  # a stream that owes nothing (a GET stream, or its response went by) may stay quiet
        self.session.anomaly(flow.id, state.run_id, "upstream-idle-timeout", detail, time.time())
        state.answered_by_proxy = "upstream-idle-timeout"
        status, body = proxy_error(state.request, UPSTREAM_TIMEOUT, f"backchannel: {detail}")
        if flow.response is None:
            if not answer_as_upstream(flow, status, body):
                flow.kill()  # type: ignore[no-untyped-call]  # not an HTTP/1 upstream: the flow ends, the anomaly says why
            return
        self._cut_mid_body(flow, state, status, body)

    def _cut_mid_body(self, flow: http.HTTPFlow, state: FlowState, status: int, body: bytes) -> None:
        """End a response the upstream stopped sending: the client gets the proxy's error as the rest of it, the
        recording gets the exchange as the client saw it (the upstream's part-body is not kept: mitmproxy holds it)."""
        assert flow.response is not None and self.rewriter is not None and self.recorder is not None
        response = flow.response
        if response.stream:
            event = self.rewriter.last_event(flow, state, body.decode(), "upstream-idle-timeout")
            chunked = "chunked" in response.headers.get("transfer-encoding", "").lower()
            last = chunk(event) if chunked else event
        else:
            state.upstream_response_body = b""
            response.status_code = status
            response.reason = responses.get(status, "")
            response.headers = http.Headers(content_type="application/json", connection="close")
            response.content = body  # sets Content-Length
            last = bytes(assemble_response(response))  # type: ignore[no-untyped-call]
        response.timestamp_end = time.time()
        if not cut_off(flow, last):
            flow.kill()  # type: ignore[no-untyped-call]  # not an HTTP/1 client: it sees the connection end
        self.recorder.response(flow)  # recorded now: mitmproxy's own error for the closed upstream finds no flow
        self._forget(flow)

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        state = self.session.flows.get(flow.id) if self.session is not None else None
        if state is not None and state.idle_timer is not None:
            state.idle_since = time.monotonic()  # the head arrived: the same timer now waits on the body
        if self.rewriter and self.recorder:
            self._guarded(flow, "response head", self.rewriter.responseheaders)
            self.recorder.responseheaders(flow)

    def response(self, flow: http.HTTPFlow) -> Awaitable[None] | None:
        # synchronous unless a hold applies: a coroutine per flow costs every exchange on the hot path
        self._unwatch(flow)  # the response is complete: a hold that follows is the proxy's own wait
        if not (self.rewriter and self.recorder):
            return None
        hold = self._guarded(flow, "response", self.rewriter.response) or 0.0
        if hold > 0:
            return self._held(flow, hold)
        self.recorder.response(flow)
        self._forget(flow)
        return None

    def _guarded[T](self, flow: http.HTTPFlow, where: str, step: Callable[[http.HTTPFlow], T]) -> T | None:
        """A Rewriter step whose failure is recorded, not fatal: the Recorder after it still writes the exchange
        (as it went: a rewrite that raised half way is what the client got), and the flow is still forgotten."""
        try:
            return step(flow)
        except Exception as exc:  # noqa: BLE001 - a hostile message must never cost the recording its exchange
            if self.session is not None:
                state = self.session.flows.get(flow.id)
                detail = f"the rewriter failed on the {where}: {type(exc).__name__}: {exc}"
                self.session.anomaly(flow.id, state.run_id if state else None, "rewriter-failed", detail, time.time())
            return None

    async def _held(self, flow: http.HTTPFlow, seconds: float) -> None:
        await asyncio.sleep(seconds)  # only this flow waits; mitmproxy serves the others meanwhile
        assert self.recorder is not None
        self.recorder.response(flow)
        self._forget(flow)

    def error(self, flow: http.HTTPFlow) -> None:
        if self.recorder:
            self.recorder.error(flow)
            self._forget(flow)

    def _unwatch(self, flow: http.HTTPFlow) -> None:
        state = self.session.flows.get(flow.id) if self.session is not None else None
        if state is not None and state.idle_timer is not None:
            state.idle_timer.cancel()  # the upstream answered: its flow is not kept alive for the timeout
            state.idle_timer = None

    def _forget(self, flow: http.HTTPFlow) -> None:
        self._unwatch(flow)
        if self.session is not None:
            state = self.session.flows.pop(flow.id, None)
            if state is not None and state.sink is not None:
                self.holds.withdraw(state.sink)  # a sink the flow never reached (it failed, or was answered here)
            if state is not None and state.applied:  # only a flow a mutation applied to: mitmweb shows how
                marks.mark(flow, state.applied)

    async def done(self) -> None:
        await self.holds.stop()
        if self.session is not None and self._stop_signal is not None:
            name, asked = self._stop_signal
            if stopping.stopped_from_outside(asked):  # the parent may not see us gone before its next run starts
                detail = f"mitmdump got {name} from outside backchannel while it served the capture"
                self.session.anomaly(None, None, "proxy-exit", detail, time.time())
        if self.session is not None:
            writer = self.session.writer
            # names and counts only, after every row
            writer.later(lambda: writer.set_meta(writer.redactor.summary("proxy")))
            try:
                writer.close()
            except RecordingError as exc:  # mitmdump's last words: its exit code stays mitmproxy's, the log says why
                print(f"backchannel: {exc}", file=sys.stderr, flush=True)


def _owes_response(state: FlowState) -> bool:
    """The flow carries a JSON-RPC request whose response has not reached the client yet."""
    request = state.request
    return isinstance(request, dict) and "id" in request and "method" in request and not state.saw_final_response


def _limits() -> Limits:
    """The limits the options give; a timeout that is not a number >= 0 is refused (ValueError)."""
    idle = float(ctx.options.backchannel_upstream_idle_timeout)
    if not idle >= 0 or idle == float("inf"):
        raise ValueError(f"backchannel_upstream_idle_timeout must be a number of seconds >= 0, not {idle}")
    return Limits(
        max_body=max(0, ctx.options.backchannel_max_body),
        max_sse_event=max(0, ctx.options.backchannel_max_sse_event),
        upstream_idle_timeout=idle,
    )


addons = [Backchannel()]
