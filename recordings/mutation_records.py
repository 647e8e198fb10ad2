"""Records of what the proxy did to one exchange: the `mutations` JSON column of an exchange row, and how to read it.

A record is a frozen dataclass subclassing MutationRecord, declared by whoever makes it (each mutation kind in its
own module, addons/mutations/<kind>.py). Nothing here knows any kind: a record's JSON is derived from its typed
fields, the same rule for every record, so the writer and the reader cannot drift apart and adding a kind never
edits this file.

    written  {"kind": KIND, then each field in declaration order}; a field with a default is left out while it
             holds that default (so a record writes exactly the JSON the proxy wrote before records were derived)
    named    the field's name in camelCase, a trailing underscore dropped (`after_bytes` -> "afterBytes", `as_` -> "as")
    read     each member must have its field's type (int is never a bool); an absent member takes the field's
             default, or None when the type admits None (Any admits any JSON value); unknown members are ignored,
             so a newer proxy's records still read; `valid()` states what the types cannot (a record's own rule)

A recording from elsewhere is untrusted input: `from_json` and `parse_mutation_record` never raise, and an object
no given class reads is an UnknownMutationRecord. The reader is handed the classes it means to read (the oracle
declares its own typed view of what it judges by): recordings/ imports no addon.

Each record names its ROLE, which says what it did to the exchange's messages:
request (the client's request was changed), result (the text of the answer was changed), delivery (the answer
arrived differently: later, or reframed), answer (the proxy answered itself), fault (the answer never arrived
whole), decision (a choice was made, nothing changed on the wire).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self, get_args, get_origin

Role = Literal["request", "result", "delivery", "answer", "fault", "decision"]
ROLES: tuple[Role, ...] = get_args(Role)

Check = Callable[[object], bool]  # whether a decoded JSON value has a field's type


@dataclass(frozen=True, slots=True)
class Member:
    """One field of a record as stored: its Python name, its JSON name, its type check and its default."""

    name: str
    json: str
    check: Check
    has_default: bool
    default: object

    def is_default(self, value: object) -> bool:
        return self.has_default and type(value) is type(self.default) and value == self.default


def json_name(field_name: str) -> str:
    """A field's member name: camelCase, a trailing underscore (a Python keyword's escape) dropped."""
    head, *rest = field_name.rstrip("_").split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)  # JSON has no booleans-as-numbers


def _literal(options: tuple[object, ...]) -> Check:
    return lambda value: any(type(value) is type(o) and value == o for o in options)


def _union(checks: tuple[Check, ...]) -> Check:
    return lambda value: any(check(value) for check in checks)


def _list_of(item: Check) -> Check:
    return lambda value: isinstance(value, list) and all(item(v) for v in value)


def _object_of(item: Check) -> Check:
    return lambda value: isinstance(value, dict) and all(isinstance(k, str) and item(v) for k, v in value.items())


_SCALARS: dict[object, Check] = {
    Any: lambda value: True,  # any JSON value, kept as it was sent
    int: _is_int,
    str: lambda value: isinstance(value, str),
    bool: lambda value: isinstance(value, bool),
    type(None): lambda value: value is None,
}


def type_check(annotation: object, where: str) -> Check:
    """The check for one field's type; a type JSON cannot carry back as it was is refused when the schema is built."""
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Literal:
        return _literal(args)
    if origin in (types.UnionType, typing.Union):
        return _union(tuple(type_check(arg, where) for arg in args))
    if origin is list and len(args) == 1:
        return _list_of(type_check(args[0], where))
    if origin is dict and len(args) == 2 and args[0] is str:
        return _object_of(type_check(args[1], where))
    raise TypeError(
        f"{where}: a record field must be int, str, bool, None, Any, a Literal, list[...], dict[str, ...] "
        f"or a union of them, not {annotation!r}"
    )


_SCHEMAS: dict[type, tuple[Member, ...]] = {}  # a cache of what the classes say, never a setting


