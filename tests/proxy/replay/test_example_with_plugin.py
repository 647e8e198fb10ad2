"""The documented example (docs/replay.md): a client's regression test against a committed fixture, no network.

The Python SDK client runs against a replay of the elicitation-url-mode recording it once made; the replay is
recorded through the proxy, and the recording's checks judge what the client did this time.
"""

from __future__ import annotations

import subprocess

import pytest

from backchannel.proxy.clients.drivers.paths import py_driver

from .conftest import RECORDED_PORTS

pytestmark = RECORDED_PORTS

FIXTURE = "../../../recordings/reference/elicitation-url-mode-py-sdk.sqlite"


@pytest.mark.backchannel(FIXTURE)
def test_the_python_sdk_still_answers_every_url_mode_round(backchannel_server, backchannel_report):
    client = subprocess.run([*py_driver(), backchannel_server], capture_output=True, text=True, timeout=60)
    assert client.returncode == 0, client.stderr
    statuses = backchannel_report.statuses()
    assert statuses["sep-2322-client-request-state-echoed"] == "PASS"
    assert statuses["sep-1036-client-held-sse-retry-complete"] == "PASS"
    # the SDK's known bug (README, "What real clients do"): a stray url without a mode is read as URL mode
    assert backchannel_report.failed() == [
        "sep-1036-client-missing-mode-is-form: accepted with no content, as if it were URL mode: {'action': 'accept'}"
    ]
    assert backchannel_report.anomalies("replay-") == []
