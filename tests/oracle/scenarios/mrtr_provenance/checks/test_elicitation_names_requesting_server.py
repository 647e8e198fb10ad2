from tests.oracle.reference import results
from tests.oracle.scenarios.mrtr_provenance.agent_requests import claude_turns, judged, markers, with_requests

CHECK = "elicitation-names-requesting-server"


def test_it_passes_a_client_that_names_the_server_and_its_origin():
    assert results("mrtr-provenance-toy-fixed")[CHECK].status == "PASS"


def test_it_fails_a_client_that_shows_the_message_without_naming_any_server():
    result = results("mrtr-provenance-toy-flawed")[CHECK]
    assert result.status == "FAIL"
    assert all(e.kind in ("terminal", "file") for e in result.evidence)


def test_it_skips_when_no_elicitation_was_sent():
    assert results("mrtr-provenance-toy-no-input-capability")[CHECK].reason == "no-elicitation-sent"


def test_a_2025_elicitation_sent_on_the_calls_stream_is_judged_as_the_injected_one_is():
    for driver in ("py-sdk", "ts-sdk"):
        legacy = results(f"mrtr-provenance-{driver}-2025-11-25")[CHECK]
        assert legacy.status == results(f"mrtr-provenance-{driver}")[CHECK].status, driver
        assert legacy.reason != "no-elicitation-sent", driver


# The model context as a carrier: a committed recording with the agent's model requests added to its PROBE run.
FIXED = "mrtr-provenance-toy-fixed"


def test_an_elicitation_in_a_bare_user_turn_of_the_agents_model_context_names_no_server():
    body = markers(FIXED).body
    result = judged(with_requests(FIXED, "probe", claude_turns({"role": "user", "content": body})), CHECK)
    assert result.status == "FAIL" and result.message.startswith("1 of 3 showing(s)")
    assert [(e.kind, e.path) for e in result.evidence] == [("model", "$.messages[2].content")]


def test_an_elicitation_under_the_servers_heading_in_its_instructions_names_it():
    text = f"# MCP Server Instructions\n\n## backchannel\n{markers(FIXED).body}"
    result = judged(with_requests(FIXED, "probe", claude_turns({"role": "system", "content": text})), CHECK)
    assert (result.status, result.message) == ("PASS", "each of 3 showing(s) names the requesting server")


def test_a_labelled_showing_is_undecided_when_the_run_did_not_record_the_servers_configured_name():
    wrapped = f"<untrusted_context>{markers(FIXED).body}</untrusted_context>"
    rec = with_requests(FIXED, "probe", claude_turns({"role": "user", "content": wrapped}), server=None)
    result = judged(rec, CHECK)
    assert (result.status, result.reason) == ("SKIP", "server-name-not-recorded")


def test_an_unread_model_context_is_a_skip_even_when_every_showing_read_names_the_server():
    result = judged(with_requests(FIXED, "probe", b"not json"), CHECK)
    assert (result.status, result.reason) == ("SKIP", "model-context-unread")
    assert [e.seq for e in result.evidence if e.kind == "model"] == [1000]
