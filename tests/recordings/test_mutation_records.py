"""The mutation records: JSON derived from typed fields, exactly the JSON the proxy has always written, and a reader
no recording can crash.

The records are declared by the kinds that make them (addons/mutations/); this file proves the generic rule on
records of its own, then on every declared record and every record of the committed recordings.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest

from backchannel.addons.mutations import records
from backchannel.addons.mutations.delay import DelayRecord
from backchannel.addons.mutations.disconnect import DisconnectRecord
from backchannel.addons.mutations.drop_result_type import DropResultTypeRecord
from backchannel.addons.mutations.error import ErrorRecord
from backchannel.addons.mutations.hold import HoldRecord
from backchannel.addons.mutations.inject_input_requests import (
    AnswerInputRequiredRecord,
    InjectDecisionRecord,
    InjectInputRequestsRecord,
    RejectRequestStateRecord,
)
from backchannel.addons.mutations.json_to_sse import JsonToSseRecord
from backchannel.addons.mutations.malformed import MalformedRecord
from backchannel.addons.mutations.truncate_sse import TruncateSseRecord
from backchannel.recordings.mutation_records import (
    MutationRecord,
    Role,
    UnknownMutationRecord,
    json_name,
    parse_mutation_record,
    parse_mutation_records,
    schema,
)

CLASSES = tuple(records().values())  # every record a registered kind declares

REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference"

# each record with the JSON the proxy wrote for it before records were typed (key order included)
TODAYS_JSON: list[tuple[MutationRecord, str]] = [
    (
        InjectDecisionRecord(index=0, protocol_version="2026-07-28", chosen="elicitation"),
        '{"kind":"inject-decision","index":0,"protocolVersion":"2026-07-28","chosen":"elicitation"}',
    ),
    (
        InjectDecisionRecord(index=1, protocol_version=None, chosen=None, reason="legacy-era"),
        '{"kind":"inject-decision","index":1,"protocolVersion":null,"chosen":null,"reason":"legacy-era"}',
    ),
    (
        InjectDecisionRecord(index=0, protocol_version="v", chosen="sampling", out_of_spec=True, reason="why"),
        '{"kind":"inject-decision","index":0,"protocolVersion":"v","chosen":"sampling","outOfSpec":true,"reason":"why"}',
    ),
    (
        InjectInputRequestsRecord(index=0, request_state="bc1.x.y"),
        '{"kind":"inject-input-requests","index":0,"requestState":"bc1.x.y"}',
    ),
    (
        DropResultTypeRecord(index=0, removed='"resultType":"complete",', start=30, end=54),
        '{"kind":"drop-result-type","index":0,"removed":"\\"resultType\\":\\"complete\\",","start":30,"end":54}',
    ),
    (DropResultTypeRecord(index=2, removed=None), '{"kind":"drop-result-type","index":2,"removed":null}'),
    (
        AnswerInputRequiredRecord(input_responses={"q": {"action": "accept"}}, request_state="bc1.s"),
        '{"kind":"answer-input-required","inputResponses":{"q":{"action":"accept"}},"requestState":"bc1.s"}',
    ),
    (RejectRequestStateRecord(reason="stale"), '{"kind":"reject-request-state","reason":"stale"}'),
    (ErrorRecord(index=0, status=400, code=-32021), '{"kind":"error","index":0,"status":400,"code":-32021}'),
    (HoldRecord(index=0, as_="sse", ms=500), '{"kind":"hold","index":0,"as":"sse","ms":500}'),
    (HoldRecord(index=1, as_="json", ms=0), '{"kind":"hold","index":1,"as":"json","ms":0}'),
    (JsonToSseRecord(index=0), '{"kind":"json-to-sse","index":0}'),
]
NEW_KINDS: list[MutationRecord] = [
    DelayRecord(index=0, where="between-events", ms=200),
    DisconnectRecord(index=1, where="body", after_bytes=12, sent=12),
    DisconnectRecord(index=0, where="before-response", after_bytes=None, sent=0),
    MalformedRecord(index=0, shape="wrong-id"),
    TruncateSseRecord(index=0, event=3),
]


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize(("record", "text"), TODAYS_JSON, ids=lambda v: getattr(v, "KIND", ""))
def test_each_record_writes_exactly_the_json_the_proxy_always_wrote_and_reads_back_equal(record, text):
    assert _compact(record.to_json()) == text
    assert parse_mutation_record(json.loads(text), CLASSES) == record


@pytest.mark.parametrize("record", NEW_KINDS, ids=lambda r: r.KIND)
def test_the_new_fault_kinds_read_back_equal(record):
    assert parse_mutation_record(json.loads(_compact(record.to_json())), CLASSES) == record


def test_every_record_kind_has_a_class_and_a_role():
    kinds = {r.KIND for r, _ in TODAYS_JSON} | {r.KIND for r in NEW_KINDS}
    assert kinds == set(records())
    roles = {r.KIND: r.ROLE for r, _ in TODAYS_JSON} | {r.KIND: r.ROLE for r in NEW_KINDS}
    assert [k for k, role in roles.items() if role == "result"] == [
        "inject-input-requests",
        "drop-result-type",
        "malformed",
    ]
    assert {k for k, role in roles.items() if role == "delivery"} == {"hold", "json-to-sse", "delay"}
    assert {k for k, role in roles.items() if role == "request"} == {"answer-input-required"}


def _reference_records() -> Iterator[tuple[str, Mapping[str, Any], str]]:
    for path in sorted(REFERENCE.glob("*.sqlite")):
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            for (column,) in conn.execute("SELECT mutations FROM exchanges WHERE mutations IS NOT NULL"):
                for obj in json.loads(column):
                    yield path.stem, obj, _compact(obj)
        finally:
            conn.close()


def test_every_record_in_the_committed_recordings_reads_as_its_kind_and_writes_back_byte_for_byte():
    seen = 0
    for name, obj, text in _reference_records():
        record = parse_mutation_record(obj, CLASSES)
        assert not isinstance(record, UnknownMutationRecord), (name, obj)
        assert _compact(record.to_json()) == text, name
        seen += 1
    assert seen > 0, "the reference recordings hold mutation records"


HOSTILE: list[Any] = [
    None,
    1,
    "drop-result-type",
    [],
    [{"kind": "error"}],
    {},
    {"kind": 1},
    {"kind": None},
    {"kind": "explode", "index": 0},
    {"kind": "inject-decision"},
    {"kind": "inject-decision", "index": "0", "chosen": None},
    {"kind": "inject-decision", "index": True, "chosen": None},
    {"kind": "inject-decision", "index": 0, "chosen": 7},
    {"kind": "inject-decision", "index": 0, "chosen": None, "outOfSpec": "yes"},
    {"kind": "inject-decision", "index": 0, "chosen": None, "reason": ["x"]},
    {"kind": "drop-result-type", "index": 0, "removed": "x", "start": "a", "end": 1},
    {"kind": "drop-result-type", "index": 0, "removed": 5, "start": 1, "end": 2},
    {"kind": "drop-result-type", "index": 0, "removed": "x"},
    {"kind": "drop-result-type", "index": 1.5, "removed": None},
    {"kind": "inject-input-requests", "index": 0, "requestState": None},
    {"kind": "answer-input-required", "inputResponses": {}},
    {"kind": "reject-request-state", "reason": 3},
    {"kind": "error", "index": 0, "status": "400", "code": -1},
    {"kind": "hold", "index": 0, "as": "xml", "ms": 1},
    {"kind": "hold", "index": 0, "as": "sse", "ms": 1e400},
    {"kind": "json-to-sse"},
    {"kind": "delay", "index": 0, "where": "sometime", "ms": 1},
    {"kind": "disconnect", "index": 0, "where": "body", "afterBytes": "12", "sent": 0},
    {"kind": "disconnect", "index": 0, "where": "elsewhere", "afterBytes": 1, "sent": 0},
    {"kind": "malformed", "index": 0, "shape": None},
    {"kind": "truncate-sse", "index": 0, "event": -0.5},
    {"kind": "error", "index": [0], "status": 400, "code": 1},
]


@pytest.mark.parametrize("obj", HOSTILE, ids=repr)
def test_a_hostile_record_is_unknown_and_never_raises(obj):
    record = parse_mutation_record(obj, CLASSES)
    assert isinstance(record, UnknownMutationRecord)
    assert record.to_json() is obj
    assert record.kind == (obj.get("kind") if isinstance(obj, dict) and isinstance(obj.get("kind"), str) else None)


def test_a_mapping_that_misbehaves_is_unknown_too():
    class Exploding(dict):
        def get(self, key, default=None):
            if key == "kind":
                return "error"
            raise KeyError(key)

    assert isinstance(parse_mutation_record(Exploding(), CLASSES), UnknownMutationRecord)


def test_a_mutations_column_that_is_not_a_list_is_one_unknown_record():
    assert parse_mutation_records({"kind": "error"}, CLASSES) == (
        UnknownMutationRecord(kind=None, raw={"kind": "error"}),
    )
    assert parse_mutation_records([{"kind": "json-to-sse", "index": 0}, 7], CLASSES) == (
        JsonToSseRecord(index=0),
        UnknownMutationRecord(kind=None, raw=7),
    )


def test_unknown_members_are_ignored_so_a_newer_proxy_s_records_still_read():
    assert parse_mutation_record({"kind": "json-to-sse", "index": 0, "extra": [1]}, CLASSES) == JsonToSseRecord(index=0)


def test_a_record_that_is_already_typed_reads_as_itself():
    record = TruncateSseRecord(index=0, event=1)
    assert parse_mutation_record(record, ()) is record
    unknown = UnknownMutationRecord(kind=None, raw=[])
    assert parse_mutation_record(unknown, CLASSES) is unknown


# ---------------------------------------------------------------------------------------------- the generic rule


@dataclass(frozen=True, slots=True, kw_only=True)
class SampleRecord(MutationRecord):
    """A record of this test's own: every type the rule reads, with and without defaults."""

    KIND: ClassVar[str] = "sample"
    ROLE: ClassVar[Role] = "fault"
    index: int
    at_byte: int | None
    as_: Literal["json", "sse"]
    seen: Any
    tags: list[str]
    counts: dict[str, int]
    loud: bool = False
    note: str | None = None


