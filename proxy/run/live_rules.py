"""The session rules, judged live: `record`'s terminal view names a broken rule as soon as the recording so far
shows it. The oracle stays pure: each look judges the recording as it stands, and only what is new is said."""

from __future__ import annotations

from pathlib import Path

from backchannel.oracle import judge
from backchannel.oracle.model import Result
from backchannel.oracle.registry import session_checks
from backchannel.proxy.timeline import safe
from backchannel.recordings import load
from backchannel.recordings.errors import RecordingError

SAID = ("FAIL", "WARN")


def side_of(rule: str) -> str:
    """Whose message a session rule judges, as its id says (`...-client-...`, `...-server-...`)."""
    return "server" if "-server-" in f"-{rule}-" else "client"


class LiveRules:
    """Looks at a recording being written and says each session rule it sees broken, once per break."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._said: set[tuple[str, str]] = set()

    def news(self) -> list[str]:
        """One line for each rule newly seen broken (rule id, side, the message's sequence number, what broke)."""
        try:
            report = judge(load(self.path), session_checks().values())
        except (RecordingError, OSError):
            return []  # a recording mid-write that cannot be read yet: the next look will
        lines = []
        for result in report.results:
            if result.scenario != "session" or result.status not in SAID:
                continue
            key = (result.id, result.message)
            if key in self._said:
                continue
            self._said.add(key)
            lines.append(describe(result))
        return lines


def describe(result: Result) -> str:
    seq = next((e.seq for e in result.evidence if e.kind == "message" and e.seq is not None), None)
    where = f" at #{seq}" if seq is not None else ""
    return safe(f"rule {result.status}: {result.id} ({side_of(result.id)}, {result.level}){where}: {result.message}")
