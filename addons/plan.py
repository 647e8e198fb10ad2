"""The mutation plan: what the Rewriter does to one run's traffic, given as data and validated up front."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

KINDS = ("drop-result-type", "inject-input-requests", "hold", "json-to-sse", "error")


class PlanError(ValueError):
    """A plan that cannot be applied; the message names the mutation and the field."""


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


@dataclass(frozen=True, slots=True)
class Mutation:
    """One entry of a plan."""

    index: int
    kind: str
    match: Match
    times: int | None  # apply to at most this many matching requests; None: all
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Plan:
    mutations: tuple[Mutation, ...] = ()

    def for_request(self, request: dict[str, Any]) -> tuple[Mutation, ...]:
        return tuple(m for m in self.mutations if m.match.matches(request))


def _require(cond: bool, where: str, what: str) -> None:
    if not cond:
        raise PlanError(f"{where}: {what}")


def _check_params(where: str, kind: str, raw: dict[str, Any]) -> None:
    if kind == "inject-input-requests":
        if "byCapability" in raw:
            options = raw["byCapability"]
            _require(isinstance(options, list) and bool(options), where, "byCapability must be a non-empty list")
            for n, option in enumerate(options):
                _require(
                    isinstance(option, dict) and option.get("capability") in ("elicitation", "sampling", "roots"),
                    where,
                    f"byCapability[{n}].capability must be elicitation, sampling or roots",
                )
                _check_params(f"{where} byCapability[{n}]", kind, {"inputRequests": option.get("inputRequests")})
            return
        requests = raw.get("inputRequests")
        if not isinstance(requests, dict) or not requests:
            raise PlanError(f"{where}: inputRequests must be a non-empty object")
        for key, value in requests.items():
            _require(
                isinstance(value, dict) and isinstance(value.get("method"), str),
                where,
                f"inputRequests.{key} must be an object with a string method",
            )
    elif kind == "hold":
        _require(isinstance(raw.get("ms", 0), int) and raw.get("ms", 0) >= 0, where, "ms must be a whole number >= 0")
        _require(raw.get("as", "json") in ("json", "sse"), where, "as must be 'json' or 'sse'")
        keepalive = raw.get("keepaliveMs", 500)
        _require(isinstance(keepalive, int) and keepalive > 0, where, "keepaliveMs must be a whole number > 0")
    elif kind == "error":
        error = raw.get("error")
        _require(
            isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str),
            where,
            "error must be an object with an integer code and a string message",
        )
        _require(isinstance(raw.get("status", 400), int), where, "status must be an HTTP status number")


def parse_plan(raw: Any) -> Plan:
    """Validate a plan given as decoded JSON: {"mutations": [{"kind": ..., "match": {...}, ...}]}."""
    if raw is None or raw == {}:
        return Plan()
    _require(isinstance(raw, dict), "plan", "must be a JSON object with a 'mutations' list")
    items = raw.get("mutations", [])
    _require(isinstance(items, list), "plan", "'mutations' must be a list")
    out = []
    for index, item in enumerate(items):
        where = f"plan mutation {index}"
        _require(isinstance(item, dict), where, "must be an object")
        kind = item.get("kind")
        _require(kind in KINDS, where, f"kind {kind!r} is not one of {', '.join(KINDS)}")
        match = item.get("match", {})
        _require(
            isinstance(match, dict) and set(match) <= {"method", "name"},
            where,
            "match may hold only 'method' and 'name'",
        )
        times = item.get("times")
        _require(times is None or (isinstance(times, int) and times > 0), where, "times must be a whole number > 0")
        _check_params(where, str(kind), item)
        params = {k: v for k, v in item.items() if k not in ("kind", "match", "times")}
        out.append(Mutation(index, str(kind), Match(match.get("method"), match.get("name")), times, params))
    return Plan(tuple(out))
