"""The Python SDK driver's `--sampling-reply TEXT`: a host whose model is a fixed stand-in. With it the driver
declares sampling and answers every sampling request, shown fenced and attributed, in 2026-07-28 and in 2025-11-25;
without it the driver declares none and the server asks for none."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from backchannel.oracle.scenarios.sampling import payloads
from backchannel.proxy.clients.drivers.paths import py_driver
from backchannel.proxy.endpoint.server import start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig
from backchannel.proxy.scenarios.sampling.endpoint import TOOLS

NONCE = "s4mple"
REPLY = "the stand-in's line"


@pytest.fixture(params=["2026-07-28", "2025-11-25"])
def url(request: pytest.FixtureRequest) -> Iterator[str]:
    config = EndpointConfig(tools=TOOLS, nonce=NONCE, era=request.param, server_name="sampling-lab")
    with start_endpoint(config) as running:
        yield running.url


def drive(argv: list[str], url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [*argv, url, "--tool", payloads.SUMMARY_TOOL, *extra]
    return subprocess.run(command, capture_output=True, text=True, encoding="utf-8", timeout=60)


def assert_samples_with_the_stand_in(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr
    assert "[input request from MCP server sampling-lab (http://127.0.0.1:" in done.stdout
    assert "sampling mode — untrusted text follows]\n  | user: Summarize the team's release notes" in done.stdout
    assert payloads.sample_tag(NONCE) in done.stdout
    assert f"[answered: the stand-in model's reply, {len(REPLY)} characters]" in done.stdout
    assert "summarize_notes: sampled" in done.stdout


def assert_declares_no_sampling_by_default(done: subprocess.CompletedProcess[str]) -> None:
    assert "sampling mode" not in done.stdout
    assert "summarize_notes needs the sampling client capability" in done.stdout + done.stderr


def test_with_a_stand_in_model_it_declares_sampling_and_answers_after_showing_the_request(url):
    assert_samples_with_the_stand_in(drive(py_driver(), url, "--sampling-reply", REPLY))


def test_without_the_flag_it_declares_no_sampling(url):
    assert_declares_no_sampling_by_default(drive(py_driver(), url))
