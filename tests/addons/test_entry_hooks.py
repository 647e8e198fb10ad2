"""Backchannel, the mitmdump script's addon, driven in process through mitmproxy's own addon manager (taddons).

Every hook goes through `master.addons.invoke_addon`, so a hook method that mitmproxy would not call by that name
fails here; the response hook is also called directly where its return value is the behaviour under test.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from mitmproxy import exceptions, hooks, http
from mitmproxy import flow as mflow
from mitmproxy.proxy.layers.http import (
    HttpErrorHook,
    HttpRequestHeadersHook,
    HttpRequestHook,
    HttpResponseHeadersHook,
    HttpResponseHook,
)
from mitmproxy.test import taddons

from backchannel.addons.entry import READY_MARKER, Backchannel
from backchannel.recordings import Recording, load
from tests.addons.conftest import (
    CALL,
    CALLS,
    FORM_REQUEST,
    RESULT,
    Runs,
    client_flow,
    run_bounded,
    upstream_response,
    wire,
)


class ProxyserverStandIn:
    """What `running` asks of mitmproxy's proxyserver addon: the addresses it listens on (none bound in process)."""

    name = "proxyserver"

    def listen_addrs(self) -> list[tuple[str, int]]:
        return [("127.0.0.1", 8080)]


async def request(tctx: taddons.context, addon: Backchannel, flow: http.HTTPFlow) -> None:
    await tctx.master.addons.invoke_addon(addon, HttpRequestHeadersHook(flow))
    await tctx.master.addons.invoke_addon(addon, HttpRequestHook(flow))


async def respond(tctx: taddons.context, addon: Backchannel, flow: http.HTTPFlow, answer: http.Response) -> None:
    """The upstream's answer (unless the proxy already gave one), then the response hook, awaited as mitmproxy does."""
    if flow.response is None:
        flow.response = answer
        await tctx.master.addons.invoke_addon(addon, HttpResponseHeadersHook(flow))
    await tctx.master.addons.invoke_addon(addon, HttpResponseHook(flow))


async def exchange(tctx: taddons.context, addon: Backchannel, run_id: str, message: Any, answer: Any) -> http.HTTPFlow:
    flow = client_flow(f"/r/{run_id}/mcp", wire(message))
    await request(tctx, addon, flow)
    await respond(tctx, addon, flow, upstream_response(wire(answer)))
    return flow


async def done(tctx: taddons.context, addon: Backchannel, runs: Runs) -> Recording:
    """The done hook: the hold server stops and the writer commits; then the recording as the oracle reads it."""
    await tctx.master.addons.invoke_addon(addon, hooks.DoneHook())
    return load(runs.path)


def test_loading_adds_the_recording_and_flow_state_options(backchannel: Backchannel):
    with taddons.context(backchannel) as tctx:
        assert tctx.options.backchannel_recording == ""
        assert tctx.options.backchannel_flow_state is False


def test_configuring_without_a_recording_is_an_options_error(backchannel: Backchannel):
    with taddons.context(backchannel) as tctx:
        with pytest.raises(exceptions.OptionsError, match="backchannel_recording is required"):
            tctx.configure(backchannel, backchannel_recording="")


def test_configuring_a_recording_that_does_not_exist_is_an_options_error(backchannel: Backchannel, tmp_path: Path):
    missing = tmp_path / "missing.sqlite"
    with taddons.context(backchannel) as tctx:
        with pytest.raises(exceptions.OptionsError) as raised:
            tctx.configure(backchannel, backchannel_recording=str(missing))
    # mitmproxy rolls the option back to "" and configures again; that rollback is not a second, misleading error
    assert str(raised.value).startswith(f"cannot open recording {missing}: {missing}: no such recording")
    assert not missing.exists(), "refusing a missing recording must not create it"
    assert backchannel.session is None


