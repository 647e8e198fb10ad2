"""The oracle's reading of the records it judges by is the writer's declaration, field for field."""

from __future__ import annotations

import dataclasses
import typing

import pytest

from backchannel.addons.mutations import drop_result_type, inject_input_requests
from backchannel.oracle.scenarios.mrtr_provenance import records
from backchannel.recordings.mutation_records import MutationRecord, schema

PAIRS: list[tuple[type[MutationRecord], type[MutationRecord]]] = [
    (records.InjectDecisionRecord, inject_input_requests.InjectDecisionRecord),
    (records.DropResultTypeRecord, drop_result_type.DropResultTypeRecord),
]
SAMPLES: list[MutationRecord] = [
    inject_input_requests.InjectDecisionRecord(index=0, protocol_version="2026-07-28", chosen="elicitation"),
    inject_input_requests.InjectDecisionRecord(
        index=1, protocol_version={"v": 1}, chosen="sampling", out_of_spec=True, reason="why"
    ),
    inject_input_requests.InjectDecisionRecord(index=2, protocol_version=None, chosen=None, reason="legacy-era"),
    drop_result_type.DropResultTypeRecord(index=0, removed='"resultType":"complete",', start=30, end=54),
    drop_result_type.DropResultTypeRecord(index=1, removed=None),
]
BROKEN = [
    {"kind": "drop-result-type", "index": 0, "removed": "x"},
    {"kind": "drop-result-type", "index": 0, "removed": "x", "start": 1},
    {"kind": "inject-decision", "index": 0, "chosen": None, "outOfSpec": "yes"},
]


def _fields(cls: type[MutationRecord]) -> list[tuple[str, object, object]]:
    hints = typing.get_type_hints(cls)
    return [(f.name, hints[f.name], f.default) for f in dataclasses.fields(cls)]


@pytest.mark.parametrize(("view", "writer"), PAIRS, ids=lambda c: c.KIND)
def test_each_record_the_oracle_reads_declares_the_writer_s_kind_role_fields_types_and_defaults(view, writer):
    assert (view.KIND, view.ROLE) == (writer.KIND, writer.ROLE)
    assert _fields(view) == _fields(writer)
    assert [m.json for m in schema(view)] == [m.json for m in schema(writer)]


@pytest.mark.parametrize("written", SAMPLES, ids=repr)
def test_the_oracle_reads_every_record_the_proxy_writes_with_the_same_values(written):
    view = next(v for v, w in PAIRS if isinstance(written, w))
    read = view.from_json(written.to_json())
    assert read is not None and dataclasses.asdict(read) == dataclasses.asdict(written)
    assert read.to_json() == written.to_json()


@pytest.mark.parametrize("obj", BROKEN, ids=repr)
def test_a_record_the_writer_would_refuse_the_oracle_refuses_too(obj):
    view, writer = next((v, w) for v, w in PAIRS if v.KIND == obj["kind"])
    assert view.from_json(obj) is None and writer.from_json(obj) is None
