"""`backchannel check`: pick the scenario's runner, run it into one recording, return the recording's path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from .probe_mrtr import MrtrProbe, ProbeError, ProbeOptions
from .probe_url_mode import UrlModeScenario

RUNNERS: dict[str, Any] = {"mrtr-provenance": MrtrProbe, "elicitation-url-mode": UrlModeScenario}


def run_scenario(scenario: str, options: ProbeOptions, progress: Callable[[str], None]) -> Path:
    runner = RUNNERS.get(scenario)
    if runner is None:
        raise ProbeError(f"unknown scenario {scenario!r}; known: {', '.join(sorted(RUNNERS))}")
    path: Path = runner(options, progress).run()
    return path
