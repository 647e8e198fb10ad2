"""What a roots recording shows: each roots/list asked with the client's answer, wherever it was asked, and the
lab's folders."""

from backchannel.oracle.scenarios.roots.facts import answers, path_of, shown
from tests.oracle.reference import recording


def test_the_mrtr_answer_is_the_retrys_input_response():
    found = answers(recording("roots-toy-careful"))
    assert found and {a.via for a in found} == {"MRTR input request"}
    assert all(a.modern and a.roots and a.answer is not None for a in found)


def test_a_refused_2025_request_has_no_roots_and_cites_the_error_answer():
    found = answers(recording("roots-toy-no-roots-2025-11-25"))
    assert found and {a.run.name for a in found} == {"undeclared"}  # the contract run asks no client without roots
    for refused in found:
        assert refused.roots is None and refused.answer is not None and "error" in refused.answer.payload


def test_a_file_uri_reads_as_its_decoded_path():
    assert path_of("file:///tmp/a%20b/") == "/tmp/a b" and path_of("file://") == "/"


def test_a_long_list_is_shown_cut():
    assert shown([{"uri": f"file:///{n}"} for n in range(7)], 2) == '["file:///0", "file:///1"] and 5 more'


def test_a_replay_judges_the_lab_the_client_ran_in_not_the_recorded_facts():
    from backchannel.oracle.scenarios.roots.facts import configured
    from backchannel.recordings.model import Run
    from backchannel.recordings.shapes import RunDetail

    facts = {"lab_folders": '["/old/lab/work"]', "lab_home": "/old/lab/home"}
    own = Run(id="r", ordinal=1, name="contract", scenario="roots", upstream="", plan={}, lab_home="/old/lab/home",
              detail=RunDetail(facts=facts))  # fmt: skip
    assert configured(own) == (["/old/lab/work"], "/old/lab/home")
    replayed = Run(id="r", ordinal=1, name="contract", scenario="roots", upstream="", plan={},
                   lab_home="/new/lab/home", detail=RunDetail(facts=facts))  # fmt: skip
    assert configured(replayed) == (["/new/lab/work"], "/new/lab/home")


def test_a_request_on_the_get_stream_is_paired_with_its_answer_and_its_era_is_the_sessions_not_a_guess():
    from backchannel.oracle.session.eras import GUESSED
    from backchannel.oracle.session.facts import sessions

    rec = recording("roots-ts-sdk-2025-06-18")
    on_get = [a for a in answers(rec) if a.via == "the GET stream"]
    assert on_get and all(a.answer is not None and a.answer.direction == "to-server" for a in on_get)
    seqs = {a.asked.seq for a in on_get}
    requests = [r for s in sessions(rec) for r in s.server if r.message.seq in seqs]
    assert len(requests) == len(on_get)
    assert all(r.era == "2025-06-18" and not r.era_from.endswith(GUESSED) and r.handshake_sure for r in requests)
