import pytest

from tests.oracle.scenarios.elicitation_ui.builder import ANSWER_T, ASKED_T, URL, build, judged

CHECK = "elicitation-url-not-opened-without-consent"


def _answered_screen(t):
    return {
        "reason": "answered",
        "cols": 80,
        "rows": 2,
        "cursor_row": 1,
        "cursor_col": 5,
        "text": f"{URL}\n[y/n]",
        "answer_pattern": "y/n",
        "answer_text": "y\n",
        "t": t,
    }


def test_an_open_after_the_accept_left_passes_with_an_observation(tmp_path):
    finding = judged(CHECK, build(tmp_path, answer={"action": "accept"}, opens=[(URL, ANSWER_T + 1)]))
    assert (
        finding.status == "PASS"
        and finding.observations
        and "after the answer (accept) left" in finding.observations[0]
    )


def test_no_open_at_all_passes(tmp_path):
    finding = judged(CHECK, build(tmp_path, answer={"action": "accept"}))
    assert finding.status == "PASS" and finding.message == "no URL was opened"


def test_an_open_well_before_the_answer_left_fails(tmp_path):
    finding = judged(CHECK, build(tmp_path, answer={"action": "accept"}, opens=[(URL, ASKED_T + 1)]))
    assert finding.status == "FAIL" and "before the answer (accept) left" in finding.message


def test_an_open_of_a_declined_url_fails_whenever_it_happened(tmp_path):
    finding = judged(CHECK, build(tmp_path, answer={"action": "decline"}, opens=[(URL, ANSWER_T + 5)]))
    assert finding.status == "FAIL" and "the user chose decline" in finding.message


def test_under_a_terminal_the_typed_answer_decides_even_when_the_open_is_close_to_the_retry(tmp_path):
    screens = [_answered_screen(ANSWER_T - 0.05)]
    before = build(tmp_path, answer={"action": "accept"}, opens=[(URL, ANSWER_T - 0.1)], screens=screens)
    assert judged(CHECK, before).status == "FAIL"


def test_an_open_a_moment_before_a_piped_answer_left_is_warn(tmp_path):
    piped = build(tmp_path, answer={"action": "accept"}, opens=[(URL, ANSWER_T - 0.1)], stdin="accept\n")
    assert judged(CHECK, piped).status == "WARN"


@pytest.mark.parametrize("opened_at", [ANSWER_T - 0.011, ANSWER_T + 1])
def test_with_no_user_step_at_all_any_open_fails_whatever_its_timing(tmp_path, opened_at):
    """Nothing typed, nothing on stdin: the client answered by itself, so there was no consent to order the open
    against; 11 ms before its own answer left is not "too close to call", it is an open without consent."""
    rec = build(tmp_path, answer={"action": "accept"}, opens=[(URL, opened_at)], options=True)
    finding = judged(CHECK, rec)
    assert finding.status == "FAIL" and "no user step at all" in finding.message


def test_a_recording_that_does_not_say_how_it_ran_keeps_the_timing_band(tmp_path):
    unknown = build(tmp_path, answer={"action": "accept"}, opens=[(URL, ANSWER_T - 0.1)])
    assert judged(CHECK, unknown).status == "WARN"


def test_opening_some_other_page_is_not_this_url(tmp_path):
    finding = judged(CHECK, build(tmp_path, answer={"action": "decline"}, opens=[("https://docs.example.org/", 12)]))
    assert finding.status == "PASS"


def test_a_recording_older_than_the_openers_is_a_skip(tmp_path):
    from dataclasses import replace

    rec = replace(build(tmp_path, answer={"action": "accept"}), format_version="m004_screens")
    assert judged(CHECK, rec).status == "SKIP"


def test_an_open_between_two_user_steps_then_a_decline_is_warn_for_a_person(tmp_path):
    """A UI that asks twice (Claude Code: "Open in browser", then "I'm done, continue" or "Decline"): the user's
    first step may have asked for the open; which key meant what is not on the wire."""
    screens = [_answered_screen(ASKED_T + 1), _answered_screen(ASKED_T + 3)]
    rec = build(tmp_path, answer={"action": "decline"}, opens=[(URL, ASKED_T + 2)], screens=screens)
    finding = judged(CHECK, rec)
    assert finding.status == "WARN" and "for a person to see" in finding.message


def test_an_open_after_the_users_last_step_of_a_declined_prompt_fails(tmp_path):
    screens = [_answered_screen(ASKED_T + 1)]
    rec = build(tmp_path, answer={"action": "decline"}, opens=[(URL, ASKED_T + 2)], screens=screens)
    finding = judged(CHECK, rec)
    assert finding.status == "FAIL" and "after the user's step that answered decline" in finding.message


def test_an_open_of_a_declined_url_with_no_user_step_before_it_fails(tmp_path):
    screens = [_answered_screen(ASKED_T + 3)]
    rec = build(tmp_path, answer={"action": "cancel"}, opens=[(URL, ASKED_T + 2)], screens=screens)
    finding = judged(CHECK, rec)
    assert finding.status == "FAIL" and "no step of theirs before it" in finding.message
