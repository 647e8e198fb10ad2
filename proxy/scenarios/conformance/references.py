"""The conformance scenario's committed references: the toy agent's `conformance` client as it should be, with every
flaw its checks can see on one run each (`toy-flawed`), and with the two flaws that would hide the others
(`toy-no-param-headers`: no Mcp-Param headers, and the whole tool list dropped over one invalid tool)."""

from __future__ import annotations

import sys

from backchannel.proxy.scenarios.references import TOY, Invocation, Reference

FLAWED = (
    "stale-state",
    "same-id",
    "state-on-no-state",
    "leak-unrelated",
    "retry-no-result-type",
    "no-version-retry",
    "skip-empty",
    "mirror-all",
    "python-str",
    "sanitise-unsafe",
    "null-as-text",
    "no-tool-validation",
    "fetch-ref",
)


def toy_conformance(*flaws: str) -> Invocation:
    pairs = [part for flaw in flaws for part in ("--conformance-flaw", flaw)]
    return lambda _root: [sys.executable, "-m", TOY, "conformance", *pairs, "{url}"]


REFERENCES = (
    Reference("toy", toy_conformance(), False, "the toy agent's conformance client, following the suite's contract"),
    Reference("toy-flawed", toy_conformance(*FLAWED), False, "every flaw its checks see, one build"),
    Reference(
        "toy-no-param-headers",
        toy_conformance("no-param-headers", "reject-whole-list"),
        False,
        "no Mcp-Param headers at all, and every tool dropped over one invalid x-mcp-header",
    ),
)
