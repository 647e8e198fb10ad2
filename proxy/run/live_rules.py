"""The session rules, judged live: `record`'s terminal view names a broken rule as soon as the recording so far
shows it. The oracle stays pure: each look judges the recording as it stands, and only what is new is said."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from backchannel.oracle import judge
from backchannel.oracle.model import Result
from backchannel.oracle.registry import session_checks
from backchannel.proxy.timeline import safe
from backchannel.recordings import load
from backchannel.recordings.errors import RecordingError

SAID = ("FAIL", "WARN")
EVERY_S = 1.0  # a look at most this often
# and never more than this share of the time: a look loads and judges the whole recording, which grows with the
# session, so at a fixed pace the view's CPU per exchange would grow with it (issue 26)
SHARE = 0.1


def side_of(rule: str) -> str:
    """Whose messages a session rule judges, as the rule declares."""
    found = session_checks().get(rule)
    return found.side if found is not None and found.side else "client"


@dataclass(frozen=True, slots=True)
class Broken:
    """A session rule newly seen broken: the line to say, and the HTTP exchanges (flows) its evidence points at."""

    line: str
    status: str
    flows: tuple[str, ...]


class LiveRules:
    """Looks at a recording being written and says each session rule it sees broken, once per break."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self._said: set[tuple[str, str]] = set()
        self._clock = clock
        self._next = 0.0  # when the next look is due, on `clock`

    def due(self) -> bool:
        """Whether a look is due: EVERY_S after the last one, or longer after a slow one, so that looking takes at
        most SHARE of the time."""
        return self._clock() >= self._next

    def news(self) -> list[Broken]:
        """Each rule newly seen broken: a line (rule id, side, the message's sequence number, what broke) and the
        flows of the messages it cites."""
        began = self._clock()
        try:
            rec = load(self.path)
            report = judge(rec, session_checks().values())
        except (RecordingError, OSError):
            return []  # a recording mid-write that cannot be read yet: the next look will
        finally:
            ended = self._clock()
            self._next = ended + max(EVERY_S, (ended - began) * (1 - SHARE) / SHARE)
        flow_of = {m.seq: m.flow_id for m in rec.messages}
        found = []
        for result in report.results:
            if result.scenario != "session" or result.status not in SAID:
                continue
            key = (result.id, result.message)
            if key in self._said:
                continue
            self._said.add(key)
            cited = (flow_of.get(e.seq) for e in result.evidence if e.kind == "message" and e.seq is not None)
            flows = tuple(dict.fromkeys(flow for flow in cited if flow))
            found.append(Broken(describe(result), result.status, flows))
        return found


def describe(result: Result) -> str:
    seq = next((e.seq for e in result.evidence if e.kind == "message" and e.seq is not None), None)
    where = f" at #{seq}" if seq is not None else ""
    return safe(f"rule {result.status}: {result.id} ({side_of(result.id)}, {result.level}){where}: {result.message}")
