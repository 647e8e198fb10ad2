"""Typed shapes of the JSON a recording holds beside its columns: a run's detail and the JSON-valued meta entries.

Each shape is written with `to_json()` and read back with `from_json()`, the same code on both sides, so the writer
and the oracle share one contract. `from_json()` is total: a recording from elsewhere is untrusted, so any value
(any JSON, or none) gives a shape or None, never an exception. A member of the wrong type reads as absent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from .json_form import json_text, parse_json
from .redact import redact_argv

Fact = str | int | float | bool | None  # a JSON scalar
Argv = tuple[str, ...]


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _whole(value: object) -> int | None:
    """A JSON integer (a Python bool is not one)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def argv_of(value: object) -> Argv | None:
    """A JSON command line (a list of strings) as an Argv; None for anything else."""
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        return tuple(value)
    return None


def _argvs(value: object) -> tuple[Argv, ...]:
    """A list of argvs; entries that are not lists of strings are left out."""
    if not isinstance(value, list):
        return ()
    return tuple(found for found in map(argv_of, value) if found is not None)


def _is_fact(value: object) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


class MetaJson:
    """A meta entry holding JSON: its key, its text, and a total reader over a recording's meta table."""

    __slots__ = ()
    KEY: ClassVar[str]

    def to_json(self) -> object:
        raise NotImplementedError

    @classmethod
    def from_json(cls, value: object) -> Self | None:
        raise NotImplementedError

    def meta_entry(self) -> tuple[str, str]:
        return self.KEY, json_text(self.to_json())

    @classmethod
    def stored_in(cls, meta: Mapping[str, str]) -> bool:
        """Whether the recording holds this entry at all (readable or not)."""
        return cls.KEY in meta

    @classmethod
    def read(cls, meta: Mapping[str, str]) -> Self | None:
        """The entry as written; None when it is absent or damaged."""
        return cls.from_json(parse_json(meta.get(cls.KEY)))


