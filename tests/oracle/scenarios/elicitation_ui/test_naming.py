"""elicitation-names-requesting-server on elicitation-ui recordings: the server's name or origin before each message."""

from backchannel.oracle.scenarios.elicitation_ui.facts import client_run
from backchannel.oracle.scenarios.elicitation_ui.naming import names_requesting_server, server_names
from tests.oracle.reference import recording


def test_the_server_is_named_by_the_name_its_results_report_and_by_the_runs_origin():
    rec = recording("elicitation-ui-toy-careful")
    names = server_names(rec, client_run(rec))
    assert names[0] == "backchannel-endpoint"
    assert any(name.startswith("http://127.0.0.1:") for name in names)


def test_a_client_that_names_the_server_before_each_message_passes():
    finding = names_requesting_server(recording("elicitation-ui-toy-careful"))
    assert finding.status == "PASS" and finding.message == "each of 3 showing(s) names the requesting server"


def test_a_fence_that_says_a_server_asks_but_not_which_fails_with_each_unnamed_showing_cited():
    finding = names_requesting_server(recording("elicitation-ui-toy-no-server-name"))
    assert finding.status == "FAIL"
    assert finding.evidence and all(e.note == "no server name or origin before it" for e in finding.evidence)
