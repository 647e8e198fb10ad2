"""The official Python SDK client (`mcp` 2.x) calls tools on the scripted endpoint in every connect mode."""

from __future__ import annotations

import asyncio

import pytest
from mcp import Client
from mcp_types import TextContent

from backchannel.proxy.endpoint.server import RunningEndpoint

REPO_TEXT = "repo x: branch main, clean, 0 ahead / 0 behind"
TIMEOUT_S = 15


async def _call(url: str, mode: str, name: str, arguments: dict[str, object]) -> tuple[str, str, list[float]]:
    """The negotiated version, the first text block and the progress values seen, for one tool call."""
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async with asyncio.timeout(TIMEOUT_S):
        async with Client(url, mode=mode) as client:
            result = await client.call_tool(name, arguments, progress_callback=on_progress)
            block = result.content[0]
            assert isinstance(block, TextContent)
            assert result.is_error is False
            return client.protocol_version, block.text, seen


@pytest.mark.parametrize(
    ("mode", "negotiated"),
    [("auto", "2026-07-28"), ("legacy", "2025-11-25"), ("2026-07-28", "2026-07-28")],
)
def test_sdk_client_gets_repo_status_in_each_mode(endpoint: RunningEndpoint, mode: str, negotiated: str) -> None:
    version, text, _ = asyncio.run(_call(endpoint.url, mode, "get_repo_status", {"repo": "x"}))
    assert (version, text) == (negotiated, REPO_TEXT)


def test_sdk_client_in_auto_mode_falls_back_to_initialize_on_a_legacy_only_endpoint(
    legacy_only_endpoint: RunningEndpoint,
) -> None:
    version, text, _ = asyncio.run(_call(legacy_only_endpoint.url, "auto", "get_repo_status", {"repo": "x"}))
    assert (version, text) == ("2025-11-25", REPO_TEXT)


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
def test_sdk_client_reads_an_sse_hold_with_keepalives_and_progress(testbed: RunningEndpoint, mode: str) -> None:
    arguments: dict[str, object] = {"ms": 350, "transport": "sse", "keepalive_ms": 100}
    _, text, progress = asyncio.run(_call(testbed.url, mode, "hold", arguments))
    assert text == "held 350 ms"
    assert progress == [1, 2, 3]
