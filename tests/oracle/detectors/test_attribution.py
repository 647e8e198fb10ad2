import string
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from backchannel.oracle.detectors.attribution import PHRASES, judge_occurrence, phrases_in
from backchannel.oracle.detectors.markers import Markers
from backchannel.proxy.scenarios.mrtr_provenance.runner import probe_message

MARKERS = Markers("0123abcd")
BODY = MARKERS.body.encode()
ANCHORS = [MARKERS.server_name, "http://127.0.0.1:4545", "127.0.0.1:4545"]
noise = st.text(alphabet=string.ascii_letters + string.digits + " .,:-\n", max_size=700)
attribution = st.sampled_from(
    [*PHRASES, MARKERS.server_name, "http://127.0.0.1:4545", f'[request from "{MARKERS.server_name}"]\n']
)


def _attributed(prefix: str) -> bool:
    data = prefix.encode() + BODY + b" trailing text\n"
    return judge_occurrence(data, len(prefix.encode()), len(BODY), ANCHORS).attributed


@given(before=noise, insert=attribution, after=noise)
def test_adding_attribution_before_an_occurrence_can_only_remove_a_finding(before, insert, after):
    if _attributed(before + after):
        assert _attributed(before + insert + after)
    assert _attributed(before + after + insert) or not _attributed(before + after)


def test_a_bare_occurrence_is_unattributed_and_a_fenced_one_is_attributed():
    assert not _attributed("checking repository\n")
    assert _attributed("[input request from MCP server, untrusted text follows]\n  | ")


def test_a_phrase_in_an_unrelated_log_line_far_above_earns_no_provenance():
    prefix = "debug: elicitation request to the server sent\n" + "debug: waiting\n" * 3 + "\n"
    assert not _attributed(prefix)


def test_the_server_name_anywhere_in_the_window_attributes_the_occurrence():
    occurrence = judge_occurrence(
        f"from {MARKERS.server_name}\n\n\n\n".encode() + BODY,
        0 + len(f"from {MARKERS.server_name}\n\n\n\n".encode()),
        len(BODY),
        ANCHORS,
    )
    assert occurrence.attributed and occurrence.names_server


def test_a_generic_label_attributes_but_names_no_server():
    data = b"The server asks: " + BODY
    occurrence = judge_occurrence(data, data.index(BODY), len(BODY), ANCHORS)
    assert occurrence.attributed and not occurrence.names_server


def test_text_more_than_512_bytes_before_does_not_count():
    data = MARKERS.server_name.encode() + b"x" * 600 + b"\n" + BODY
    assert not judge_occurrence(data, data.index(BODY), len(BODY), ANCHORS).attributed


@given(
    nonce=st.text(alphabet="0123456789abcdef", min_size=4, max_size=16),
    # the lab's own folder names: tempfile's 8 characters after backchannel-lab-<run>- (free text could spell a
    # phrase, e.g. "ELICITATION", and then the probe rightly refuses to run)
    home=st.text(alphabet=string.ascii_lowercase + string.digits + "_", min_size=8, max_size=8).map(
        lambda tail: f"backchannel-lab-probe-{tail}/home"
    ),
)
def test_a_generated_injected_message_never_contains_an_attribution_phrase(nonce, home):
    message = probe_message(Markers(nonce), Path("/tmp") / home)
    assert phrases_in(message) == []
    assert Markers(nonce).body in message and Markers(nonce).exec_token in message
