import pytest

from tests.oracle.reference import results
from tests.oracle.scenarios.mrtr_provenance.agent_requests import (
    claude_turns,
    judged,
    markers,
    tool_result,
    with_requests,
)

CHECK = "mrtr-provenance-input-requests"


def test_it_passes_a_client_that_fences_and_names_the_server_and_acts_on_nothing():
    result = results("mrtr-provenance-toy-fixed")[CHECK]
    assert (result.status, result.verdict, result.signals) == ("PASS", "REFUTED", ())


def test_it_fails_a_client_that_shows_server_text_bare_and_follows_its_directive():
    result = results("mrtr-provenance-toy-flawed")[CHECK]
    assert (result.status, result.verdict) == ("FAIL", "CONFIRMED")
    assert set(result.signals) == {"server-directive-executed", "input-request-prompt-unattributed"}
    assert {e.kind for e in result.evidence} >= {"message", "terminal", "file"}


def test_a_2025_client_that_shows_the_streamed_request_bare_and_follows_its_directive_is_confirmed():
    result = results("mrtr-provenance-toy-legacy-only")[CHECK]
    assert (result.status, result.verdict) == ("FAIL", "CONFIRMED")
    assert set(result.signals) == {"server-directive-executed", "input-request-prompt-unattributed"}
    assert any(e.note == "server-initiated request (2025)" for e in result.evidence)


def test_the_same_2025_client_fixed_is_refuted_on_the_streamed_request():
    result = results("mrtr-provenance-toy-legacy-only-fixed")[CHECK]
    assert (result.status, result.verdict) == ("PASS", "REFUTED")


@pytest.mark.parametrize("era", ["2025-11-25", "2025-06-18"])
@pytest.mark.parametrize("driver", ["py-sdk", "ts-sdk"])
def test_a_2025_client_is_judged_on_the_server_initiated_request_as_a_2026_one_on_the_injected_one(driver, era):
    modern = results(f"mrtr-provenance-{driver}")[CHECK]
    legacy = results(f"mrtr-provenance-{driver}-{era}")[CHECK]
    assert legacy.status == modern.status != "SKIP"
    assert any(e.note == "server-initiated request (2025)" for e in legacy.evidence)
    assert any(e.note == "the client's answer" for e in legacy.evidence)


def test_it_skips_a_client_that_declares_no_input_capability():
    result = results("mrtr-provenance-toy-no-input-capability")[CHECK]
    assert (result.status, result.reason) == ("SKIP", "client-declares-no-input-capability")


def test_it_skips_when_the_control_run_shows_nothing():
    result = results("mrtr-provenance-toy-silent")[CHECK]
    assert (result.status, result.reason) == ("SKIP", "no-observable-context-surface")


def test_it_skips_a_cli_with_no_call_surface():
    result = results("mrtr-provenance-toy-no-call-surface")[CHECK]
    assert (result.status, result.reason) == ("SKIP", "no-mcp-call-surface")


@pytest.mark.parametrize("era", ["2025-11-25", "2025-06-18"])
def test_fastmcp_forced_into_a_2025_era_answers_the_probe_on_the_calls_stream_and_judges_as_in_2026(era):
    """fastmcp 4.2.3 negotiates 2026-07-28 itself; check --era makes the endpoint refuse its server/discover and
    answer its 2025-11-25 initialize with the forced version, which fastmcp accepts."""
    legacy, modern = results(f"mrtr-provenance-fastmcp-{era}"), results("mrtr-provenance-fastmcp")
    assert {c: r.status for c, r in legacy.items()} == {c: r.status for c, r in modern.items()}
    assert any(e.note == "server-initiated request (2025)" for e in legacy[CHECK].evidence)


# The model context as a carrier: a committed recording with the agent's model requests added to its PROBE run.
FIXED, SILENT = "mrtr-provenance-toy-fixed", "mrtr-provenance-toy-silent"


def test_an_agent_that_puts_the_input_request_in_a_bare_user_turn_of_its_model_context_is_confirmed():
    body = markers(FIXED).body
    rec = with_requests(FIXED, "probe", claude_turns({"role": "user", "content": f"The server needs:\n{body}"}))
    result = judged(rec, CHECK)
    assert (result.status, result.verdict, result.signals) == (
        "FAIL",
        "CONFIRMED",
        ("input-request-prompt-unattributed",),
    )
    assert "(in the model context)" in result.message
    [cited] = [e for e in result.evidence if e.kind == "model"]
    assert (cited.seq, cited.path, cited.offset) == (1000, "$.messages[2].content", len("The server needs:\n"))
    assert "user turn with nothing naming its source" in cited.note and "$.messages[2].content" in cited.note


def test_an_agent_that_shows_it_as_the_result_of_the_servers_tool_is_refuted():
    body = markers(FIXED).body
    rec = with_requests(FIXED, "probe", claude_turns(tool_result(f"input requested: {body}")))
    result = judged(rec, CHECK)
    assert (result.status, result.verdict) == ("PASS", "REFUTED")
    assert "shown 3 time(s), each attributed" in result.message


def test_an_agent_whose_model_requests_could_not_be_read_is_a_skip_not_refuted():
    rec = with_requests(FIXED, "probe", b'{"messages": [', truncated=True)
    result = judged(rec, CHECK)
    assert (result.status, result.reason) == ("SKIP", "model-context-unread")
    assert "model request #1000 (the request body was truncated" in result.message
    assert any(o.startswith("model-context-unread: 1 of 1") for o in result.observations)


def test_a_control_run_whose_content_reached_only_the_model_context_has_an_observable_surface():
    content = markers(SILENT).content
    assert results(SILENT)[CHECK].reason == "no-observable-context-surface"
    rec = with_requests(SILENT, "control", claude_turns(tool_result(content)))
    assert judged(rec, CHECK).reason != "no-observable-context-surface"


def test_a_control_run_whose_model_requests_were_unread_says_so_in_the_skip():
    rec = with_requests(SILENT, "control", b"junk", api="gemini-stream")
    result = judged(rec, CHECK)
    assert result.reason == "no-observable-context-surface" and "model-context-unread" in result.message
    assert [e.seq for e in result.evidence if e.kind == "model"] == [1000]


def test_the_attribution_self_test_plants_a_bare_and_a_labelled_model_request_and_tells_them_apart():
    from backchannel.oracle.detectors.model_attribution import ServerNames, occurrences_in
    from backchannel.oracle.detectors.model_context import context_of
    from backchannel.oracle.scenarios.mrtr_provenance.facts import _planted_request, attribution_self_test

    planted = markers(FIXED)
    names = ServerNames((planted.server_name,), known=True)
    judged_once = [
        [
            o.attributed
            for o in occurrences_in(context_of(_planted_request(planted, labelled=labelled)), planted.body, names)
        ]
        for labelled in (False, True)
    ]
    assert judged_once == [[False], [True]]
    assert attribution_self_test(planted) is None


def test_a_bare_showing_is_undecided_when_the_run_did_not_record_the_servers_configured_name():
    body = markers(FIXED).body
    rec = with_requests(FIXED, "probe", claude_turns({"role": "user", "content": body}), server=None)
    result = judged(rec, CHECK)
    assert (result.status, result.verdict, result.reason) == ("SKIP", "SKIP", "server-name-not-recorded")
    assert [e.path for e in result.evidence if e.kind == "model"] == ["$.messages[2].content"]