def test_configuring_a_file_that_is_not_a_recording_is_an_options_error(backchannel: Backchannel, tmp_path: Path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all, " * 64)
    with taddons.context(backchannel) as tctx:
        with pytest.raises(exceptions.OptionsError, match="cannot open recording"):
            tctx.configure(backchannel, backchannel_recording=str(junk))


def test_the_hooks_run_router_then_rewriter_then_recorder(backchannel: Backchannel, runs: Runs):
    """Observable order: each addon's effect is visible to the next one in line."""
    inject = {"kind": "inject-input-requests", "match": CALLS, "times": 1, "inputRequests": FORM_REQUEST}
    run_id = runs.add({"mutations": [inject]}, upstream="http://127.0.0.1:8123/mcp")

    async def scenario() -> tuple[http.HTTPFlow, Recording]:
        with taddons.context(backchannel) as tctx:
            tctx.configure(backchannel, backchannel_recording=str(runs.path))
            first = await exchange(tctx, backchannel, run_id, CALL, RESULT)
            assert first.response is not None
            state = first.response.json()["result"]["requestState"]
            retry = {**CALL, "id": 2, "params": {**CALL["params"], "inputResponses": {}, "requestState": state}}
            second = await exchange(tctx, backchannel, run_id, retry, {**RESULT, "id": 2})
            return second, await done(tctx, backchannel, runs)

    second, recording = run_bounded(scenario())
    # Router before Rewriter: the Rewriter read the run's plan and the client's bytes the Router took
    assert (second.request.path, second.request.port) == ("/mcp", 8123)
    assert second.request.content == wire({**CALL, "id": 2})
    to_server = [m for m in recording.messages if m.direction == "to-server"]
    to_client = [m for m in recording.messages if m.direction == "to-client"]
    # Rewriter before Recorder on the request: the recorded request knows what went upstream instead
    assert [m.mutation for m in to_server] == [None, "answer-input-required"]
    assert to_server[1].upstream_payload == {**CALL, "id": 2}
    # Rewriter before Recorder on the response: the recorded answer is the rewritten one, beside the upstream's
    assert to_client[0].mutation == "inject-input-requests" and to_client[0].upstream_payload == RESULT
    assert to_client[0].payload["result"]["resultType"] == "input_required"
    assert [x.run_id for x in recording.exchanges] == [run_id, run_id]


def test_responseheaders_lets_the_rewriter_stream_before_the_recorder_writes_the_row(
    backchannel: Backchannel, runs: Runs
):
    run_id = runs.add()

    async def scenario() -> Recording:
        with taddons.context(backchannel) as tctx:
            tctx.configure(backchannel, backchannel_recording=str(runs.path))
            flow = client_flow(f"/r/{run_id}/mcp", wire(CALL))
            await request(tctx, backchannel, flow)
            flow.response = upstream_response(None, content_type="text/event-stream", streamed=True)
            await tctx.master.addons.invoke_addon(backchannel, HttpResponseHeadersHook(flow))
            assert callable(flow.response.stream)
            flow.response.stream(b"data: " + wire(RESULT) + b"\n\n")
            flow.response.stream(b"")
            await tctx.master.addons.invoke_addon(backchannel, HttpResponseHook(flow))
            return await done(tctx, backchannel, runs)

    recording = run_bounded(scenario())
    [exchange_row] = recording.exchanges
    assert exchange_row.streamed and exchange_row.status == 200
    assert [m.payload for m in recording.messages if m.direction == "to-client"] == [RESULT]


def test_the_response_hook_returns_none_unless_a_hold_applies(backchannel: Backchannel, runs: Runs):
    plain = runs.add()
    held = runs.add({"mutations": [{"kind": "hold", "match": CALLS, "ms": 20}]})

    async def scenario() -> tuple[list[Any], list[Any], Recording]:
        with taddons.context(backchannel) as tctx:
            tctx.configure(backchannel, backchannel_recording=str(runs.path))
            returned, written_before_await = [], []
            for run_id in (plain, held):
                flow = client_flow(f"/r/{run_id}/mcp", wire(CALL))
                await request(tctx, backchannel, flow)
                flow.response = upstream_response(wire(RESULT))
                await tctx.master.addons.invoke_addon(backchannel, HttpResponseHeadersHook(flow))
                result = backchannel.response(flow)
                returned.append(result)
                if result is not None:
                    assert backchannel.session is not None
                    backchannel.session.writer.flush()
                    written_before_await.append(len(load(runs.path).exchanges))
                    await result
            return returned, written_before_await, await done(tctx, backchannel, runs)

    returned, written_before_await, recording = run_bounded(scenario())
    assert returned[0] is None
    assert returned[1] is not None, "a held response hands mitmproxy an awaitable"
    assert written_before_await == [1], "the held exchange is not recorded until its hold is over"
    assert [x.run_id for x in recording.exchanges] == [plain, held]
    assert [[m["kind"] for m in x.mutations] for x in recording.exchanges] == [[], ["hold"]]


def test_an_unconfigured_backchannel_passes_flows_through_untouched(backchannel: Backchannel):
    flow = client_flow("/r/abc/mcp", wire(CALL))
    with taddons.context(backchannel) as tctx:
        tctx.master.addons.invoke_addon_sync(backchannel, HttpRequestHeadersHook(flow))
        tctx.master.addons.invoke_addon_sync(backchannel, HttpRequestHook(flow))
        flow.response = upstream_response(wire(RESULT))
        assert backchannel.response(flow) is None
    assert flow.request.path == "/r/abc/mcp" and flow.response.content == wire(RESULT)


def test_the_error_hook_records_a_client_disconnect(backchannel: Backchannel, runs: Runs):
    run_id = runs.add()

    async def scenario() -> Recording:
        with taddons.context(backchannel) as tctx:
            tctx.configure(backchannel, backchannel_recording=str(runs.path))
            flow = client_flow(f"/r/{run_id}/mcp", wire(CALL))
            await request(tctx, backchannel, flow)
            flow.error = mflow.Error("Client disconnected.")
            await tctx.master.addons.invoke_addon(backchannel, HttpErrorHook(flow))
            return await done(tctx, backchannel, runs)

    recording = run_bounded(scenario())
    [exchange_row] = recording.exchanges
    assert exchange_row.error == "Client disconnected."
    assert [(a.kind, a.run_id) for a in recording.anomalies] == [("client-disconnected", run_id)]


def test_running_starts_the_hold_server_and_announces_readiness_and_done_stops_it(
    backchannel: Backchannel, runs: Runs, capsys: pytest.CaptureFixture[str]
):
    async def scenario() -> dict[str, Any]:
        with taddons.context(ProxyserverStandIn(), backchannel) as tctx:
            tctx.configure(backchannel, backchannel_recording=str(runs.path))
            await tctx.master.addons.invoke_addon(backchannel, hooks.RunningHook())
            line = capsys.readouterr().out.strip()
            assert line.startswith(READY_MARKER + " ")
            info: dict[str, Any] = json.loads(line[len(READY_MARKER) + 1 :])
            _, writer = await asyncio.open_connection("127.0.0.1", info["hold_port"])
            writer.close()
            await done(tctx, backchannel, runs)
            try:
                await asyncio.open_connection("127.0.0.1", info["hold_port"])
            except ConnectionRefusedError:
                info["refused_after_done"] = True
            return info

    info = run_bounded(scenario())
    assert info["pid"] == os.getpid() and info["proxy_port"] == 8080
    assert info["hold_port"] > 0 and info.get("refused_after_done")


def test_a_rewriter_step_that_raises_is_an_anomaly_and_the_exchange_is_still_recorded(
    backchannel: Backchannel, runs: Runs, monkeypatch: pytest.MonkeyPatch
):
    run_id = runs.add({"mutations": []}, upstream="http://127.0.0.1:8123/mcp")

    def broken(self: Any, flow: http.HTTPFlow) -> None:
        raise TypeError("a hostile message the rewriter did not expect")

    async def scenario() -> Recording:
        with taddons.context(backchannel) as tctx:
            tctx.configure(backchannel, backchannel_recording=str(runs.path))
            assert backchannel.rewriter is not None
            monkeypatch.setattr(type(backchannel.rewriter), "request", broken)
            monkeypatch.setattr(type(backchannel.rewriter), "response", broken)
            await exchange(tctx, backchannel, run_id, CALL, RESULT)
            assert backchannel.session is not None and not backchannel.session.flows  # forgotten all the same
            backchannel.session.writer.flush()
            return load(runs.path)

    rec = run_bounded(scenario())
    assert len(rec.exchanges) == 1 and rec.exchanges[0].status == 200
    assert [m.direction for m in rec.messages] == ["to-server", "to-client"]
    details = [a.detail for a in rec.anomalies if a.kind == "rewriter-failed"]
    assert details == [
        "the rewriter failed on the request: TypeError: a hostile message the rewriter did not expect",
        "the rewriter failed on the response: TypeError: a hostile message the rewriter did not expect",
    ]
