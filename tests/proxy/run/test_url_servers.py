"""A URL server records every hit with its run and answers one page; one on a port a recording names never takes a
privileged port."""

from __future__ import annotations

import http.client

import pytest

from backchannel.proxy.run.url_servers import PAGE, UrlServer
from backchannel.recordings.rows import UrlHitRow


def test_every_hit_is_recorded_with_the_current_run_and_answered_with_the_page():
    hits: list[UrlHitRow] = []
    server = UrlServer("declined", hits.append)
    try:
        server.run_id = "r1"
        for method in ("GET", "HEAD"):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            conn.request(method, "/declined?x=1", headers={"X-Probe": "yes"})
            response = conn.getresponse()
            body = response.read()
            conn.close()
            assert response.status == 200 and body == (PAGE if method == "GET" else b"")
    finally:
        server.stop()
    assert server.url("/p") == f"http://127.0.0.1:{server.port}/p"
    assert [(h.run_id, h.server, h.method, h.path) for h in hits] == [
        ("r1", "declined", "GET", "/declined?x=1"),
        ("r1", "declined", "HEAD", "/declined?x=1"),
    ]
    assert ("X-Probe", "yes") in hits[0].headers


def test_a_privileged_port_is_never_tried():
    with pytest.raises(OSError, match="outside 1024-65535"):
        UrlServer("declined", lambda row: None, port=22)
