"""The elicitation-url-mode scenario's committed references: the SDK contract drivers, and every variant of the
tests' contract client (tests/clients/contract_client.py) that the check tests judge."""

from __future__ import annotations

import sys
from pathlib import Path

from backchannel.proxy.scenarios.references import Invocation, Reference, py_sdk, py_sdk_stdio, ts_sdk, ts_sdk_stdio

CONTRACT_CLIENT = Path("tests") / "clients" / "contract_client.py"
# Every variant of the contract client the check tests judge (tests/clients/recordings.py's VARIANTS): the one
# that follows the contract, the form-only declaration, and each deliberate mistake of contract_client.py's BREAKS.
# The committed ones were recorded with 1500 ms holds (tests/clients/recordings.py's FAST_HOLD_MS).
CONTRACT_HOLD_MS = 1500  # the live tests' FAST_HOLD_MS: the same statuses, seconds faster
CONTRACT_VARIANTS: dict[str, tuple[str, ...]] = {
    "correct": (),
    "form-only": ("--modes", "form"),
    **{
        name: ("--break", name)
        for name in (
            "supports-declared-mode",
            "constructs-inputs",
            "request-state-echoed",
            "constructs-inputs-mixed",
            "missing-mode-is-form",
            "no-url-prefetch",
            "held-json",
            "held-sse",
            "wire-schema-valid",
            "held-both",
        )
    },
}


def contract(variant: str) -> Invocation:
    """The contract client exactly as tests/clients/recordings.py invokes it."""
    return lambda root: [sys.executable, str(root / CONTRACT_CLIENT), "{url}", *CONTRACT_VARIANTS[variant]]


REFERENCES = (
    Reference("py-sdk", py_sdk, False, "the Python SDK contract driver"),
    Reference("py-sdk-stdio", py_sdk_stdio, False, "the Python SDK contract driver as a stdio client"),
    Reference("ts-sdk-stdio", ts_sdk_stdio, False, "the TypeScript SDK v2 contract driver as a stdio client"),
    Reference("ts-sdk", ts_sdk, False, "the TypeScript SDK v2 contract driver, --mode auto"),
    *(
        Reference(
            f"contract-{variant}",
            contract(variant),
            False,
            f"tests' contract client, {' '.join(flags) or 'following the contract'}",
            settings={"hold_ms": CONTRACT_HOLD_MS},
        )
        for variant, flags in CONTRACT_VARIANTS.items()
    ),
)
