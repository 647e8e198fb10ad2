"""sdk-regressions end to end: the toy agent's careful client through the real proxy breaks nothing, within a few
seconds, and the scenario refuses to run without a client."""

import sys
import time

import pytest

from backchannel.oracle import judge
from backchannel.proxy.scenarios.base import CheckError, CheckOptions
from backchannel.proxy.scenarios.registry import run_check
from backchannel.recordings import load

TOY = [sys.executable, "-m", "backchannel.proxy.clients.toy_agent", "regressions"]


@pytest.mark.live
def test_the_careful_toy_passes_every_regression_check_in_one_run_within_seconds(tmp_path):
    out = tmp_path / "regressions.sqlite"
    began = time.monotonic()
    run_check("sdk-regressions", CheckOptions(out=out, client=[*TOY, "{url}"]), lambda _: None)
    assert time.monotonic() - began < 15  # about 2 s on a quiet machine; the bound leaves room for a loaded one
    rec = load(out)
    assert [(run.name, run.exit_code) for run in rec.runs] == [("contract", 1)]  # two calls given up, on purpose
    statuses = {r.id: r.status for r in judge(rec).results}
    for check in (
        "elicitation-declined-content-not-reused",
        "mrtr-round-limit-tells-user",
        "elicitation-undeclared-mode-not-declined",
    ):
        assert statuses[check] == "PASS", check
    assert not [c for c, s in statuses.items() if s in ("FAIL", "WARN", "ERROR")]


def test_the_scenario_needs_a_client(tmp_path):
    with pytest.raises(CheckError, match="client"):
        run_check("sdk-regressions", CheckOptions(out=tmp_path / "x.sqlite"), lambda _: None)
