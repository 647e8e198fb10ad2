"""Flows as a `.mitm` file, written by mitmproxy's own FlowWriter: it opens in mitmweb and mitmproxy (`-r FILE`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import BinaryIO

from mitmproxy import http, io


def write_mitm(flows: Sequence[http.HTTPFlow], handle: BinaryIO) -> None:
    writer = io.FlowWriter(handle)  # type: ignore[no-untyped-call]  # mitmproxy leaves it unannotated
    for made in flows:
        writer.add(made)