def schema(cls: type[MutationRecord]) -> tuple[Member, ...]:
    """The stored members of a record class, derived once from its dataclass fields and their types."""
    if cls in _SCHEMAS:
        return _SCHEMAS[cls]
    hints = typing.get_type_hints(cls)
    members = []
    for f in dataclasses.fields(cls):
        where = f"{cls.__qualname__}.{f.name}"
        if json_name(f.name) == "kind":
            raise TypeError(f"{where}: 'kind' is the record's own member")
        has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        default = f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
        members.append(Member(f.name, json_name(f.name), type_check(hints[f.name], where), has_default, default))
    _SCHEMAS[cls] = tuple(members)
    return _SCHEMAS[cls]


_ABSENT = object()


@dataclass(frozen=True, slots=True)
class MutationRecord:
    """What the proxy did to one exchange. Subclasses are frozen dataclasses that set KIND and ROLE."""

    KIND: ClassVar[str]
    ROLE: ClassVar[Role]

    def __init_subclass__(cls) -> None:
        # no super(): slots=True rebuilds this class, so the zero-argument form would name the discarded one
        kind, role = getattr(cls, "KIND", None), getattr(cls, "ROLE", None)
        if not isinstance(kind, str) or not kind or role not in ROLES:
            raise TypeError(f"{cls.__qualname__}: a mutation record sets KIND (a name) and ROLE (one of {ROLES})")

    def valid(self) -> bool:
        """A record's own rule across its fields (the types say the rest); a stored record breaking it is unknown."""
        return True

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.KIND}
        for member in schema(type(self)):
            value = getattr(self, member.name)
            if not member.is_default(value):
                out[member.json] = value
        return out

    @classmethod
    def from_json(cls, obj: object) -> Self | None:
        """This record read from a stored object, or None when it is not one (never raises: untrusted input)."""
        if not isinstance(obj, Mapping):
            return None
        try:
            if obj.get("kind") != cls.KIND:
                return None
            values: dict[str, object] = {}
            for member in schema(cls):
                value = obj.get(member.json, _ABSENT)
                if value is _ABSENT:
                    if not member.has_default and not member.check(None):
                        return None
                    value = member.default if member.has_default else None
                elif not member.check(value):
                    return None
                values[member.name] = value
            record = cls(**values)
            return record if record.valid() else None
        except (TypeError, ValueError, KeyError, AttributeError, RecursionError):
            return None  # a Mapping from elsewhere may misbehave


@dataclass(frozen=True, slots=True, kw_only=True)
class UnknownMutationRecord:
    """A record the reader cannot read: a kind it was not given, or a known kind with members of the wrong shape."""

    ROLE: ClassVar[Role] = "decision"
    kind: str | None  # the kind it claims, if it names one as a string
    raw: object  # the JSON value as it was stored

    def to_json(self) -> object:
        return self.raw


def parse_mutation_record(
    obj: object, classes: Iterable[type[MutationRecord]]
) -> MutationRecord | UnknownMutationRecord:
    """Read one stored record as the first of `classes` of its kind that reads it; otherwise Unknown (never raises).

    A record that is already typed is returned as it is, so callers need not know whether it was parsed before.
    """
    if isinstance(obj, MutationRecord | UnknownMutationRecord):
        return obj
    for cls in classes:
        found = cls.from_json(obj)
        if found is not None:
            return found
    try:
        kind = obj.get("kind") if isinstance(obj, Mapping) else None
    except (TypeError, ValueError, KeyError, AttributeError):
        kind = None
    return UnknownMutationRecord(kind=kind if isinstance(kind, str) else None, raw=obj)


def parse_mutation_records(
    objs: object, classes: Iterable[type[MutationRecord]]
) -> tuple[MutationRecord | UnknownMutationRecord, ...]:
    """Every record of an exchange's mutations column (a non-list is one Unknown record)."""
    known = tuple(classes)
    if isinstance(objs, list | tuple):
        return tuple(parse_mutation_record(obj, known) for obj in objs)
    return (UnknownMutationRecord(kind=None, raw=objs),)
