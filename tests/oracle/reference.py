"""Loading the committed reference recordings that checks prove themselves against."""

from __future__ import annotations

from pathlib import Path

from backchannel.oracle import judge
from backchannel.oracle.model import Result
from backchannel.recordings import load

REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference"


def results(name: str) -> dict[str, Result]:
    """Judge recordings/reference/<name>.sqlite; results by check id (one per check in this scenario)."""
    report = judge(load(REFERENCE / f"{name}.sqlite"))
    return {r.id: r for r in report.results}
