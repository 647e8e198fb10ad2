"""Which redaction an export applies: the recording's own `--redact` patterns plus the exporter's, and what it did.

A recording's patterns come from whoever made it, and each one is run over every exported body: only plain names
(letters, digits, `_`, `.`, `-`; at most MAX_RECORDED of them) are kept, since no test of a stranger's regular
expression can prove it will not backtrack for minutes; the others are left out and named (the exporter may pass
them again with `--redact`), so a hostile file cannot hang an export. The exporter's own patterns are trusted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from backchannel.recordings import redact
from backchannel.recordings.redactions import Redactions

_PLAIN = re.compile(r"[\w.-]+")
MAX_PATTERN = 200
MAX_RECORDED = 64  # patterns taken from one recording; past it the rest are left out with one line


@dataclass(frozen=True, slots=True)
class ExportPolicy:
    patterns: tuple[str, ...]  # in force: the recording's safe ones, then the exporter's
    ignored: tuple[str, ...]  # the recording's patterns left out, with why
    redaction: redact.Policy = redact.DEFAULT_POLICY  # the defaults plus `patterns`: what the export applies


def recorded_patterns(meta: Mapping[str, str]) -> list[str]:
    """Every `--redact` pattern the recording says it was made with, once each, in order."""
    seen: dict[str, None] = {}
    for entry in Redactions.read_all(meta):
        for pattern in entry.patterns:
            seen.setdefault(pattern, None)
    return list(seen)


def export_policy(meta: Mapping[str, str], extra: Sequence[str]) -> ExportPolicy:
    """The redaction one export applies (a value: nothing process-wide changes); ValueError names a bad `--redact`."""
    own = redact.check_patterns(extra)
    kept: list[str] = []
    ignored: list[str] = []
    recorded = recorded_patterns(meta)
    if len(recorded) > MAX_RECORDED:
        ignored.append(f"{len(recorded) - MAX_RECORDED} more patterns (a recording gives at most {MAX_RECORDED})")
        recorded = recorded[:MAX_RECORDED]
    for pattern in recorded:
        why = _unsafe(pattern)
        if why:
            ignored.append(f"{pattern[:MAX_PATTERN]!r} ({why}; pass it with --redact if you trust it)")
        elif pattern not in own:
            kept.append(pattern)
    patterns = (*kept, *own)
    # the machine's home folder and user name leave with no shared file (a client that printed its PATH named both)
    policy = redact.Policy(patterns, host=redact.HostNames.here())
    return ExportPolicy(patterns=patterns, ignored=tuple(ignored), redaction=policy)


def _unsafe(pattern: str) -> str:
    if len(pattern) > MAX_PATTERN:
        return f"longer than {MAX_PATTERN} characters"
    if not _PLAIN.fullmatch(pattern):
        return "not a plain name: a stranger's regular expression could make matching hang"
    return ""


def summary_lines(counts: Mapping[str, Mapping[str, int]], policy: ExportPolicy) -> list[str]:
    """What an export redacted, for stderr: kinds, names and counts, never a value."""
    parts = [f"{kind} {name} x{count}" for kind, names in counts.items() for name, count in names.items()]
    lines = ["redacted: " + (", ".join(parts) if parts else "nothing")]
    if policy.patterns:
        lines.append("redaction patterns (besides the defaults): " + ", ".join(policy.patterns))
    lines.extend(f"ignored the recording's pattern {why}" for why in policy.ignored)
    return lines
