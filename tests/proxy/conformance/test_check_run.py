"""backchannel's side of the cross-check: a `check --format json` report read as one result per id. The live runs of
`backchannel check` against both drivers are in test_parity.py."""

from __future__ import annotations

import pytest

from backchannel.proxy.conformance.check_run import OurCheck, read_report, run_scenario

REPORT = {
    "summary": {"PASS": 1},
    "results": [
        {
            "id": "mrtr-provenance-result-type-default",
            "status": "PASS",
            "message": "treated as complete",
            "verdict": "REFUTED",
            "observations": ["rejects-missing-result-type-on-modern-connection"],
        },
        {"id": "sep-2322-client-no-state-omitted", "status": "SKIP", "message": "nothing", "reason": "not-exercised"},
        {"status": "PASS"},
        "not a result",
    ],
}


def test_each_result_keeps_its_status_verdict_skip_reason_and_observations_under_its_scenario():
    found = read_report(REPORT, "mrtr-provenance")
    assert found == {
        "mrtr-provenance-result-type-default": OurCheck(
            id="mrtr-provenance-result-type-default",
            status="PASS",
            scenario="mrtr-provenance",
            message="treated as complete",
            verdict="REFUTED",
            observations=("rejects-missing-result-type-on-modern-connection",),
        ),
        "sep-2322-client-no-state-omitted": OurCheck(
            id="sep-2322-client-no-state-omitted",
            status="SKIP",
            scenario="mrtr-provenance",
            message="nothing",
            reason="not-exercised",
        ),
    }


def test_a_check_that_prints_no_report_is_an_error_quoting_its_stderr():
    with pytest.raises(RuntimeError, match="printed no report"):
        run_scenario("no-such-scenario", ["/bin/true"], timeout_s=60)
