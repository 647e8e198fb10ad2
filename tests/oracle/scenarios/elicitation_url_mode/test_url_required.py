"""url_required.py: the -32042 a 2025-11-25 run got, the URL it named, and why there is none elsewhere."""

from backchannel.oracle.model import Finding
from backchannel.oracle.scenarios.elicitation_url_mode.facts import contract_run
from backchannel.oracle.scenarios.elicitation_url_mode.url_required import (
    REQUIRED_PATH,
    exercised_required,
    required_error,
    required_urls,
)
from tests.oracle.reference import contract, legacy_contract, recording


def test_a_2025_11_25_run_has_one_minus_32042_naming_one_url_on_the_declined_server():
    rec = recording(legacy_contract("correct"))
    run = contract_run(rec)
    assert run is not None
    error = required_error(rec, run)
    assert error is not None and error.payload["error"]["code"] == -32042
    [url] = required_urls(error)
    assert url.endswith(REQUIRED_PATH)
    found = exercised_required(rec)
    assert not isinstance(found, Finding) and found[1].seq == error.seq


def test_there_is_none_to_judge_in_2026_or_2025_06_18_and_the_skip_says_which():
    for name, reason in (
        (contract("correct"), "removed-in-2026"),
        (legacy_contract("correct-2025-06-18"), "no-url-mode"),
        (contract("form-only"), "mode-not-declared"),
    ):
        found = exercised_required(recording(name))
        assert isinstance(found, Finding) and (found.status, found.reason) == ("SKIP", reason), name
