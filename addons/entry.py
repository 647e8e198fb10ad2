"""The mitmdump script (`mitmdump -s entry.py`): one addon that runs Router, Rewriter and Recorder in order."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable
from typing import Any

from mitmproxy import ctx, exceptions, http

from backchannel.addons.hold import HoldServer
from backchannel.addons.recorder import Recorder
from backchannel.addons.rewriter import Rewriter
from backchannel.addons.router import Router
from backchannel.addons.session import Session
from backchannel.recordings.errors import RecordingError

READY_MARKER = "BACKCHANNEL-READY"


class Backchannel:
    """Order matters: the Router sees the client's request first, the Recorder sees everything last."""

    def __init__(self) -> None:
        self.session: Session | None = None
        self.holds = HoldServer()
        self.router: Router | None = None
        self.rewriter: Rewriter | None = None
        self.recorder: Recorder | None = None
        self._refused = False  # a path was refused: the rollback to "" that follows is not a second error

    def load(self, loader: Any) -> None:
        loader.add_option("backchannel_recording", str, "", "The SQLite recording to write into (must exist).")
        loader.add_option("backchannel_flow_state", bool, False, "Also store mitmproxy's flow state per exchange.")

    def configure(self, updated: set[str]) -> None:
        if "backchannel_recording" not in updated or self.session is not None:
            return
        path = ctx.options.backchannel_recording
        if not path:
            if self._refused:  # mitmproxy rolled the refused path back to "": the refusal already said why
                return
            raise exceptions.OptionsError("backchannel_recording is required: the recording to write into")  # type: ignore[no-untyped-call]
        try:
            self.session = Session(path)
        except (RecordingError, OSError) as exc:
            self._refused = True
            raise exceptions.OptionsError(f"cannot open recording {path}: {exc}") from exc  # type: ignore[no-untyped-call]
        self.recorder = Recorder(self.session, flow_state=ctx.options.backchannel_flow_state)
        self.router = Router(self.session)
        self.rewriter = Rewriter(self.session, self.holds, self.recorder.sse_item)

    async def running(self) -> None:
        await self.holds.start()
        addrs = ctx.master.addons.get("proxyserver").listen_addrs()  # type: ignore[no-untyped-call]
        info = {"proxy_port": addrs[0][1] if addrs else None, "hold_port": self.holds.port, "pid": os.getpid()}
        # the launcher waits for this line on our stdout: readiness is an event, not a poll
        print(READY_MARKER, json.dumps(info), flush=True)

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if self.router:
            self.router.requestheaders(flow)

    def request(self, flow: http.HTTPFlow) -> None:
        if self.router and self.rewriter and self.recorder:
            self.router.request(flow)
            self.rewriter.request(flow)
            self.recorder.request(flow)

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        if self.rewriter and self.recorder:
            self.rewriter.responseheaders(flow)
            self.recorder.responseheaders(flow)

    def response(self, flow: http.HTTPFlow) -> Awaitable[None] | None:
        # synchronous unless a hold applies: a coroutine per flow costs every exchange on the hot path
        if not (self.rewriter and self.recorder):
            return None
        hold = self.rewriter.response(flow)
        if hold > 0:
            return self._held(flow, hold)
        self.recorder.response(flow)
        self._forget(flow)
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

    def _forget(self, flow: http.HTTPFlow) -> None:
        if self.session is not None:
            self.session.flows.pop(flow.id, None)

    async def done(self) -> None:
        await self.holds.stop()
        if self.session is not None:
            self.session.writer.close()


addons = [Backchannel()]