def test_a_record_s_json_is_derived_from_its_fields_in_order_with_defaults_left_out():
    record = SampleRecord(index=1, at_byte=None, as_="sse", seen={"a": [1]}, tags=["x"], counts={"n": 2})
    assert _compact(record.to_json()) == (
        '{"kind":"sample","index":1,"atByte":null,"as":"sse","seen":{"a":[1]},"tags":["x"],"counts":{"n":2}}'
    )
    loud = SampleRecord(index=1, at_byte=3, as_="json", seen=None, tags=[], counts={}, loud=True, note="n")
    assert loud.to_json()["loud"] is True and loud.to_json()["note"] == "n"
    for each in (record, loud):
        assert SampleRecord.from_json(json.loads(_compact(each.to_json()))) == each
    assert [m.json for m in schema(SampleRecord)] == ["index", "atByte", "as", "seen", "tags", "counts", "loud", "note"]
    assert json_name("protocol_version") == "protocolVersion" and json_name("as_") == "as"


def test_an_absent_member_takes_its_default_or_none_when_its_type_admits_none_and_is_missing_otherwise():
    minimal = {"kind": "sample", "index": 0, "as": "json", "tags": [], "counts": {}}
    assert SampleRecord.from_json(minimal) == SampleRecord(
        index=0, at_byte=None, as_="json", seen=None, tags=[], counts={}
    )
    for required in ("index", "as", "tags", "counts"):
        assert SampleRecord.from_json({k: v for k, v in minimal.items() if k != required}) is None


