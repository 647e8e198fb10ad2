"""The compiled schema reading says yes only where jsonschema says yes: on every message the committed recordings
hold, in the definitions judging asks about, and on broken variants of each."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from backchannel.oracle import era_schema, judge, wire_schema
from backchannel.oracle.era_schema import ERAS, EraSchema, schema
from backchannel.oracle.schema_fast import compiled
from backchannel.oracle.uri import is_uri
from backchannel.recordings import load

from .reference import REFERENCE

Asked = tuple[str, str, Any]  # era, definition, value


@pytest.fixture(scope="module")
def asked() -> list[Asked]:
    """Every (era, definition, value) that judging the committed recordings asks the schemas about."""
    seen: dict[str, Asked] = {}
    original = EraSchema.accepts

    def noting(self: EraSchema, name: str, value: Any) -> bool:
        seen.setdefault(repr((self.era, name, value)), (self.era, name, copy.deepcopy(value)))
        return original(self, name, value)

    era_schema._errors_of_text.cache_clear()  # answers remembered by earlier tests would hide their questions
    wire_schema._errors_of_text.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(EraSchema, "accepts", noting)
        for path in sorted(REFERENCE.glob("*.sqlite")):
            judge(load(path))
    era_schema._errors_of_text.cache_clear()
    wire_schema._errors_of_text.cache_clear()
    return list(seen.values())


def _same(era: str, name: str, value: Any) -> tuple[bool, bool]:
    spec = schema(era)
    return spec.accepts(name, value), spec.validator(name).is_valid(value)


def test_every_recorded_message_reads_the_same_both_ways(asked):
    assert len(asked) > 1000 and {era for era, _, _ in asked} == set(ERAS)
    differ = [(era, name, value) for era, name, value in asked if len(set(_same(era, name, value))) > 1]
    assert differ == []
    assert any(not spec_valid for spec_valid in (_same(*one)[1] for one in asked))  # invalid ones are among them


def _broken(value: Any, depth: int = 0) -> Iterator[Any]:
    """Variants of `value` with one thing wrong: a member dropped, a value of the wrong type, a URL that is not one."""
    if depth > 4:
        return
    if isinstance(value, dict):
        for key in value:
            yield {k: v for k, v in value.items() if k != key}
            for wrong in _wrong_types(value[key], key):
                yield {**value, key: wrong}
            for inner in _broken(value[key], depth + 1):
                yield {**value, key: inner}
    elif isinstance(value, list):
        for i, item in enumerate(value):
            for inner in _broken(item, depth + 1):
                yield [*value[:i], inner, *value[i + 1 :]]


def _wrong_types(value: Any, key: str) -> Iterator[Any]:
    if isinstance(value, str):
        yield 7
        if "ur" in key.lower():
            yield "not a uri"
            yield "/relative"
    elif isinstance(value, bool):
        yield "true"
    elif isinstance(value, int | float):
        yield str(value)
        yield 1.5
    elif isinstance(value, dict):
        yield []
    elif isinstance(value, list):
        yield {}
    elif value is None:
        yield 0


def test_broken_variants_of_every_recorded_message_read_the_same_both_ways(asked):
    tried, refused, differ = 0, 0, []
    for era, name, value in asked:
        for variant in _every_nth(_broken(value), 6):
            quick, full = _same(era, name, variant)
            tried, refused = tried + 1, refused + (not full)
            if quick != full:
                differ.append((era, name, variant))
    assert differ == []
    assert tried > 2000 and refused > tried // 4, (tried, refused)


def _every_nth(found: Iterator[Any], n: int) -> Iterator[Any]:
    # a spread of each message's variants (its first ones all break the same outer member), at most 4 of them
    return (variant for i, variant in enumerate(found) if i % n == 0 and i < 4 * n)


def test_the_quick_reading_checks_uris_as_jsonschema_does_and_leaves_other_formats_alone():
    accepts = compiled("$defs", schema("2026-07-28").defs, "Resource")
    good = {"uri": "file:///a.txt", "name": "a"}
    assert accepts(good)
    assert not accepts({**good, "uri": "a b"})
    assert not accepts({**good, "uri": "relative/path"})
    # jsonschema-rs's own uri check refuses a trailing newline, oracle/uri.py's accepts it: the override is in force
    assert accepts({**good, "uri": "http://x\n"}) and is_uri("http://x\n")
    blob = compiled("$defs", schema("2026-07-28").defs, "BlobResourceContents")
    assert blob({"uri": "file:///a", "blob": "not base64 at all!"})  # `format: byte` is not checked by either


def test_a_value_the_quick_reading_cannot_take_is_left_to_jsonschema():
    spec = schema("2026-07-28")
    lone = {"uri": "file:///\ud800", "name": "a"}  # a lone surrogate: JSON allows it, the uri check's hand-off not
    assert not spec.accepts("Resource", lone)  # raised inside, and said as "ask jsonschema"
    request = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": lone["uri"]}}
    problems = era_schema.message_errors("2026-07-28", request)
    assert "params/uri: 'file:///\\ud800' is not a 'uri' (ReadResourceRequest)" in problems  # jsonschema's own


# values JSON can carry that a Rust reading might take differently: bools for numbers, integral floats, integers past
# 64 bits, non-finite floats, lone surrogates deep inside; the quick reading may refuse more, never accept more
EDGES: tuple[tuple[str, Any], ...] = (
    ("JSONRPCRequest", {"jsonrpc": "2.0", "id": True, "method": "ping"}),
    ("JSONRPCRequest", {"jsonrpc": "2.0", "id": 1.0, "method": "ping"}),
    ("JSONRPCRequest", {"jsonrpc": "2.0", "id": 2**64 + 5, "method": "ping"}),
    ("JSONRPCRequest", {"jsonrpc": "2.0", "id": -(2**70), "method": "ping"}),
    ("JSONRPCRequest", {"jsonrpc": "2.0", "id": 1e400, "method": "ping"}),
    ("JSONRPCRequest", {"jsonrpc": "2.0", "id": float("nan"), "method": "ping"}),
    ("JSONRPCRequest", {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {"k": ["\udc00"]}}}),
    ("JSONRPCErrorResponse", {"jsonrpc": "2.0", "id": 1, "error": {"code": 2**64 - 32602, "message": "m"}}),
    ("JSONRPCErrorResponse", {"jsonrpc": "2.0", "id": 1, "error": {"code": True, "message": "m"}}),
    ("JSONRPCErrorResponse", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602.0, "message": "m"}}),
    ("Annotations", {"priority": 2**200}),
    ("Annotations", {"priority": True}),
    ("Annotations", {"priority": float("inf")}),
    ("Annotations", {"priority": float("nan")}),
    ("Annotations", {"priority": 1, "audience": ["user", False]}),
    ("Resource", {"uri": "file:///\ud800", "name": "a"}),
    ("Resource", {"uri": "file:///a", "name": "a", "size": 1.0}),
    ("Resource", {"uri": "file:///a", "name": "a", "size": 2**64}),
    ("Resource", {"uri": "file:///a", "name": "a", "size": 1.5}),
)


@pytest.mark.parametrize(("name", "value"), EDGES, ids=repr)
def test_an_edge_value_the_quick_reading_accepts_jsonschema_accepts_too(name, value):
    spec = schema("2026-07-28")
    assert not spec.accepts(name, value) or spec.validator(name).is_valid(value)


def test_the_edges_hold_both_answers():  # the table above would prove nothing if every value went one way
    spec = schema("2026-07-28")
    answers = {spec.validator(name).is_valid(value) for name, value in EDGES}
    assert answers == {True, False}


def test_a_validator_that_cannot_be_built_leaves_every_message_to_jsonschema(monkeypatch):
    import jsonschema_rs

    def broken(*args: Any, **kwargs: Any) -> None:
        raise TypeError("an API this version does not have")

    monkeypatch.setattr(jsonschema_rs, "Draft202012Validator", broken)
    accepts = compiled("$defs", schema("2026-07-28").defs, "Resource")
    assert accepts({"uri": "file:///a", "name": "a"}) is False
