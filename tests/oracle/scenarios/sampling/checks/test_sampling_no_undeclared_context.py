"""sampling-no-undeclared-context, judged on committed references: the context marker in an answer, in each era."""

import pytest

from tests.oracle.reference import results

CHECK = "sampling-no-undeclared-context"


@pytest.mark.parametrize("name", ["sampling-toy-careful", "sampling-toy-careful-2025-11-25", "sampling-py-sdk-reply"])
def test_it_passes_an_answer_without_the_context_marker(name):
    result = results(name)[CHECK]
    assert result.status == "PASS" and "carries no context marker" in result.message


@pytest.mark.parametrize("era", ["", "-2025-11-25"])
def test_it_warns_when_the_answer_carries_the_earlier_results_marker(era):
    result = results(f"sampling-toy-include-context{era}")[CHECK]
    assert result.status == "WARN" and "BCKCH-CTX-" in result.message and "read_notes" in result.message


def test_it_skips_a_denied_request():
    assert results("sampling-toy-denied-2025-11-25")[CHECK].reason == "not-answered"
