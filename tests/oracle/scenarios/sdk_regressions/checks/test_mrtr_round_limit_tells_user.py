from dataclasses import replace

from backchannel.oracle.scenarios.sdk_regressions.checks.mrtr_round_limit_tells_user import _told
from backchannel.oracle.scenarios.sdk_regressions.facts import loop_rounds
from tests.oracle.reference import recording, results

CHECK = "mrtr-round-limit-tells-user"


def test_the_careful_toy_stops_after_its_five_rounds_and_says_so_on_stderr():
    result = results("sdk-regressions-toy-careful")[CHECK]
    assert result.status == "PASS", result.message
    assert "stopped after 5 round(s) of keep_asking" in result.message and "its stderr says" in result.message
    assert any(e.kind == "terminal" and e.stream == "stderr" for e in result.evidence)


def test_both_sdk_drivers_stop_after_ten_rounds_with_an_error():
    for name in ("py-sdk", "ts-sdk"):
        result = results(f"sdk-regressions-{name}")[CHECK]
        assert result.status == "PASS", (name, result.message)
        assert "stopped after 10 round(s)" in result.message


def test_a_client_the_endpoint_had_to_stop_is_warned_with_the_round_count_and_the_stop_cited():
    result = results("sdk-regressions-toy-endless-retry")[CHECK]
    assert result.status == "WARN", result.message
    assert "answered 16 rounds of keep_asking and never stopped on its own" in result.message
    assert result.evidence[-1].note == "the endpoint's answer ending the loop"


def test_the_2025_eras_have_no_loop_to_judge():
    assert results("sdk-regressions-toy-careful-2025-11-25")[CHECK].status == "SKIP"


def test_a_stop_with_exit_0_and_nothing_written_after_the_last_round_tells_the_user_nothing():
    rec = recording("sdk-regressions-toy-careful")
    [rounds] = loop_rounds(rec).values()
    last = rounds[-1]
    assert last.request.answer is not None
    later = replace(last, request=replace(last.request, answer=replace(last.request.answer, t=10**12)))
    assert _told(rec, replace(rec.runs[0], exit_code=0), later) is None
    what, where = _told(rec, rec.runs[0], last) or ("", None)
    assert "keep_asking: the server still wanted input after 5 rounds" in what and where is not None


def test_a_client_the_lab_killed_at_its_timeout_chose_no_exit_status_so_it_told_the_user_nothing():
    rec = recording("sdk-regressions-toy-careful")
    [rounds] = loop_rounds(rec).values()
    last = rounds[-1]
    later = replace(last, request=replace(last.request, answer=replace(last.request.answer, t=10**12)))
    killed = replace(rec.runs[0], exit_code=-9, outcome="timeout")
    assert _told(rec, killed, later) is None
    what, _where = _told(rec, replace(killed, exit_code=3, outcome="exited"), later) or ("", None)
    assert what == "it exited 3"


def test_an_error_stream_of_only_unicode_whitespace_is_quoted_empty_not_a_crash():
    rec = recording("sdk-regressions-toy-careful")
    [rounds] = loop_rounds(rec).values()
    blank = tuple(replace(c, data=b"\xc2\xa0\x1c") if c.stream == "stderr" else c for c in rec.terminal)
    what, where = _told(replace(rec, terminal=blank), rec.runs[0], rounds[-1]) or ("", None)
    assert what == "its stderr says ''" and where is not None


def test_escape_sequences_alone_on_the_terminal_after_the_last_round_tell_the_user_nothing():
    rec = recording("sdk-regressions-toy-careful")
    [rounds] = loop_rounds(rec).values()
    run = replace(rec.runs[0], exit_code=0)
    redraws = tuple(replace(c, stream="tty", data=b"\x1b[2K\x1b[1G\x1b[0m") for c in rec.terminal)
    assert _told(replace(rec, terminal=redraws), run, rounds[-1]) is None
    said = tuple(replace(c, stream="tty", data=b"\x1b[31mgave up\x1b[0m\r\n") for c in rec.terminal)
    what, _where = _told(replace(rec, terminal=said), run, rounds[-1]) or ("", None)
    assert what == "its tty says 'gave up'"
