"""The hand-written reasons: each names a pair of verdicts the comparison can produce, and quotes the 2026-07-28 spec
word for word (where the spec's text is on this machine: /work/shared/spec, or $BACKCHANNEL_SPEC_DIR)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from backchannel.proxy.conformance.reasons import REASONS
from backchannel.proxy.conformance.verdicts import ALIASES, DECISIVE, SUITE_CLASS

SPEC_DOCS = Path(os.environ.get("BACKCHANNEL_SPEC_DIR", "/work/shared/spec/2026-07-28")) / "docs"


def folded(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_every_reason_explains_a_difference_the_comparison_can_produce():
    for check_id, reason in REASONS.items():
        assert reason.suite in SUITE_CLASS and reason.ours in DECISIVE, check_id
        assert SUITE_CLASS[reason.suite] != reason.ours, f"{check_id}: that pair agrees, it needs no reason"
        assert reason.anchor.startswith("https://modelcontextprotocol.io/specification/2026-07-28/"), check_id
        assert reason.why and reason.quotes, check_id


def test_the_known_case_is_the_default_result_type_under_its_alias():
    assert ALIASES["sep-2322-default-result-type-complete"] == "mrtr-provenance-result-type-default"
    assert (
        REASONS["sep-2322-default-result-type-complete"].suite,
        REASONS["sep-2322-default-result-type-complete"].ours,
    ) == (
        "SUCCESS",
        "pass+observation",
    )


@pytest.mark.parametrize("check_id", sorted(REASONS))
def test_each_quote_is_the_spec_text_word_for_word(check_id):
    reason = REASONS[check_id]
    page = SPEC_DOCS / reason.source
    if not page.is_file():
        pytest.skip(f"the 2026-07-28 spec text is not on this machine ({page})")
    text = folded(page.read_text(encoding="utf-8"))
    for quote in reason.quotes:
        assert folded(quote) in text, f"{check_id}: not in {reason.source}: {quote}"
