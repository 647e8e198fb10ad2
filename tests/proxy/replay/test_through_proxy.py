"""Replay recorded through the proxy: the same SDK client re-run against a replay of its reference recording (no
network, no original server) is judged to the same statuses; a request the replay cannot match is an anomaly."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import httpx
import pytest

from backchannel.oracle import judge
from backchannel.proxy.replay.session import ReplayError, load_recording
from backchannel.proxy.replay.through_proxy import Invocations, client_template, proxied_replay, rerun
from backchannel.recordings import load
from backchannel.recordings.shapes import ProbeOptions

from .clients import SDK_REFERENCES, client_argv
from .conftest import CALL, RECORDED_PORTS, REFERENCE, RUN

pytestmark = RECORDED_PORTS


def statuses(report: dict[str, object] | object) -> list[tuple[str, str]]:
    results = report["results"] if isinstance(report, dict) else report.results  # type: ignore[attr-defined]
    return sorted((r["id"], r["status"]) if isinstance(r, dict) else (r.id, r.status) for r in results)


@pytest.mark.parametrize("name", sorted(SDK_REFERENCES))
def test_the_client_rerun_against_a_replay_of_its_reference_is_judged_to_the_same_statuses(name, tmp_path: Path):
    source = REFERENCE / f"{name}.sqlite"
    expected = json.loads(source.with_suffix(".expected.json").read_text(encoding="utf-8"))
    out = rerun(source, tmp_path / "again.sqlite", client=client_argv(SDK_REFERENCES[name]), timeout=60)
    again = load(out)
    assert statuses(judge(again)) == statuses(expected)
    assert [r.name for r in again.runs] == [r.name for r in load(source).runs]
    assert not [a for a in again.anomalies if a.kind.startswith("replay-")]


def test_a_request_the_replay_cannot_match_is_recorded_as_an_anomaly_of_its_run(small_recording, tmp_path: Path):
    rec = load_recording(small_recording)
    out = tmp_path / "stray.sqlite"
    with proxied_replay(rec, out, speed=0) as proxied:
        url = proxied.handles[RUN].url
        stray = json.loads(CALL)
        stray["params"]["name"] = "other"
        response = httpx.post(url, json=stray, timeout=10)
        assert "differing in: params.name" in response.json()["error"]["message"]
        proxied.capture.end_run(proxied.handles[RUN])
    again = load(out)
    (anomaly,) = [a for a in again.anomalies if a.kind == "replay-no-match"]
    assert anomaly.run_id == proxied.handles[RUN].id
    assert "closest is recorded exchange #1" in anomaly.detail


def test_the_recorded_argv_gets_its_url_back_as_a_placeholder():
    rec = load(REFERENCE / "mrtr-provenance-py-sdk.sqlite")
    control = next(r for r in rec.runs if r.name == "control")
    assert client_template(control) == ["/tmp/venv/bin/python", "-m", "backchannel.proxy.drivers.py_sdk", "{url}"]
    assert client_template(next(r for r in rec.runs if r.name == "witness-ledger")) is None


TOY = [sys.executable, "-m", "backchannel.proxy.clients.toy_agent"]


# the fixed build's rerun (the same reference, the same client) is test_check_replay.py's first test, through
# `check --replay`, which calls rerun() and asserts its statuses and verdicts: one rerun of it is enough
@pytest.mark.parametrize("build, flags", [("toy-flawed", [])])
def test_a_discovered_cli_rerun_against_a_replay_is_judged_as_recorded_confirmed_or_refuted(build, flags, tmp_path):
    source = REFERENCE / f"mrtr-provenance-{build}.sqlite"
    expected = json.loads(source.with_suffix(".expected.json").read_text(encoding="utf-8"))
    client = [*TOY, *flags, "mcp", "call", "{url}", "get_repo_status"]
    out = rerun(source, tmp_path / "again.sqlite", client=client, timeout=60)
    again = judge(load(out))
    assert statuses(again) == statuses(expected)
    verdicts = sorted((r.id, r.verdict) for r in again.results)
    assert verdicts == sorted((r["id"], r.get("verdict")) for r in expected["results"])


def test_a_new_target_replaces_the_recorded_one_in_every_run_help_probes_included(tmp_path):
    source = REFERENCE / "mrtr-provenance-toy-flawed.sqlite"
    expected = json.loads(source.with_suffix(".expected.json").read_text(encoding="utf-8"))
    out = rerun(source, tmp_path / "again.sqlite", target=TOY, timeout=60)
    again = load(out)
    assert statuses(judge(again)) == statuses(expected)
    help_runs = [r for r in again.runs if r.name == "discovery-help"]
    assert help_runs and all(r.client_argv and list(r.client_argv[:3]) == TOY for r in help_runs)


def test_invocations_swap_the_client_or_the_target_and_carry_help_probes_over_with_a_client_only():
    rec = load(REFERENCE / "mrtr-provenance-toy-flawed.sqlite")
    options = ProbeOptions.read(rec.meta)
    assert options is not None and options.target is not None
    help_probe = next(r for r in rec.runs if r.name == "discovery-help")
    control = next(r for r in rec.runs if r.name == "control")
    with_client = Invocations(client=["c", "{url}"], recorded_target=options.target)
    assert with_client.argv(help_probe) is None
    assert with_client.argv(control) == ["c", "{url}"]
    with_target = Invocations(target=["t"], recorded_target=options.target)
    assert with_target.argv(help_probe) == ["t", "--help"]
    assert with_target.argv(control) == ["t", "mcp", "call", "{url}", "get_repo_status"]
    assert Invocations().argv(control) is None  # the recording's own command line is never run


def test_a_recordings_own_command_line_is_never_run_without_a_client_or_target_from_the_caller(tmp_path):
    evil = tmp_path / "evil.sqlite"
    evil.write_bytes((REFERENCE / "mrtr-provenance-toy-flawed.sqlite").read_bytes())
    proof = tmp_path / "PWNED"
    with sqlite3.connect(evil) as conn:  # what a stranger's file may hold
        conn.execute("UPDATE runs SET client_argv = ?", (json.dumps(["/bin/sh", "-c", f"touch {proof}", "{url}"]),))
    with pytest.raises(ReplayError, match="--client or --target"):
        rerun(evil, tmp_path / "again.sqlite", timeout=10)
    assert not proof.exists() and not (tmp_path / "again.sqlite").exists()
