"""Recordings of the contract client against the `elicitation-url-mode` scenario, each variant run once per session.

The check tests (tests/oracle/checks/) and the scenario test (tests/proxy/) share these runs: the first test that
asks for a variant runs it into the session's temporary directory, every later one gets the same file and report.
All runs but the timing test's use FAST_HOLD_MS so the held retries stay short.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.oracle.model import Result
from backchannel.proxy.scenarios.base import CheckOptions
from backchannel.proxy.scenarios.registry import run_check
from backchannel.recordings import Recording, load

SCENARIO = "elicitation-url-mode"
CLIENT = Path(__file__).resolve().parent / "contract_client.py"
FAST_HOLD_MS = 1500

# Each deliberate mistake and the one check it must fail; "held-both" closes both held retries early.
BREAK_FAILS: dict[str, tuple[str, ...]] = {
    "supports-declared-mode": ("sep-1036-client-supports-declared-mode",),
    "constructs-inputs": ("sep-2322-client-constructs-inputs",),
    "request-state-echoed": ("sep-2322-client-request-state-echoed",),
    "constructs-inputs-mixed": ("sep-2322-client-constructs-inputs-mixed",),
    "missing-mode-is-form": ("sep-1036-client-missing-mode-is-form",),
    "no-url-prefetch": ("sep-1036-client-no-url-prefetch",),
    "held-json": ("sep-1036-client-held-json-retry-complete",),
    "held-sse": ("sep-1036-client-held-sse-retry-complete",),
    "wire-schema-valid": ("wire-schema-valid",),
    "held-both": ("sep-1036-client-held-json-retry-complete", "sep-1036-client-held-sse-retry-complete"),
}
CHECKS = frozenset(
    {
        "sep-1036-client-supports-declared-mode",
        "sep-2322-client-constructs-inputs",
        "sep-2322-client-request-state-echoed",
        "sep-2322-client-constructs-inputs-mixed",
        "sep-1036-client-missing-mode-is-form",
        "sep-1036-client-no-url-prefetch",
        "sep-1036-client-held-json-retry-complete",
        "sep-1036-client-held-sse-retry-complete",
        "wire-schema-valid",
    }
)
# The checks that judge only 2025-11-25 (url_required's -32042, which 2026-07-28 removed): on every run of this
# 2026-07-28 client they SKIP removed-in-2026 (mode-not-declared for the form-only one); the 2025 contract client
# (tests/clients/contract_client_2025.py) proves them.
ERA_2025_CHECKS = frozenset({"sep-1036-client-url-required-urls-shown", "sep-1036-client-url-required-retried"})
# The checks that need URL mode: a form-only client must get SKIP mode-not-declared on these, never FAIL.
URL_CHECKS = frozenset(
    {
        "sep-2322-client-constructs-inputs",
        "sep-2322-client-constructs-inputs-mixed",
        "sep-1036-client-no-url-prefetch",
        "sep-1036-client-held-json-retry-complete",
        "sep-1036-client-held-sse-retry-complete",
    }
)
VARIANTS: dict[str, tuple[str, ...]] = {
    "correct": (),
    "form-only": ("--modes", "form"),
    **{name: ("--break", name) for name in BREAK_FAILS},
}

_paths: dict[str, Path] = {}
_recordings: dict[str, Recording] = {}
_results: dict[str, dict[str, Result]] = {}


def client_argv(variant: str) -> list[str]:
    return [sys.executable, str(CLIENT), "{url}", *VARIANTS[variant]]


def run_variant(variant: str, out: Path, hold_ms: int | None) -> Path:
    """Run the scenario once with this client variant into `out` (hold_ms None: the scenario's default)."""
    settings = {} if hold_ms is None else {"hold_ms": hold_ms}
    options = CheckOptions(out=out, client=client_argv(variant), timeout=30, settings=settings)
    return run_check(SCENARIO, options, progress=lambda _text: None)


def recording_path(variant: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The variant's recording, made on first use in this session with FAST_HOLD_MS holds."""
    if variant not in _paths:
        folder = tmp_path_factory.mktemp(f"url-mode-{variant}")
        _paths[variant] = run_variant(variant, folder / "recording.sqlite", FAST_HOLD_MS)
    return _paths[variant]


def recording(variant: str, tmp_path_factory: pytest.TempPathFactory) -> Recording:
    if variant not in _recordings:
        _recordings[variant] = load(recording_path(variant, tmp_path_factory))
    return _recordings[variant]


def results(variant: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    """The variant's judged results by check id (each check of the scenario judges once)."""
    if variant not in _results:
        report = judge(recording(variant, tmp_path_factory))
        ids = [r.id for r in report.results]
        assert len(ids) == len(set(ids)), f"a check judged more than once: {ids}"
        _results[variant] = {r.id: r for r in report.results}
    return _results[variant]


def evidence_payloads(rec: Recording, result: Result) -> list[object]:
    """The JSON-RPC payloads of the messages a result's evidence points at."""
    wanted = {(e.run, e.seq) for e in result.evidence if e.kind == "message"}
    return [m.payload for m in rec.messages if (m.run_id, m.seq) in wanted]