@dataclass(frozen=True, slots=True, kw_only=True)
class RunDetail:
    """The runs.detail column: facts about a run the harness planted, decided or saw.

    `facts` are a scenario's own scalar facts (e.g. a decoy path, a hold time); they sit beside the named members in
    one JSON object, so they cannot use those names.
    """

    RESERVED: ClassVar[frozenset[str]] = frozenset({"url", "planted_id", "note"})
    url: str | None = None  # the run's own URL through the proxy
    planted_id: str | None = None  # the ledger witness: the JSON-RPC id of the request the harness planted
    note: str | None = None  # why the client's process ended the way it did
    facts: Mapping[str, Fact] = field(default_factory=dict)

    def __post_init__(self) -> None:
        clash = self.RESERVED.intersection(self.facts)
        if clash:
            raise ValueError(f"run facts cannot be named {sorted(clash)}: those are RunDetail members")

    def to_json(self) -> dict[str, Fact]:
        out: dict[str, Fact] = {}
        if self.url is not None:
            out["url"] = self.url
        out.update(self.facts)
        if self.planted_id is not None:
            out["planted_id"] = self.planted_id
        if self.note is not None:
            out["note"] = self.note
        return out

    @classmethod
    def from_json(cls, value: object) -> Self | None:
        """None when the value is not a JSON object; members of the wrong type read as absent."""
        if not isinstance(value, dict):
            return None
        facts = {k: v for k, v in value.items() if k not in cls.RESERVED and isinstance(k, str) and _is_fact(v)}
        return cls(
            url=_str(value.get("url")),
            planted_id=_str(value.get("planted_id")),
            note=_str(value.get("note")),
            facts=facts,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ProbeOptions(MetaJson):
    """meta `probe_options`: how `check` was asked to run the scenario. Members left None are not written."""

    KEY: ClassVar[str] = "probe_options"
    ignore_capabilities: bool | None = None
    result_type_rule: str | None = None  # "spec" or "seed"
    target: Argv | None = None
    client: Argv | None = None
    stdin: str | None = None
    hold_ms: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, value in (
            ("ignore_capabilities", self.ignore_capabilities),
            ("result_type_rule", self.result_type_rule),
            ("target", None if self.target is None else redact_argv(self.target)),
            ("client", None if self.client is None else redact_argv(self.client)),
            ("stdin", self.stdin),
            ("hold_ms", self.hold_ms),
        ):
            if value is not None:
                out[name] = value
        return out

    @classmethod
    def from_json(cls, value: object) -> Self | None:
        if not isinstance(value, dict):
            return None
        ignore = value.get("ignore_capabilities")
        return cls(
            ignore_capabilities=ignore if isinstance(ignore, bool) else None,
            result_type_rule=_str(value.get("result_type_rule")),
            target=argv_of(value.get("target")),
            client=argv_of(value.get("client")),
            stdin=_str(value.get("stdin")),
            hold_ms=_whole(value.get("hold_ms")),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Discovery(MetaJson):
    """meta `discovery`: what discovering a CLI's tool-call surface found, and the invocation that won, if any."""

    KEY: ClassVar[str] = "discovery"
    FOUND: ClassVar[str] = "found"
    status: str  # "found", or the SKIP reason ("no-mcp-call-surface", "no-tools-call-reached-the-mock")
    invocation: Argv | None = None
    candidates: tuple[Argv, ...] = ()
    tried: tuple[Argv, ...] = ()
    # each tried candidate the ledger did not confirm, with why ("exit 2, no tools/call reached the endpoint");
    # written only when there is one, and absent from recordings made before it existed (they read as ())
    rejected: tuple[tuple[Argv, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.status,
            "invocation": None if self.invocation is None else redact_argv(self.invocation),
            "candidates": [redact_argv(c) for c in self.candidates],
            "tried": [redact_argv(c) for c in self.tried],
        }
        if self.rejected:
            out["rejected"] = [[redact_argv(argv), reason] for argv, reason in self.rejected]
        return out

    @classmethod
    def from_json(cls, value: object) -> Self | None:
        """None when the value is not an object with a string status: a discovery record without one is damaged."""
        if not isinstance(value, dict) or not isinstance(value.get("status"), str):
            return None
        return cls(
            status=value["status"],
            invocation=argv_of(value.get("invocation")),
            candidates=_argvs(value.get("candidates")),
            tried=_argvs(value.get("tried")),
            rejected=_rejections(value.get("rejected")),
        )


def _rejections(value: object) -> tuple[tuple[Argv, str], ...]:
    """A list of [argv, reason] pairs; entries of any other form are left out."""
    if not isinstance(value, list):
        return ()
    out: list[tuple[Argv, str]] = []
    for entry in value:
        if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], str):
            argv = argv_of(entry[0])
            if argv is not None:
                out.append((argv, entry[1]))
    return tuple(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class UrlServers(MetaJson):
    """meta `url_servers`: the loopback servers behind URL-mode elicitations, by name, with their ports."""

    KEY: ClassVar[str] = "url_servers"
    ports: Mapping[str, int]

    def to_json(self) -> dict[str, int]:
        return dict(self.ports)

    @classmethod
    def from_json(cls, value: object) -> Self | None:
        """None when the value is not an object; entries that are not a name and a TCP port are left out."""
        if not isinstance(value, dict):
            return None
        ports = {
            k: v for k, v in value.items() if isinstance(k, str) and (p := _whole(v)) is not None and 0 < p < 65536
        }
        return cls(ports=ports)


@dataclass(frozen=True, slots=True, kw_only=True)
class Invocation(MetaJson):
    """meta `invocation`: the client command line every run used, with `{url}` where the run's URL goes."""

    KEY: ClassVar[str] = "invocation"
    argv: Argv

    def to_json(self) -> list[str]:
        return redact_argv(self.argv)

    @classmethod
    def from_json(cls, value: object) -> Self | None:
        argv = argv_of(value)
        return None if argv is None else cls(argv=argv)
