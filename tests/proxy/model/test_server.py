"""The stand-in serves on loopback only, answers at the base URL it returns, and stops bounded and repeatably."""

from __future__ import annotations

import httpx
import pytest

from backchannel.proxy.model.server import ModelStandIn
from backchannel.recordings.rows import ModelExchangeRow
from tests.proxy.model.conftest import RUN, SCRIPT


def test_start_returns_a_loopback_base_url_that_answers_and_stop_can_be_called_twice():
    rows: list[ModelExchangeRow] = []
    stand_in = ModelStandIn(SCRIPT, rows.append, run_id=RUN)
    url = stand_in.start()
    try:
        assert url.startswith("http://127.0.0.1:") and stand_in.start() == url
        assert httpx.get(f"{url}/v1/models", timeout=10).status_code == 200
    finally:
        stand_in.stop()
    stand_in.stop()
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{url}/v1/models", timeout=2)
    assert [(row.run_id, row.api, row.path) for row in rows] == [(RUN, "openai-responses", "/v1/models")]


def test_a_host_that_is_not_loopback_is_refused():
    with pytest.raises(ValueError, match="loopback"):
        ModelStandIn(SCRIPT, lambda row: None, run_id=RUN, host="0.0.0.0").start()
