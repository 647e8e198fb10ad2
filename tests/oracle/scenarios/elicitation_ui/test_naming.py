"""elicitation-names-requesting-server on elicitation-ui recordings: the server's name or origin before each message."""

from backchannel.oracle.scenarios.elicitation_ui import payloads
from backchannel.oracle.scenarios.elicitation_ui.facts import client_run
from backchannel.oracle.scenarios.elicitation_ui.naming import names_requesting_server, server_names
from tests.oracle.reference import recording
from tests.oracle.scenarios.elicitation_ui.builder import ASKED_T, NONCE, URL, build


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


def test_a_full_screen_ui_is_read_from_its_screens_and_the_name_its_config_gave_the_server_names_it():
    """Claude Code draws each word at a cursor position (no spaces in its stream): the message is found on its
    rendered screens, under `MCP server "<the name its configuration gives the server>"`."""
    rec = recording("elicitation-ui-agent-claude-code-tty")
    run = client_run(rec)
    assert run is not None and "backchannel_endpoint" in server_names(rec, run)
    finding = names_requesting_server(rec)
    assert finding.status == "PASS" and "screen(s) showing an elicitation" in finding.message
    assert finding.evidence and all(e.kind == "screen" for e in finding.evidence)


def test_a_screen_showing_a_message_with_no_name_above_it_is_warn_never_fail(tmp_path):
    """A rendered screen may have scrolled a dialog's title off its top, which a stream could not: WARN."""
    message = payloads.url_message(NONCE)
    screen = {
        "reason": "waiting",
        "cols": 200,
        "rows": 3,
        "cursor_row": 2,
        "cursor_col": 0,
        "text": f"{message}\n{URL}\n[y/n]",
        "t": ASKED_T + 1,
    }
    rec = build(tmp_path, terminal=[("tty", b"\x1b[3Ga\x1b[9Gword", ASKED_T + 0.5)], screens=[screen])
    finding = names_requesting_server(rec)
    assert finding.status == "WARN" and finding.evidence[0].kind == "screen"
