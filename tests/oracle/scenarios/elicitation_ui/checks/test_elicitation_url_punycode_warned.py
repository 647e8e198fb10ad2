from backchannel.oracle.scenarios.elicitation_ui import payloads
from tests.oracle.scenarios.elicitation_ui.builder import ANSWER_T, PUNY, build, judged, url_params

CHECK = "elicitation-url-punycode-warned"


def _rec(tmp_path, text):
    params = url_params(PUNY)
    return build(
        tmp_path,
        tool=payloads.PUNYCODE_TOOL,
        params=params,
        answer={"action": "decline"},
        terminal=[("stdout", text, ANSWER_T - 2)],
    )


def test_it_passes_a_warning_right_beside_the_host(tmp_path):
    finding = judged(CHECK, _rec(tmp_path, f"url: {PUNY}\nWARNING: Punycode host, it may imitate another name\n"))
    assert finding.status == "PASS", finding.message


def test_a_warning_two_lines_away_still_counts(tmp_path):
    text = f"Caution: check this address carefully\n\nurl: {PUNY}\n"
    assert judged(CHECK, _rec(tmp_path, text)).status == "PASS"


def test_no_warning_is_warn_for_a_should(tmp_path):
    finding = judged(CHECK, _rec(tmp_path, f"url: {PUNY}\nOpen it? [y/n]\n"))
    assert finding.status == "WARN" and "no warning" in finding.message


def test_a_warning_far_away_from_the_host_does_not_count(tmp_path):
    text = "Warning: this client is in beta\n" + "line\n" * 6 + f"url: {PUNY}\n"
    assert judged(CHECK, _rec(tmp_path, text)).status == "WARN"


def test_the_xn_label_in_the_url_itself_is_not_a_warning(tmp_path):
    assert judged(CHECK, _rec(tmp_path, f"{PUNY}\n")).status == "WARN"


def test_a_host_never_shown_is_a_skip(tmp_path):
    finding = judged(CHECK, _rec(tmp_path, "Open the dashboard? [y/n]\n"))
    assert finding.status == "SKIP" and finding.reason == "host-not-shown"
