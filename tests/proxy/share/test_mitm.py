"""The .mitm file is mitmproxy's own flow format: its reader gives back every flow's bodies and headers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mitmproxy import http, io

from backchannel.proxy.share.flows import MARK, client_flows
from backchannel.proxy.share.mitm import write_mitm
from backchannel.recordings import load

from .conftest import FLAWED, HELD_SSE


def test_mitmproxys_reader_gives_back_each_exchange_as_the_client_saw_it(tmp_path):
    for recording in (FLAWED, HELD_SSE):
        rec = load(recording)
        out = tmp_path / f"{recording.stem}.mitm"
        with open(out, "xb") as handle:
            write_mitm(client_flows(rec), handle)
        with open(out, "rb") as handle:
            read = list(io.FlowReader(handle).stream())
        assert len(read) == len(rec.exchanges)
        for exchange, made in zip(rec.exchanges, read, strict=True):
            assert isinstance(made, http.HTTPFlow) and made.response is not None
            assert made.request.raw_content == (exchange.request_body or b"")
            assert made.response.raw_content == (exchange.response_body or b"")
            assert list(made.request.headers.items(multi=True)) == list(exchange.request_headers)
            assert list(made.response.headers.items(multi=True)) == list(exchange.response_headers)
            assert made.response.status_code == exchange.status
            assert (made.marked == MARK) == bool(exchange.mutations)
            assert ("backchannel mutation" in made.comment) == bool(exchange.mutations)


def test_mitmdump_itself_opens_the_file_and_lists_every_flow(tmp_path):
    out = tmp_path / "flawed.mitm"
    with open(out, "xb") as handle:
        write_mitm(client_flows(load(FLAWED)), handle)
    mitmdump = Path(sys.executable).with_name("mitmdump")
    # -n: no proxy server; mitmdump reads the flows, prints one line per request and response, and exits
    shown = subprocess.run(
        [str(mitmdump), "-n", "-r", str(out), "--flow-detail", "1"], capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.count("127.0.0.1:0: POST ") == shown.stdout.count(" << ") == len(load(FLAWED).exchanges)
