"""The names and versions in a report come from the recording: meta, clientInfo, serverInfo, the client command."""

from __future__ import annotations

import json

from backchannel.oracle.parties import LONGEST
from backchannel.proxy.share.versions import Party, client_invocation, versions
from backchannel.recordings import load
from tests.factories import new_recording

from .conftest import FLAWED, HELD_SSE, HOSTILE, REFERENCE


def test_client_and_server_come_from_the_discover_and_initialize_messages():
    rec = load(REFERENCE / "mrtr-provenance-fastmcp.sqlite")
    found = versions(rec)
    assert found.clients == (Party("fastmcp", "4.2.3"),)
    assert [p.name for p in found.servers] == [f"backchannel-probe-{rec.info.nonce}"]  # the probe's own name
    assert found.tool == "backchannel 0.1.0" and found.mitmproxy == "12.3.1"
    assert set(found.protocol_versions) == {"2026-07-28", "2025-11-25"}


def test_the_client_invocation_is_the_recorded_one_else_a_runs_command_with_its_url_put_back():
    assert client_invocation(load(FLAWED)) == json.loads(load(FLAWED).meta["invocation"])
    held = client_invocation(load(HELD_SSE))
    assert held is not None and "{url}" in held and held[-2:] == ["--break", "held-sse"]


def test_a_hostile_client_name_is_kept_as_data(hostile):
    found = versions(load(hostile))
    assert found.clients == (Party(HOSTILE, "<i>1</i>"),)
    assert client_invocation(load(hostile)) == ["evil-client", "--x", "{url}", "$(touch pwned)"]


def test_a_very_long_name_is_cut_visibly(tmp_path):
    text = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"clientInfo":{"name":"%s","version":"1"}}}'
    path = new_recording(
        tmp_path / "long.sqlite",
        messages=[{"direction": "to-server", "kind": "request", "method": "initialize", "text": text % ("n" * 5000)}],
    )
    assert versions(load(path)).clients == (Party("n" * LONGEST + "…", "1"),)
