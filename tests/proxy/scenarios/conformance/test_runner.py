"""conformance end to end: the toy agent's contract client through the real proxy, one run per suite scenario, its
environment the suite's, judged; and --suite-scenario staging only some runs."""

import sys
import time

import pytest

from backchannel.oracle import judge
from backchannel.proxy.scenarios.base import CheckError, CheckOptions
from backchannel.proxy.scenarios.conformance.runner import chosen
from backchannel.proxy.scenarios.registry import run_check
from backchannel.recordings import load

TOY = [sys.executable, "-m", "backchannel.proxy.clients.toy_agent", "conformance", "{url}"]


@pytest.mark.live
def test_the_toy_client_passes_every_run_each_named_after_its_suite_scenario_in_a_few_seconds(tmp_path):
    out = tmp_path / "conformance.sqlite"
    began = time.monotonic()
    run_check("conformance", CheckOptions(out=out, client=TOY), lambda _: None)
    took = time.monotonic() - began
    rec = load(out)
    assert [r.name for r in rec.runs] == list(chosen("all")) and all(r.exit_code == 0 for r in rec.runs)
    assert all(r.detail.facts["suite_scenario"] == r.name for r in rec.runs)
    assert "MCP_CONFORMANCE_SCENARIO" in str(rec.runs[0].detail.facts["lab_env"])
    assert str(rec.runs[-1].detail.facts["canary_url"]).endswith("/canary/profile-schema.json")
    statuses = {r.id: r.status for r in judge(rec).results if r.scenario == "conformance"}
    assert set(statuses.values()) == {"PASS"}, statuses
    assert took < 15, f"the whole scenario took {took:.1f} s"  # ~4 s on 2 cores; bounded loosely for a busy machine


@pytest.mark.live
def test_suite_scenario_stages_only_the_runs_it_names(tmp_path):
    out = tmp_path / "one.sqlite"
    settings = {"suite_scenario": "request-metadata"}
    run_check("conformance", CheckOptions(out=out, client=TOY, settings=settings), lambda _: None)
    assert [r.name for r in load(out).runs] == ["request-metadata"]


def test_an_unknown_suite_scenario_is_a_usage_error_naming_the_choices():
    assert chosen("http-custom-headers, request-metadata") == ("request-metadata", "http-custom-headers")
    with pytest.raises(CheckError, match="not one of all, sep-2322-client-request-state"):
        chosen("tools_call")
