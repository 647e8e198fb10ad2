"""backchannel's side of the cross-check: `backchannel check --scenario S --client "DRIVER {url}" --format json`.

Run as a child process (each check starts its own endpoint and mitmdump, so several run side by side), on this
interpreter, and read back as one verdict per check id. The exit code is not a verdict: the JSON report is.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from backchannel.proxy.conformance.suite import run_bounded

CLI = [sys.executable, "-m", "backchannel.proxy.cli"]
# the suite's contract variables: a scenario that speaks that contract (`conformance`) sets them per run itself; left
# in from the caller's environment they would switch the drivers to it in every other scenario too
SUITE_VARIABLES = ("MCP_CONFORMANCE_SCENARIO", "MCP_CONFORMANCE_PROTOCOL_VERSION", "MCP_CONFORMANCE_CONTEXT")


@dataclass(frozen=True)
class OurCheck:
    """One check's result in one backchannel scenario's report: status, probe verdict, and what it observed."""

    id: str
    status: str
    scenario: str
    message: str
    verdict: str | None = None
    reason: str | None = None
    observations: tuple[str, ...] = field(default_factory=tuple)


def read_report(report: Mapping[str, Any], scenario: str) -> dict[str, OurCheck]:
    """A `check --format json` report as one result per id (the session rules included, under `scenario`)."""
    found: dict[str, OurCheck] = {}
    for result in report.get("results", []):
        if not isinstance(result, dict) or not isinstance(result.get("id"), str):
            continue
        observed = result.get("observations") or []
        found[result["id"]] = OurCheck(
            id=result["id"],
            status=str(result.get("status")),
            scenario=scenario,
            message=str(result.get("message", "")),
            verdict=result.get("verdict") if isinstance(result.get("verdict"), str) else None,
            reason=result.get("reason") if isinstance(result.get("reason"), str) else None,
            observations=tuple(str(o) for o in observed if isinstance(o, str)),
        )
    return found


def run_scenario(
    scenario: str, driver: Sequence[str], options: Sequence[str] = (), timeout_s: float = 120.0
) -> dict[str, OurCheck]:
    """`backchannel check` of `scenario` against the driver (its URL last), recorded into a temporary folder.

    Raises:
        RuntimeError: The command printed no JSON report (its stderr is quoted).
    """
    client = shlex.join([*driver, "{url}"])
    with tempfile.TemporaryDirectory(prefix="bc-parity-") as folder:
        argv = [
            *CLI,
            "check",
            "--scenario",
            scenario,
            *options,
            "--client",
            client,
            "--format",
            "json",
            "--out",
            str(Path(folder) / "run.sqlite"),
        ]
        env = {name: value for name, value in os.environ.items() if name not in SUITE_VARIABLES}
        code, stdout, stderr = run_bounded(argv, timeout_s, env)
    try:
        report = json.loads(stdout)
    except ValueError as exc:
        raise RuntimeError(
            f"backchannel check --scenario {scenario} printed no report (exit {code}):\n{stderr[-2000:]}"
        ) from exc
    if not isinstance(report, dict):
        raise RuntimeError(f"backchannel check --scenario {scenario} printed JSON that is not a report")
    return read_report(report, scenario)
