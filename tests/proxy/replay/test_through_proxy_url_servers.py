"""A replay re-opens the recorded URL servers' ports, so a client that fetches an elicitation's URL is caught as it
was when recorded; a port that cannot be opened is an anomaly."""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.proxy.replay.through_proxy import rerun
from backchannel.recordings import load
from backchannel.recordings.shapes import UrlServers

from .conftest import RECORDED_PORTS, REFERENCE, ROOT

pytestmark = RECORDED_PORTS

CONTRACT_CLIENT = [sys.executable, str(ROOT / "tests" / "clients" / "contract_client.py"), "{url}"]


def statuses_of(path: Path) -> list[tuple[str, str]]:
    return sorted((r.id, r.status) for r in judge(load(path)).results)


@pytest.mark.parametrize("variant, flags", [("correct", []), ("no-url-prefetch", ["--break", "no-url-prefetch"])])
def test_the_contract_client_rerun_against_a_replay_is_judged_as_recorded(variant, flags, tmp_path: Path):
    source = REFERENCE / f"elicitation-url-mode-contract-{variant}.sqlite"
    expected = json.loads(source.with_suffix(".expected.json").read_text(encoding="utf-8"))
    out = rerun(source, tmp_path / "again.sqlite", client=[*CONTRACT_CLIENT, *flags], timeout=60)
    assert statuses_of(out) == sorted((r["id"], r["status"]) for r in expected["results"])
    assert bool(load(out).url_hits) == bool(load(source).url_hits)


def test_a_taken_recorded_port_is_an_anomaly_and_the_rerun_goes_on(tmp_path: Path):
    source = REFERENCE / "elicitation-url-mode-contract-correct.sqlite"
    ports = UrlServers.read(load(source).meta)
    assert ports is not None
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", ports.ports["declined"]))
        squatter.listen(1)
        out = rerun(source, tmp_path / "again.sqlite", client=CONTRACT_CLIENT, timeout=60)
    kinds = [a.kind for a in load(out).anomalies]
    assert kinds.count("replay-url-server-unavailable") == 1
