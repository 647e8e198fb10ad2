"""The registered checks joined with their entries: what `backchannel checks --format json|markdown` prints."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from backchannel.oracle.model import Check

from .model import Requirement, Requirements, RequirementsError

BUILTIN_PREFIX = "backchannel.oracle."  # checks shipped here must have an entry; a scenario from elsewhere may not


@dataclass(frozen=True, slots=True)
class TracedCheck:
    """One registered check and its requirement (None only for a check of a scenario from elsewhere)."""

    check: Check
    requirement: Requirement | None


def traced(checks: Mapping[str, Check], requirements: Requirements) -> tuple[TracedCheck, ...]:
    """Every check with its entry, in id order; RequirementsError naming the ids when the two are out of step."""
    builtin = {check_id for check_id, c in checks.items() if c.fn.__module__.startswith(BUILTIN_PREFIX)}
    missing = sorted(builtin - set(requirements.entries))
    if missing:
        raise RequirementsError(
            f"{requirements.source}: no entry for {len(missing)} registered check(s): {', '.join(missing)}; add a "
            f"[checks.<id>] table for each to {requirements.source} (quote and anchor, or unquoted saying why none)"
        )
    unknown = sorted(set(requirements.entries) - set(checks))
    if unknown:
        raise RequirementsError(
            f"{requirements.source}: entries for no registered check: {', '.join(unknown)}; remove them or correct "
            "the id"
        )
    return tuple(
        TracedCheck(check=checks[check_id], requirement=requirements.entries.get(check_id))
        for check_id in sorted(checks)
    )
