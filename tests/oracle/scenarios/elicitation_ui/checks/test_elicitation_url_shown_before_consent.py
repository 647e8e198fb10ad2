import pytest

from tests.oracle.scenarios.elicitation_ui.builder import ANSWER_T, URL, build, judged

CHECK = "elicitation-url-shown-before-consent"


def test_it_passes_the_full_url_shown_before_the_answer_left(tmp_path):
    rec = build(tmp_path, answer={"action": "accept"}, terminal=[("stdout", f"Open {URL} ? [y/n] ", ANSWER_T - 5)])
    finding = judged(CHECK, rec)
    assert finding.status == "PASS", finding.message
    assert {e.kind for e in finding.evidence} == {"terminal", "message"}


def test_a_url_wrapped_across_lines_and_indented_still_counts_as_shown(tmp_path):
    wrapped = f"  url: {URL[:30]}\n       {URL[30:]}\n"
    rec = build(tmp_path, answer={"action": "accept"}, terminal=[("stdout", wrapped, ANSWER_T - 1)])
    assert judged(CHECK, rec).status == "PASS"


def test_it_fails_a_client_that_never_shows_the_url(tmp_path):
    rec = build(
        tmp_path, answer={"action": "accept"}, terminal=[("stdout", "Open a page on accounts.example.com?", 12)]
    )
    finding = judged(CHECK, rec)
    assert finding.status == "FAIL" and "never reached the terminal" in finding.message


@pytest.mark.parametrize("action", ["cancel", "decline"])
def test_a_client_that_never_shows_the_url_and_refuses_gave_no_consent_to_precede(tmp_path, action):
    """Non-interactive Claude Code cancels every elicitation unseen: no consent, so nothing had to come before it."""
    rec = build(tmp_path, answer={"action": action}, terminal=[("stdout", "Done.", 12)])
    finding = judged(CHECK, rec)
    assert (finding.status, finding.reason) == ("SKIP", "no-consent-given"), finding.message


def test_it_fails_a_url_shown_only_well_after_the_answer_left(tmp_path):
    rec = build(tmp_path, answer={"action": "accept"}, terminal=[("stdout", f"opened {URL}\n", ANSWER_T + 2)])
    finding = judged(CHECK, rec)
    assert finding.status == "FAIL" and "after the answer (accept) left" in finding.message


def test_a_url_shown_a_moment_after_the_answer_is_too_close_to_call_and_is_warn_not_fail(tmp_path):
    rec = build(
        tmp_path, answer={"action": "accept"}, terminal=[("stdout", f"{URL}\n", ANSWER_T + 0.1)], stdin="accept\n"
    )
    assert judged(CHECK, rec).status == "WARN"


def test_with_no_user_step_a_url_read_just_after_the_clients_own_answer_is_warn_not_fail(tmp_path):
    """A client that prints the URL and answers at once, with nothing typed: the harness's read of the URL can
    trail the proxy's sight of the answer by a few ms under load, so a gap inside the band orders nothing."""
    rec = build(tmp_path, answer={"action": "accept"}, terminal=[("stdout", f"{URL}\n", ANSWER_T + 0.1)], options=True)
    finding = judged(CHECK, rec)
    assert finding.status == "WARN" and "no user step" in finding.message and "100 ms" in finding.message


def test_a_url_shown_after_the_tools_result_fails_however_small_the_gap(tmp_path):
    """The client's own output orders the two without a clock: it printed the tool's result (which it could only
    have once its answer left) before it printed the URL."""
    terminal = [("stdout", "connect_account: accept\n", ANSWER_T + 0.02), ("stdout", f"{URL}\n", ANSWER_T + 0.03)]
    rec = build(tmp_path, answer={"action": "accept"}, terminal=terminal, outcome="connect_account: accept")
    finding = judged(CHECK, rec)
    assert finding.status == "FAIL" and "already shown the tool's result" in finding.message
    assert [e.offset for e in finding.evidence if e.kind == "terminal"] == [24, 0]


def test_a_result_shown_only_after_the_url_proves_nothing_and_the_band_holds(tmp_path):
    terminal = [("stdout", f"{URL}\n", ANSWER_T + 0.05), ("stdout", "connect_account: accept\n", ANSWER_T + 0.06)]
    rec = build(tmp_path, answer={"action": "accept"}, terminal=terminal, outcome="connect_account: accept")
    assert judged(CHECK, rec).status == "WARN"


def test_a_short_result_text_orders_nothing(tmp_path):
    terminal = [("stdout", "ok\n", ANSWER_T + 0.02), ("stdout", f"{URL}\n", ANSWER_T + 0.03)]
    rec = build(tmp_path, answer={"action": "accept"}, terminal=terminal, outcome="ok")
    assert judged(CHECK, rec).status == "WARN"


def test_a_shortened_or_different_url_is_not_the_url_as_sent(tmp_path):
    rec = build(tmp_path, answer={"action": "accept"}, terminal=[("stdout", URL.split("?")[0] + "\n", ANSWER_T - 1)])
    assert judged(CHECK, rec).status == "FAIL"


def test_the_url_seen_through_a_terminals_escape_sequences_counts(tmp_path):
    coloured = f"\x1b[1m{URL[:20]}\x1b[0m{URL[20:]}\r\n"
    rec = build(tmp_path, answer={"action": "decline"}, terminal=[("tty", coloured, ANSWER_T - 1)])
    assert judged(CHECK, rec).status == "PASS"


def test_no_elicitation_at_all_is_a_skip(tmp_path):
    from backchannel.oracle.scenarios.elicitation_ui import payloads

    rec = build(tmp_path, tool=payloads.FORM_TOOL, answer={"action": "accept"})
    finding = judged(CHECK, rec)
    assert finding.status == "SKIP" and finding.reason == "tool-not-called"
