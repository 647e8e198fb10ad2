"""The same clients reached another way judge the same: through the stdio bridge (the Python and TypeScript SDKs'
stdio clients), and under a real terminal answered with --answer (fastmcp, the interactive toy agent). Each pair
is committed under recordings/reference/ (scripts/make-reference-recordings); this compares them."""

import pytest

from backchannel.oracle.terminal import raw_bytes
from tests.oracle.reference import recording, results


def verdicts(name):
    return {check: (r.status, r.verdict) for check, r in results(name).items()}


@pytest.mark.parametrize(
    "http",
    ["mrtr-provenance-py-sdk", "mrtr-provenance-ts-sdk", "elicitation-url-mode-py-sdk", "elicitation-url-mode-ts-sdk"],
)
def test_an_sdk_stdio_client_through_the_bridge_judges_like_its_http_run(http):
    assert verdicts(f"{http}-stdio") == verdicts(http)


@pytest.mark.parametrize("http", ["mrtr-provenance-py-sdk", "elicitation-url-mode-ts-sdk"])
def test_every_exchange_of_a_stdio_run_says_the_bridge_made_its_transport_headers(http):
    from backchannel.oracle.bridge import bridge_made_headers

    rec = recording(f"{http}-stdio")
    client_runs = {run.id for run in rec.runs if run.client_argv}
    bridged = [x for x in rec.exchanges if x.run_id in client_runs]
    assert bridged and all(bridge_made_headers(x) for x in bridged)  # a legacy initialize derives fewer, never none
    assert not any(bridge_made_headers(x) for x in recording(http).exchanges)


@pytest.mark.parametrize(("tty", "piped"), [("fastmcp-tty", "fastmcp"), ("toy-interactive-tty", "toy-interactive")])
def test_a_client_under_a_terminal_answered_with_answer_judges_like_its_piped_run(tty, piped):
    assert verdicts(f"mrtr-provenance-{tty}") == verdicts(f"mrtr-provenance-{piped}")


@pytest.mark.parametrize("tty", ["fastmcp-tty", "toy-interactive-tty"])
def test_a_terminal_run_keeps_its_screens_each_answer_with_the_screen_it_answered(tty):
    rec = recording(f"mrtr-provenance-{tty}")
    answered = [s for s in rec.screens if s.reason == "answered"]
    assert answered and all(s.answer_pattern and s.answer_text for s in answered)
    assert {s.reason for s in rec.screens} >= {"answered", "exit"}
    probe = next(run for run in rec.runs if run.name == "probe")
    assert any(s.run_id == probe.id for s in answered)


def test_the_piped_interactive_toy_has_no_screens_and_reads_its_answers_from_stdin():
    rec = recording("mrtr-provenance-toy-interactive")
    probe = next(run for run in rec.runs if run.name == "probe")
    assert rec.screens == ()
    assert b"Send this answer to the server? [y/N]" in raw_bytes(rec, probe.id, "stdout")
