from tests.oracle.scenarios.elicitation_ui.builder import ANSWER_T, build, judged

CHECK = "elicitation-url-host-shown"


def test_it_passes_the_host_shown_on_its_own_before_the_answer(tmp_path):
    rec = build(
        tmp_path, answer={"action": "accept"}, terminal=[("stdout", "Host: accounts.example.com\n", ANSWER_T - 3)]
    )
    assert judged(CHECK, rec).status == "PASS"


def test_it_fails_when_the_host_never_shows(tmp_path):
    rec = build(tmp_path, answer={"action": "accept"}, terminal=[("stdout", "Open the page? [y/n]\n", ANSWER_T - 3)])
    finding = judged(CHECK, rec)
    assert finding.status == "FAIL" and "'accounts.example.com'" in finding.message


def test_a_host_shown_only_after_consent_fails(tmp_path):
    rec = build(
        tmp_path, answer={"action": "accept"}, terminal=[("stdout", "opening accounts.example.com", ANSWER_T + 1)]
    )
    assert judged(CHECK, rec).status == "FAIL"
