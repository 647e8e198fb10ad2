"""The elicitation-url-mode scenario's committed references: the SDK contract drivers (2026-07-28, and check --era
2025-11-25 and 2025-06-18), and every variant of the tests' contract clients that the check tests judge: the
2026-07-28 one (tests/clients/contract_client.py) and the 2025 one (tests/clients/contract_client_2025.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from backchannel.proxy.scenarios.references import (
    Invocation,
    Reference,
    coding_agents,
    py_sdk,
    py_sdk_stdio,
    ts_sdk,
    ts_sdk_stdio,
)

CONTRACT_CLIENT = Path("tests") / "clients" / "contract_client.py"
LEGACY_CLIENT = Path("tests") / "clients" / "contract_client_2025.py"
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


# Every variant of the 2025 contract client the check tests judge (tests/clients/recordings_2025.py's VARIANTS), at
# check --era 2025-11-25 unless the variant names its era: the one that follows the contract, the same in 2025-06-18,
# and each deliberate mistake of contract_client_2025.py's BREAKS.
LEGACY_VARIANTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "correct": ("2025-11-25", ()),
    "correct-2025-06-18": ("2025-06-18", ("--version", "2025-06-18")),
    **{
        name: ("2025-11-25", ("--break", name))
        for name in (
            "supports-declared-mode",
            "constructs-inputs",
            "constructs-inputs-mixed",
            "missing-mode-is-form",
            "no-url-prefetch",
            "wire-schema-valid",
            "url-required-shown",
            "url-required-retried",
        )
    },
}


def legacy_contract(variant: str) -> Invocation:
    """The 2025 contract client exactly as tests/clients/recordings_2025.py invokes it."""
    flags = LEGACY_VARIANTS[variant][1]
    return lambda root: [sys.executable, str(root / LEGACY_CLIENT), "{url}", *flags]


REFERENCES = (
    Reference("py-sdk", py_sdk, False, "the Python SDK contract driver"),
    Reference("py-sdk-stdio", py_sdk_stdio, False, "the Python SDK contract driver as a stdio client"),
    Reference("ts-sdk-stdio", ts_sdk_stdio, False, "the TypeScript SDK v2 contract driver as a stdio client"),
    Reference("ts-sdk", ts_sdk, False, "the TypeScript SDK v2 contract driver, --mode auto"),
    # in a 2025 era (check --era) the same tools' requests go out as server requests on each call's stream
    *(
        Reference(f"{name}-{era}", argv, False, f"the {who} contract driver, check --era {era}", era=era)
        for era in ("2025-11-25", "2025-06-18")
        for name, argv, who in (("py-sdk", py_sdk, "Python SDK"), ("ts-sdk", ts_sdk, "TypeScript SDK v2"))
    ),
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
    *(
        Reference(
            f"legacy-contract-{variant}",
            legacy_contract(variant),
            False,
            f"tests' 2025 contract client, check --era {era}, {' '.join(flags) or 'following the contract'}",
            era=era,
        )
        for variant, (era, flags) in LEGACY_VARIANTS.items()
    ),
    # the shipped coding agents (check --agent), each against the lab's scripted model
    *coding_agents(),
    # check --by-hand, scripted: the Python SDK contract driver as the host (its seven calls one step each, the two URL
    # servers up); nothing to ask the person: the wire and the URL servers judge it
    *(
        Reference(
            f"by-hand-py-sdk{'' if era == 'auto' else '-' + era}",
            py_sdk,
            False,
            f"check --by-hand, scripted: the Python SDK contract driver as the host, check --era {era}",
            era=era,
            by_hand=(),
        )
        for era in ("auto", "2025-11-25")
    ),
)
