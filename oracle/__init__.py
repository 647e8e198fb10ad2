"""Pure judgments over recordings: no clock, no network, no mitmproxy. `judge(recording) -> Report`."""

from __future__ import annotations

from .judge import ORACLE_VERSION, judge
from .model import Check, Evidence, Finding, Report, Result
from .registry import all_checks, check

__all__ = ["ORACLE_VERSION", "Check", "Evidence", "Finding", "Report", "Result", "all_checks", "check", "judge"]
