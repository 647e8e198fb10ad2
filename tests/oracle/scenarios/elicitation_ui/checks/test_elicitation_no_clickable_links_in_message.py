from backchannel.oracle.scenarios.elicitation_ui import payloads
from tests.oracle.scenarios.elicitation_ui.builder import ANSWER_T, LINK, build, form_params, judged

CHECK = "elicitation-no-clickable-links-in-message"


def _rec(tmp_path, text):
    return build(
        tmp_path,
        tool=payloads.FORM_TOOL,
        params=form_params(),
        answer={"action": "decline"},
        terminal=[("stdout", text, ANSWER_T - 1)],
    )


def test_it_passes_the_message_url_as_plain_text(tmp_path):
    assert judged(CHECK, _rec(tmp_path, f"Confirm the change described at {LINK}\n")).status == "PASS"


def test_an_osc8_hyperlink_to_the_message_url_is_warn(tmp_path):
    linked = f"see \x1b]8;;{LINK}\x1b\\{LINK}\x1b]8;;\x1b\\\n"
    finding = judged(CHECK, _rec(tmp_path, linked))
    assert finding.status == "WARN" and finding.evidence[0].kind == "terminal" and finding.evidence[0].offset == 4


def test_a_hyperlink_printed_in_caret_notation_is_not_clickable(tmp_path):
    shown = f"see ^[]8;;{LINK}^[\\{LINK}^[]8;;^[\\\n"
    assert judged(CHECK, _rec(tmp_path, shown)).status == "PASS"


def test_a_hyperlink_to_some_other_url_is_not_this_checks_business(tmp_path):
    other = f"{LINK}\n\x1b]8;;https://docs.example.org/help\x1b\\help\x1b]8;;\x1b\\\n"
    assert judged(CHECK, _rec(tmp_path, other)).status == "PASS"


def test_a_message_never_shown_is_a_skip(tmp_path):
    assert judged(CHECK, _rec(tmp_path, "a form arrived\n")).status == "SKIP"
