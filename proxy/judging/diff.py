"""`judge --diff`: what changed, per recording and check, between the report stored in a recording when it was
made and the report today's oracle gives: results new, gone, with another status, or with another message.

Results are matched by scenario, check id and subject, and among equals by their order (a check may yield several
findings, and the harness one per problem)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Key = tuple[str, str, str, int]


@dataclass(frozen=True, slots=True)
class Change:
    """One difference: `new`, `gone`, `status` or `message`, with the check and the before and after."""

    kind: str
    check: str  # scenario:check-id, with [subject] when it has one
    before: str | None = None
    after: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "check": self.check, "before": self.before, "after": self.after}

    def line(self) -> str:
        if self.kind == "new":
            return f"  new      {self.check}: {self.after}"
        if self.kind == "gone":
            return f"  gone     {self.check}: was {self.before}"
        return f"  {self.kind:<8} {self.check}: {self.before} -> {self.after}"


def _keyed(results: Any) -> dict[Key, dict[str, Any]]:
    out: dict[Key, dict[str, Any]] = {}
    seen: Counter[tuple[str, str, str]] = Counter()
    for result in results if isinstance(results, list) else []:
        if not isinstance(result, dict):
            continue  # a damaged stored entry is not a result; what today's oracle says still shows as new
        base = (str(result.get("scenario")), str(result.get("id")), str(result.get("subject") or ""))
        out[(*base, seen[base])] = result
        seen[base] += 1
    return out


def _name(key: Key) -> str:
    scenario, check_id, subject, nth = key
    return f"{scenario}:{check_id}" + (f" [{subject}]" if subject else "") + (f" #{nth + 1}" if nth else "")


def _status(result: dict[str, Any]) -> str:
    return str(result.get("verdict") or result.get("status"))


def changes(stored: Mapping[str, Any], today: Mapping[str, Any]) -> list[Change]:
    """Every difference between two JSON reports (stored first), in today's result order, then what is gone."""
    before, after = _keyed(stored.get("results")), _keyed(today.get("results"))
    out: list[Change] = []
    for key, now in after.items():
        was = before.get(key)
        if was is None:
            out.append(Change("new", _name(key), after=f"{_status(now)} {now.get('message', '')}"))
        elif _status(was) != _status(now):
            out.append(Change("status", _name(key), before=_status(was), after=_status(now)))
        elif str(was.get("message")) != str(now.get("message")):
            out.append(Change("message", _name(key), before=str(was.get("message")), after=str(now.get("message"))))
    out += [
        Change("gone", _name(key), before=f"{_status(was)} {was.get('message', '')}")
        for key, was in before.items()
        if key not in after
    ]
    return out
