import inspect

from backchannel.oracle.scenarios.sdk_regressions.checks import elicitation_undeclared_mode_not_declined as module
from tests.oracle.reference import results

CHECK = "elicitation-undeclared-mode-not-declined"


def test_a_call_given_up_on_a_mode_the_client_did_not_declare_passes():
    result = results("sdk-regressions-toy-careful")[CHECK]
    assert result.status == "PASS", result.message
    assert result.message.startswith("a url-mode elicitation (the client declared {'form': {}}) was not retried")


def test_an_unseen_decline_in_the_users_name_is_warned_never_failed():
    result = results("sdk-regressions-toy-decline-undeclared-mode")[CHECK]
    assert result.status == "WARN", result.message
    assert "answered decline, though neither its message nor its URL was on the client's terminal" in result.message
    assert result.evidence[-1].note == "answered decline, unseen"


def test_a_client_declaring_both_modes_is_not_asked_and_2025_is_not_judged():
    assert results("sdk-regressions-py-sdk")[CHECK].status == "SKIP"
    assert results("sdk-regressions-ts-sdk")[CHECK].reason == "not-exercised"
    assert results("sdk-regressions-toy-careful-2025-11-25")[CHECK].status == "SKIP"


def test_its_docstring_quotes_the_sentences_it_decides_from():
    doc = inspect.getdoc(module.judge) or ""
    for sentence in (
        "Servers **MUST NOT** send elicitation requests with modes that are not supported by the client",
        "User explicitly declined the request",
        "Servers **MUST NOT** assume that clients will fulfill the `inputRequests` or retry the original request",
    ):
        assert " ".join(sentence.split()) in " ".join(doc.split())
