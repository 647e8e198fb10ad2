"""The real SDK clients the replay tests drive, and which committed reference each one recorded."""

from __future__ import annotations

import pytest

from backchannel.proxy.clients.drivers.paths import node_driver, py_driver

# reference recording -> the client that made it (the TypeScript SDK ran with --mode auto: see the reference script)
SDK_REFERENCES = {
    "mrtr-provenance-py-sdk": "py",
    "mrtr-provenance-ts-sdk": "ts",
    "elicitation-url-mode-py-sdk": "py",
    "elicitation-url-mode-ts-sdk": "ts",
}


def client_argv(kind: str) -> list[str]:
    """The client's invocation with `{url}`; skips the test when the TypeScript SDK is not installed."""
    if kind == "py":
        return [*py_driver(), "{url}"]
    found = node_driver()
    if found is None:
        pytest.skip("the TypeScript SDK driver is not installed (scripts/install-clients)")
    return [*found, "{url}", "--mode", "auto"]
