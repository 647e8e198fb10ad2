"""`record --ui web`: a session rule the client breaks is marked on its flow in mitmweb, with the rule's line added
to the flow's comment, while the terminal view names it."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

from backchannel.proxy.run.web_marks import WebMarks
from tests.proxy.run.test_web_ui import Session, session  # noqa: F401  (the fixture: a live `record --ui web`)

DEADLINE_S = 30.0


def send_without_capabilities(url: str) -> None:
    """A 2026-07-28 request with no clientCapabilities in its _meta: sep-2575-client-populates-meta breaks."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}  # fmt: skip
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})  # fmt: skip
    try:
        urllib.request.urlopen(request, timeout=10).read()
    except urllib.error.HTTPError as refused:  # the endpoint refuses it; it is recorded all the same
        refused.read()


def test_a_broken_rule_marks_its_flow_and_comments_it_in_mitmweb(session: Session):  # noqa: F811
    send_without_capabilities(session.client_url)
    ui = WebMarks(session.web_url)
    deadline = time.monotonic() + DEADLINE_S
    marked: list[dict[str, object]] = []
    while time.monotonic() < deadline and not marked:  # bounded: the live view looks about once a second
        marked = [flow for flow in ui._flows() if "sep-2575-client-populates-meta" in str(flow.get("comment"))]
        if not marked:
            time.sleep(0.5)  # polling mitmweb's API: it has no event to await from outside
    assert marked, "no flow was marked in time"
    (flow,) = marked
    assert flow["marked"] in ("\N{CROSS MARK}", ":x:")  # a FAIL's marker (mitmweb gives it back as the emoji)
    assert "rule FAIL: sep-2575-client-populates-meta (client, MUST) at #" in str(flow["comment"])


def test_an_unreachable_ui_is_said_once_and_marks_nothing():
    ui = WebMarks("http://127.0.0.1:9/?token=nothing-listens-here")
    assert ui.mark(("f1",), "FAIL", "rule FAIL: x") is False
    assert ui.failed is not None and "Error" in ui.failed
