"""roots end to end: the toy agent through the real proxy in a 2025 era, its contract run and the dedicated
undeclared run, each with the lab's folders as run facts and its answers on the GET stream recorded and paired."""

import sys

import pytest

from backchannel.oracle import judge
from backchannel.oracle.scenarios.roots.facts import answers, configured
from backchannel.proxy.scenarios.base import CheckError, CheckOptions
from backchannel.proxy.scenarios.registry import run_check
from backchannel.recordings import load

pytestmark = pytest.mark.live
TOY = [sys.executable, "-m", "backchannel.proxy.clients.toy_agent", "roots"]


def test_two_runs_each_in_its_own_lab_and_the_get_stream_answers_paired(tmp_path):
    out = tmp_path / "roots.sqlite"
    run_check("roots", CheckOptions(out=out, client=[*TOY, "{url}"], era="2025-11-25"), lambda _: None)
    rec = load(out)
    assert [(run.name, run.exit_code) for run in rec.runs] == [("contract", 0), ("undeclared", 0)]
    for run in rec.runs:
        folders, home = configured(run)
        assert folders and home == run.lab_home
    found = answers(rec)
    assert {a.via for a in found} == {"the GET stream", "the call's stream"}
    assert all(a.answer is not None and a.roots for a in found)
    statuses = {r.id: r.status for r in judge(rec).results}
    assert [statuses[c] for c in ("roots-file-uri", "roots-within-configured", "roots-list-changed-notified")] == [
        "PASS"
    ] * 3
    assert not [c for c, s in statuses.items() if s in ("FAIL", "WARN", "ERROR")]


def test_the_scenario_needs_a_client(tmp_path):
    with pytest.raises(CheckError, match="needs --client"):
        run_check("roots", CheckOptions(out=tmp_path / "x.sqlite"), lambda _: None)
