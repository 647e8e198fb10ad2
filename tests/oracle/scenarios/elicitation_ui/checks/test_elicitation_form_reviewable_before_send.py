from backchannel.oracle.scenarios.elicitation_ui import payloads
from tests.oracle.scenarios.elicitation_ui.builder import ANSWER_T, build, form_params, judged

CHECK = "elicitation-form-reviewable-before-send"
ACCEPT = {"action": "accept", "content": {"confirmed": True}}


def _screen(t, reason="answered"):
    return {
        "reason": reason,
        "cols": 80,
        "rows": 3,
        "cursor_row": 1,
        "cursor_col": 8,
        "text": "Confirm the change\nconfirmed: y",
        "answer_pattern": "confirmed:",
        "answer_text": "y\n",
        "t": t,
    }


def test_it_fails_an_accept_with_content_when_nothing_was_typed_and_stdin_was_empty(tmp_path):
    rec = build(tmp_path, tool=payloads.FORM_TOOL, params=form_params(), answer=ACCEPT)
    finding = judged(CHECK, rec)
    assert finding.status == "FAIL" and "before the user typed anything" in finding.message


def test_it_passes_when_the_user_answered_the_prompt_before_the_accept_left(tmp_path):
    rec = build(tmp_path, tool=payloads.FORM_TOOL, params=form_params(), answer=ACCEPT, screens=[_screen(ANSWER_T - 1)])
    finding = judged(CHECK, rec)
    assert finding.status == "PASS" and any(e.kind == "screen" for e in finding.evidence)


def test_an_answer_typed_only_after_the_accept_left_does_not_count(tmp_path):
    rec = build(tmp_path, tool=payloads.FORM_TOOL, params=form_params(), answer=ACCEPT, screens=[_screen(ANSWER_T + 3)])
    assert judged(CHECK, rec).status == "FAIL"


def test_input_given_on_stdin_cannot_be_seen_being_read_so_it_is_a_skip_not_a_pass_or_fail(tmp_path):
    rec = build(tmp_path, tool=payloads.FORM_TOOL, params=form_params(), answer=ACCEPT, stdin="y\n")
    finding = judged(CHECK, rec)
    assert finding.status == "SKIP" and finding.reason == "typing-not-observable"


def test_a_declined_form_sends_nothing_to_review(tmp_path):
    rec = build(tmp_path, tool=payloads.FORM_TOOL, params=form_params(), answer={"action": "decline"})
    assert judged(CHECK, rec).status == "SKIP"


def test_answers_typed_before_the_form_arrived_do_not_count_for_it(tmp_path):
    from tests.oracle.scenarios.elicitation_ui.builder import ASKED_T

    earlier = _screen(ASKED_T - 5)  # the answer to some earlier prompt of the run
    rec = build(tmp_path, tool=payloads.FORM_TOOL, params=form_params(), answer=ACCEPT, screens=[earlier])
    assert judged(CHECK, rec).status == "FAIL"
