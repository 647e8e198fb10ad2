"""LIVE: starts processes (the scripted endpoint, mitmdump, two URL servers and the contract client, per test).

The elicitation-url-mode checks prove themselves offline against the committed recordings of every contract-client
variant (recordings/reference/elicitation-url-mode-contract-*.sqlite, and -legacy-contract-* for the 2025 client).
These live runs keep those references honest: the clients that follow the contract and one that breaks it,
recorded afresh through the real proxy, must judge to the same status per check as the committed report says.
"""

import json
import re

import pytest

from backchannel.oracle import judge
from backchannel.oracle.scenarios.elicitation_url_mode.checks.sep_1036_client_url_required_urls_shown import AMBIGUOUS_S
from backchannel.proxy.scenarios.base import CheckOptions
from backchannel.proxy.scenarios.elicitation_url_mode.references import LEGACY_VARIANTS, legacy_contract
from backchannel.proxy.scenarios.registry import run_check
from backchannel.recordings import load
from tests.clients.recordings import FAST_HOLD_MS, run_variant
from tests.oracle.reference import REFERENCE, contract
from tests.oracle.reference import legacy_contract as reference_name

# the correct client, and the break whose evidence (hits on the declined URL's own server) exists only live
LIVE_VARIANTS = ("correct", "no-url-prefetch")


def committed_statuses(variant: str) -> dict[str, str]:
    report = json.loads((REFERENCE / f"{contract(variant)}.expected.json").read_text(encoding="utf-8"))
    return {result["id"]: result["status"] for result in report["results"]}


pytestmark = pytest.mark.live


@pytest.mark.timeout(60)
@pytest.mark.parametrize("variant", LIVE_VARIANTS)
def test_a_live_run_of_the_contract_client_judges_as_its_committed_reference(variant, tmp_path):
    out = run_variant(variant, tmp_path / "recording.sqlite", FAST_HOLD_MS)
    judged = judge(load(out)).results
    assert len({r.id for r in judged}) == len(judged), "a check judged more than once"
    assert {r.id: r.status for r in judged} == committed_statuses(variant)


def _in_band(message: str) -> bool:
    """The WARN the clock's resolution gives: "shown N ms after", N within the oracle's ambiguous band."""
    found = re.search(r"shown (\d+) ms after", message)
    return found is not None and int(found.group(1)) <= AMBIGUOUS_S * 1000


@pytest.mark.timeout(60)
@pytest.mark.parametrize("variant", ["correct", "no-url-prefetch", "correct-2025-06-18"])
def test_a_live_run_of_the_2025_contract_client_judges_as_its_committed_reference(variant, tmp_path):
    root = REFERENCE.parents[1]
    options = CheckOptions(
        out=tmp_path / "recording.sqlite",
        client=legacy_contract(variant)(root),
        timeout=30,
        era=LEGACY_VARIANTS[variant][0],
    )
    judged = judge(load(run_check("elicitation-url-mode", options, progress=lambda _text: None))).results
    report = json.loads((REFERENCE / f"{reference_name(variant)}.expected.json").read_text(encoding="utf-8"))
    committed = {result["id"]: result["status"] for result in report["results"]}
    # a sighting read a few ms after the answer under load is the oracle's too-close-to-order band: WARN, never FAIL,
    # and a PASS on an idle machine; anything else must match the committed report exactly
    live = {r.id: ("PASS" if r.status == "WARN" and committed.get(r.id) == "PASS" and _in_band(r.message) else r.status)
            for r in judged}  # fmt: skip
    assert live == committed
