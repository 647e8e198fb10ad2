"""The running endpoint's watchers: told after each tools/list it answers, in either era, and for nothing else."""

from __future__ import annotations

import threading

import httpx

from backchannel.proxy.endpoint.server import start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.scenarios.registry import all_scenarios
from tests.proxy.endpoint.test_app import call_tool, initialize, post_modern, rpc

WAIT = 5.0  # seconds a watcher's call is awaited at most


class Watcher:
    """Counts its calls (from the serving thread) and lets the test await a count, bounded."""

    def __init__(self) -> None:
        self.threads: list[str] = []
        self._changed = threading.Condition()

    def __call__(self) -> None:
        with self._changed:
            self.threads.append(threading.current_thread().name)
            self._changed.notify_all()

    def reaches(self, count: int) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: len(self.threads) >= count, WAIT)


def _config() -> EndpointConfig:
    return EndpointConfig(tools=all_scenarios()["default"].tools)


def test_a_watcher_is_called_after_a_tools_list_in_a_2026_request_and_in_a_legacy_2025_session():
    watcher = Watcher()
    with start_endpoint(_config()) as running, httpx.Client(timeout=5) as http:
        running.on_listed(watcher)
        modern = post_modern(http, running.url, "tools/list")
        assert modern.status_code == 200 and modern.json()["result"]["tools"]
        assert watcher.reaches(1)
        session = {"mcp-session-id": initialize(http, running.url), "mcp-protocol-version": "2025-11-25"}
        legacy = http.post(running.url, json=rpc("tools/list"), headers=session)
        assert legacy.status_code == 200 and legacy.json()["result"]["tools"]
        assert watcher.reaches(2)
    assert len(watcher.threads) == 2
    assert threading.current_thread().name not in watcher.threads  # called by the endpoint, not the test


def test_every_watcher_is_called_and_none_for_other_methods():
    first, second = Watcher(), Watcher()
    with start_endpoint(_config()) as running, httpx.Client(timeout=5) as http:
        running.on_listed(first)
        running.on_listed(second)
        assert post_modern(http, running.url, "server/discover").status_code == 200
        assert call_tool(http, running.url, "get_repo_status", {"repo": "x"}).status_code == 200
        session = {"mcp-session-id": initialize(http, running.url), "mcp-protocol-version": "2025-11-25"}
        assert http.post(running.url, json=rpc("ping"), headers=session).status_code == 200
        body = rpc("tools/call", {"name": "get_repo_status", "arguments": {"repo": "x"}})
        assert http.post(running.url, json=body, headers=session).status_code == 200
        assert http.post(running.url, json=rpc("tools/list"), headers=session).status_code == 200
        assert first.reaches(1) and second.reaches(1)
    # stopped: every request's handling is over, so a call for another method would have been counted
    assert (len(first.threads), len(second.threads)) == (1, 1)
