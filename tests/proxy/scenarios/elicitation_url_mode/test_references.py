"""The elicitation-url-mode reference declarations: the contract client's variants are exactly the ones the check
tests run (tests/clients/recordings.py), invoked the same way, with the same short holds."""

from __future__ import annotations

from pathlib import Path

from backchannel.proxy.scenarios.elicitation_url_mode.references import CONTRACT_HOLD_MS, REFERENCES
from tests.clients.recordings import FAST_HOLD_MS, VARIANTS, client_argv

ROOT = Path(__file__).resolve().parents[4]


def test_every_contract_variant_the_check_tests_run_is_declared_invoked_as_they_invoke_it():
    contract = {ref.name.removeprefix("contract-"): ref for ref in REFERENCES if ref.name.startswith("contract-")}
    assert set(contract) == set(VARIANTS)
    assert {name: ref.argv(ROOT) for name, ref in contract.items()} == {name: client_argv(name) for name in VARIANTS}
    assert CONTRACT_HOLD_MS == FAST_HOLD_MS
    assert all(dict(ref.settings) == {"hold_ms": FAST_HOLD_MS} for ref in contract.values())
