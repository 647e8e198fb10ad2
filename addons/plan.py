"""The mutation plan: what the Rewriter does to one run's traffic, given as data, parsed once into typed mutations.

The JSON format: {"mutations": [{"kind": ..., "match": {"method": ..., "name": ...}, "times": N, ...kind's own
members}]}. Each kind's members are parsed by its own class (addons/mutations/<kind>.py), found by the registry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .mutations import kinds
from .mutations.base import MutationKind, PlanError

__all__ = ["KINDS", "Match", "Mutation", "Plan", "PlanError", "describe_plan", "parse_plan"]

KINDS = tuple(kinds())
_COMMON = ("kind", "match", "times")


@dataclass(frozen=True, slots=True)
class Match:
    """Which client requests a mutation applies to; every given field must match."""

    method: str | None = None
    name: str | None = None  # params.name (tools/call, prompts/get) or params.uri

    def matches(self, request: dict[str, Any]) -> bool:
        if self.method is not None and request.get("method") != self.method:
            return False
        if self.name is not None:
            params = request.get("params")
            target = params.get("name", params.get("uri")) if isinstance(params, dict) else None
            if target != self.name:
                return False
        return True

    def describe(self) -> str:
        parts = [self.method or "any method"] + ([self.name] if self.name is not None else [])
        return " ".join(parts) if self.method or self.name else "every request"


@dataclass(frozen=True, slots=True)
class Mutation:
    """One entry of a plan: where it applies, how often, and its kind's typed parameters and behaviour."""

    index: int
    match: Match
    times: int | None  # apply to at most this many matching requests; None: all
    params: MutationKind

    @property
    def kind(self) -> str:
        return self.params.NAME

    def describe(self) -> str:
        times = "" if self.times is None else f", {self.times} time{'s' if self.times != 1 else ''}"
        return f"#{self.index} {self.kind} on {self.match.describe()}{times}: {self.params.describe()}"


@dataclass(frozen=True, slots=True)
class Plan:
    mutations: tuple[Mutation, ...] = ()

    def for_request(self, request: dict[str, Any]) -> tuple[Mutation, ...]:
        return tuple(m for m in self.mutations if m.match.matches(request))

    def describe(self) -> list[str]:
        """One human line per mutation, for `show`."""
        return [m.describe() for m in self.mutations] or ["(no mutations)"]


def _require(cond: bool, where: str, what: str) -> None:
    if not cond:
        raise PlanError(f"{where}: {what}")


def _mutation(index: int, item: Any) -> Mutation:
    where = f"plan mutation {index}"
    _require(isinstance(item, dict), where, "must be an object")
    known = kinds()
    kind = item.get("kind")
    cls = known.get(kind) if isinstance(kind, str) else None
    _require(cls is not None, where, f"kind {kind!r} is not one of {', '.join(known)}")
    assert cls is not None
    match = item.get("match", {})
    _require(
        isinstance(match, dict)
        and set(match) <= {"method", "name"}
        and all(v is None or isinstance(v, str) for v in match.values()),
        where,
        "match may hold only 'method' and 'name', each a string",
    )
    times = item.get("times")
    _require(
        times is None or (isinstance(times, int) and not isinstance(times, bool) and times > 0),
        where,
        "times must be a whole number > 0",
    )
    try:
        params = cls.parse({k: v for k, v in item.items() if k not in _COMMON})
    except PlanError as exc:
        raise PlanError(f"{where} ({kind}): {exc}") from None
    return Mutation(index, Match(match.get("method"), match.get("name")), times, params)


def parse_plan(raw: Any) -> Plan:
    """Validate a plan given as decoded JSON; PlanError names the mutation and the field."""
    if raw is None or raw == {}:
        return Plan()
    _require(isinstance(raw, dict), "plan", "must be a JSON object with a 'mutations' list")
    items = raw.get("mutations", [])
    _require(isinstance(items, list), "plan", "'mutations' must be a list")
    return Plan(tuple(_mutation(index, item) for index, item in enumerate(items)))


def describe_plan(raw: Any) -> list[str]:
    """A stored plan as human lines; a plan that does not parse says so instead of raising."""
    try:
        return parse_plan(raw).describe()
    except PlanError as exc:
        return [f"(plan does not parse: {exc})"]
