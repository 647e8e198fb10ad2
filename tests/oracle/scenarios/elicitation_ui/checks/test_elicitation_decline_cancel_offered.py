from tests.oracle.scenarios.elicitation_ui.builder import ANSWER_T, URL, build, judged

CHECK = "elicitation-decline-cancel-offered"


def _rec(tmp_path, prompt):
    return build(tmp_path, answer={"action": "accept"}, terminal=[("stdout", f"{URL}\n{prompt}", ANSWER_T - 1)])


def test_it_passes_a_prompt_offering_yes_no_and_cancel(tmp_path):
    assert judged(CHECK, _rec(tmp_path, "Open it? [y]es / [n]o / [c]ancel: ")).status == "PASS"


def test_decline_and_cancel_in_other_words_count(tmp_path):
    assert judged(CHECK, _rec(tmp_path, "Open? (y/N, Esc to dismiss) ")).status == "PASS"


def test_a_prompt_with_only_yes_is_warn_never_fail(tmp_path):
    finding = judged(CHECK, _rec(tmp_path, "Continue? [y]: "))
    assert finding.status == "WARN" and "no decline and no cancel" in finding.message


def test_options_shown_only_after_the_answer_do_not_count(tmp_path):
    rec = build(
        tmp_path,
        answer={"action": "accept"},
        terminal=[
            ("stdout", f"{URL}\nContinue? [y]: ", ANSWER_T - 1),
            ("stdout", "\n[n] to cancel next time", ANSWER_T + 5),
        ],
    )
    assert judged(CHECK, rec).status == "WARN"
