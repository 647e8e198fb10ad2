"""The typed mutation records: exactly the JSON the proxy has always written, and a parser no recording can crash."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from backchannel.recordings.mutation_records import (
    RECORD_KINDS,
    AnswerInputRequiredRecord,
    DelayRecord,
    DisconnectRecord,
    DropResultTypeRecord,
    ErrorRecord,
    HoldRecord,
    InjectDecisionRecord,
    InjectInputRequestsRecord,
    JsonToSseRecord,
    MalformedRecord,
    MutationRecord,
    RejectRequestStateRecord,
    TruncateSseRecord,
    UnknownMutationRecord,
    parse_mutation_record,
    parse_mutation_records,
)

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
    assert parse_mutation_record(json.loads(text)) == record


@pytest.mark.parametrize("record", NEW_KINDS, ids=lambda r: r.KIND)
def test_the_new_fault_kinds_read_back_equal(record):
    assert parse_mutation_record(json.loads(_compact(record.to_json()))) == record


def test_every_record_kind_has_a_class_and_a_role():
    kinds = {r.KIND for r, _ in TODAYS_JSON} | {r.KIND for r in NEW_KINDS}
    assert kinds == set(RECORD_KINDS)
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
        record = parse_mutation_record(obj)
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
    record = parse_mutation_record(obj)
    assert isinstance(record, UnknownMutationRecord)
    assert record.to_json() is obj
    assert record.kind == (obj.get("kind") if isinstance(obj, dict) and isinstance(obj.get("kind"), str) else None)


def test_a_mapping_that_misbehaves_is_unknown_too():
    class Exploding(dict):
        def get(self, key, default=None):
            if key == "kind":
                return "error"
            raise KeyError(key)

    assert isinstance(parse_mutation_record(Exploding()), UnknownMutationRecord)


def test_a_mutations_column_that_is_not_a_list_is_one_unknown_record():
    assert parse_mutation_records({"kind": "error"}) == (UnknownMutationRecord(kind=None, raw={"kind": "error"}),)
    assert parse_mutation_records([{"kind": "json-to-sse", "index": 0}, 7]) == (
        JsonToSseRecord(index=0),
        UnknownMutationRecord(kind=None, raw=7),
    )


def test_unknown_members_are_ignored_so_a_newer_proxy_s_records_still_read():
    assert parse_mutation_record({"kind": "json-to-sse", "index": 0, "extra": [1]}) == JsonToSseRecord(index=0)


def test_a_record_that_is_already_typed_reads_as_itself():
    record = TruncateSseRecord(index=0, event=1)
    assert parse_mutation_record(record) is record
    unknown = UnknownMutationRecord(kind=None, raw=[])
    assert parse_mutation_record(unknown) is unknown
