"""The toy agent's `sampling` command (toy_agent_sampling.py), the sampling scenario's client: the careful build and
one flaw per check, piped against the scenario's own endpoint in 2026-07-28 and 2025-11-25. What the server got back
is read from the endpoint's tools' own replies, printed by the agent."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from backchannel.oracle.scenarios.sampling import payloads
from backchannel.proxy.clients.toy_agent_sampling import ASK_SAMPLE, SAMPLING_FLAWS
from backchannel.proxy.endpoint.server import start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.scenarios.sampling.endpoint import TOOLS
from tests.proxy.clients.conftest import Lab

NONCE = "n0nce5"


@pytest.fixture(params=["2026-07-28", "2025-11-25"])
def server(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    config = EndpointConfig(tools=TOOLS, nonce=NONCE, era=request.param, server_name="sampling-lab")
    with start_endpoint(config) as running:
        yield running.url, request.param


def sampling(lab: Lab, url: str, answers: str, *flaws: str) -> subprocess.CompletedProcess[str]:
    pairs = [part for flaw in flaws for part in ("--sampling-flaw", flaw)]
    env = {**os.environ, "HOME": str(lab.home), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "backchannel.proxy.clients.toy_agent", "sampling", *pairs, url],
        cwd=lab.work, env=env, input=answers, capture_output=True, text=True, encoding="utf-8", timeout=30,
    )  # fmt: skip


def test_the_careful_build_names_the_server_asks_before_each_answer_and_refuses_undeclared_tools(lab, server):
    url, era = server
    done = sampling(lab, url, "y\n" * 8)
    out = done.stdout
    assert '[sampling request from MCP server "sampling-lab" at http://127.0.0.1:' in out
    assert out.count(ASK_SAMPLE) == (4 if era == "2026-07-28" else 2)  # 2025: plan_route refused unasked, no round
    assert "result: summarize_notes: sampled" in out and payloads.context_marker(NONCE) not in out.split("== gather")[1]
    if era == "2025-11-25":
        assert "refused a sampling request with tools" in out and "plan_route: the client refused" in out
    else:
        assert "check_everything: every request answered" in out


def test_a_denial_is_an_error_in_2025_and_an_abandoned_call_in_2026(lab, server):
    url, era = server
    out = sampling(lab, url, "n\n" * 8).stdout
    if era == "2025-11-25":
        assert "summarize_notes: the client refused the sampling request" in out
    else:
        assert "the call is abandoned: the user denied the sampling request" in out


@pytest.mark.parametrize("flaw", sorted(SAMPLING_FLAWS))
def test_each_flaw_does_what_its_check_looks_for(lab, server, flaw):
    url, era = server
    out = sampling(lab, url, "y\n" * 8, flaw).stdout
    if flaw == "auto-answer":
        assert ASK_SAMPLE not in out and "model answer sent" in out
    elif flaw == "no-server-name":
        assert "[sampling request — untrusted" in out and "sampling-lab" not in out.split("==", 1)[1]
    elif flaw == "answer-undeclared-tools":
        assert "refused a sampling request with tools" not in out
    elif flaw == "include-context":
        assert payloads.context_marker(NONCE) in out.split("== gather")[1].split("model answer sent: ")[1]
    elif era == "2026-07-28":  # split-round: a second round for what the first retry left out
        assert "check_everything: every request answered (in 3 rounds)" in out and out.count("[form request") == 1


def test_an_unknown_flaw_is_a_usage_error(lab):
    done = sampling(lab, "http://127.0.0.1:9/mcp", "", "no-such-flaw")
    assert done.returncode == 2 and "is not one of" in done.stderr