@pytest.mark.parametrize(
    ("member", "value"),
    [
        ("index", True),
        ("index", 1.0),
        ("atByte", "3"),
        ("as", "xml"),
        ("tags", ["x", 1]),
        ("tags", "x"),
        ("counts", {"n": "2"}),
        ("counts", [["n", 2]]),
        ("loud", 1),
        ("loud", None),
        ("note", 7),
        ("kind", "other"),
    ],
)
def test_a_member_of_the_wrong_type_makes_the_record_unreadable(member, value):
    obj = {"kind": "sample", "index": 0, "as": "json", "tags": [], "counts": {}, member: value}
    assert SampleRecord.from_json(obj) is None
    assert isinstance(parse_mutation_record(obj, (SampleRecord,)), UnknownMutationRecord)


def test_a_record_whose_own_rule_fails_is_unreadable():
    assert DropResultTypeRecord.from_json({"kind": "drop-result-type", "index": 0, "removed": "x"}) is None
    assert DropResultTypeRecord.from_json({"kind": "drop-result-type", "index": 0, "removed": None}) is not None


def test_a_reader_reads_only_the_kinds_it_was_given():
    obj = {"kind": "json-to-sse", "index": 0}
    assert parse_mutation_record(obj, (SampleRecord,)) == UnknownMutationRecord(kind="json-to-sse", raw=obj)


def test_a_record_class_without_a_kind_and_a_role_or_with_a_type_json_cannot_carry_is_refused():
    with pytest.raises(TypeError, match="sets KIND"):

        @dataclass(frozen=True, slots=True)
        class Nameless(MutationRecord):
            ROLE: ClassVar[Role] = "fault"

    @dataclass(frozen=True, slots=True)
    class Tupled(MutationRecord):
        KIND: ClassVar[str] = "tupled"
        ROLE: ClassVar[Role] = "fault"
        pair: tuple[int, int]

    with pytest.raises(TypeError, match=r"Tupled\.pair: a record field must be"):
        schema(Tupled)
