"""The kind registry and the base every kind builds on; a kind is one module, its records included."""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from backchannel.addons import mutations
from backchannel.addons.mutations import kinds, records
from backchannel.addons.mutations.base import (
    DeliveryStep,
    EndStep,
    HeadersStep,
    MutationKind,
    PlanError,
    RequestStep,
    one_of,
    whole,
)
from backchannel.addons.plan import parse_plan
from backchannel.recordings import mutation_records
from backchannel.recordings.mutation_records import MutationRecord, parse_mutation_record, schema
from tests.addons.conftest import CALL, CALLS, RESULT, Rig
from tests.addons.mutations.conftest import body_json
from tests.addons.mutations.conftest import records as stored_records

SAMPLES = {
    "delay": {"ms": 10},
    "disconnect": {},
    "drop-result-type": {},
    "error": {"error": {"code": -1, "message": "no"}},
    "hold": {},
    "inject-input-requests": {"inputRequests": {"q": {"method": "elicitation/create"}}},
    "json-to-sse": {},
    "malformed": {},
    "truncate-sse": {},
}


def test_every_module_of_the_package_that_exports_a_kind_is_registered_under_its_name():
    modules = [info.name for info in pkgutil.iter_modules(mutations.__path__)]
    exported = {getattr(importlib.import_module(f"{mutations.__name__}.{name}"), "KIND", None) for name in modules} - {
        None
    }
    assert set(kinds().values()) == exported
    assert all(name == cls.NAME for name, cls in kinds().items())
    assert list(kinds()) == sorted(kinds(), key=lambda n: n.replace("-", "_")), "module-name order"


def test_every_record_a_kind_declares_is_a_mutation_record_declared_beside_it_whose_json_rule_derives():
    declared = [record for kind in kinds().values() for record in kind.RECORDS]
    assert declared and len({r.KIND for r in declared}) == len(declared)
    assert set(records().values()) == set(declared)
    for record in declared:
        assert issubclass(record, MutationRecord)
        assert record.__module__.startswith(f"{mutations.__name__}."), "declared beside its kind"
        assert schema(record)  # every field has a type JSON carries back as it was


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_kind_parses_its_members_into_a_frozen_value_that_describes_itself_in_one_line(name):
    kind = kinds()[name].parse(SAMPLES[name])
    assert isinstance(kind, MutationKind)
    line = kind.describe()
    assert line and "\n" not in line
    assert type(kind).__dataclass_params__.frozen and hasattr(type(kind), "__slots__")
    assert kinds()[name].parse(SAMPLES[name]) == kind


def test_the_base_kind_does_nothing_at_any_step():
    base = MutationKind()
    step = RequestStep(request={}, records=[])
    assert base.answer(0, {}) is None
    assert base.on_request(0, step) is True and step.records == [] and step.relay is None
    headers = HeadersStep(sse=True, records=[])
    base.on_headers(0, headers)
    assert (headers.kill, headers.cut_after, headers.hold_events) == (False, None, False)
    delivery = DeliveryStep(records=[])
    base.on_delivery(0, delivery)
    assert (delivery.wait_s, delivery.to_sse) == (0.0, False)
    end = EndStep(records=[], sent=3)
    base.on_end(0, end)
    assert end.kill is False


def test_whole_numbers_are_checked_with_the_field_named():
    assert whole({"ms": 5}, "ms", 0, minimum=0) == 5
    assert whole({}, "ms", 7, minimum=0) == 7
    for bad in (-1, 1.5, True, "3", None):
        with pytest.raises(PlanError, match=r"^ms must be a whole number >= 0$"):
            whole({"ms": bad}, "ms", 0, minimum=0)
    with pytest.raises(PlanError, match=r"^ms is required"):
        whole({}, "ms", None, minimum=0)


def test_a_choice_among_strings_names_every_option():
    assert one_of({}, "as", ("json", "sse"), "json") == "json"
    assert one_of({"as": "sse"}, "as", ("json", "sse"), "json") == "sse"
    with pytest.raises(PlanError, match=r"^as must be 'json' or 'sse'$"):
        one_of({"as": "xml"}, "as", ("json", "sse"), "json")
    with pytest.raises(PlanError, match=r"^where must be 'a', 'b' or 'c'$"):
        one_of({"where": 1}, "where", ("a", "b", "c"), "a")


# ---------------------------------------------------------------------------------------------- a kind is one file

TEAPOT = '''"""teapot: a kind only this test knows, written as a newcomer would, to show a kind is one module."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self

from backchannel.addons.mutations.base import Answer, MutationKind, PlanError, one_of, whole
from backchannel.recordings.mutation_records import MutationRecord, Role


@dataclass(frozen=True, slots=True, kw_only=True)
class TeapotRecord(MutationRecord):
    KIND: ClassVar[str] = "teapot"
    ROLE: ClassVar[Role] = "answer"
    index: int
    status: int
    pour: Literal["short", "stout"]
    note: str | None = None
    arguments: list[str]


@dataclass(frozen=True, slots=True)
class Teapot(MutationKind):
    NAME: ClassVar[str] = "teapot"
    RECORDS: ClassVar[tuple[type[MutationRecord], ...]] = (TeapotRecord,)
    status: int = 418
    pour: Literal["short", "stout"] = "short"
    note: str | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any]) -> Self:
        note = raw.get("note")
        if note is not None and not isinstance(note, str):
            raise PlanError("note must be a string")
        status = whole(raw, "status", 418, minimum=100)
        return cls(status=status, pour=one_of(raw, "pour", ("short", "stout"), "short"), note=note)

    def describe(self) -> str:
        return f"answer HTTP {self.status}: a {self.pour} teapot"

    def answer(self, index: int, request: dict[str, Any]) -> Answer | None:
        params = request.get("params")
        arguments = params.get("arguments") if isinstance(params, dict) else None
        error = {"code": -32000, "message": "I'm a teapot"}
        body = json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "error": error}).encode()
        names = sorted(arguments) if isinstance(arguments, dict) else []
        record = TeapotRecord(index=index, status=self.status, pour=self.pour, note=self.note, arguments=names)
        return Answer(self.status, body, record)


KIND = Teapot
'''


@pytest.fixture
def teapot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The teapot kind as one new module on the package's search path, registered afresh; all undone after."""
    folder = tmp_path / "kinds"
    folder.mkdir()
    (folder / "teapot.py").write_text(TEAPOT, encoding="utf-8")
    name = f"{mutations.__name__}.teapot"
    monkeypatch.setattr(mutations, "__path__", [*mutations.__path__, str(folder)])
    monkeypatch.setattr(mutations, "_KINDS", None)
    try:
        kinds()
        yield sys.modules[name]
    finally:
        sys.modules.pop(name, None)
        if hasattr(mutations, "teapot"):
            delattr(mutations, "teapot")


def test_a_kind_added_as_one_module_is_registered_parsed_applied_and_its_record_reads_back(teapot, rig: Rig):
    # registered: found by the registry, its records with it
    assert kinds()["teapot"] is teapot.Teapot and records()["teapot"] is teapot.TeapotRecord
    # parsed: the plan names it like any other kind, and its own errors name the field
    plan = parse_plan({"mutations": [{"kind": "teapot", "match": CALLS, "pour": "stout"}]})
    assert plan.mutations[0].params == teapot.Teapot(pour="stout")
    with pytest.raises(PlanError, match=r"^plan mutation 0 \(teapot\): pour must be 'short' or 'stout'$"):
        parse_plan({"mutations": [{"kind": "teapot", "pour": "tall"}]})
    # applied: through the Rewriter, nothing upstream
    run_id = rig.runs.add({"mutations": [{"kind": "teapot", "match": CALLS, "pour": "stout"}]})
    flow = rig.exchange(run_id, CALL, RESULT)
    assert flow.response is not None and flow.response.status_code == 418
    assert body_json(flow)["error"]["message"] == "I'm a teapot"
    assert rig.recording().exchanges[0].forwarded is False
    # its record: JSON derived from its typed fields, read back typed by the generic reader
    [[stored]] = stored_records(rig)
    assert json.dumps(stored, separators=(",", ":")) == (
        '{"kind":"teapot","index":0,"status":418,"pour":"stout","arguments":[]}'
    )
    expected = teapot.TeapotRecord(index=0, status=418, pour="stout", arguments=[])
    assert parse_mutation_record(stored, records().values()) == expected
    assert teapot.TeapotRecord.from_json({**stored, "pour": "tall"}) is None
    # and recordings/ never heard of it
    sources = Path(mutation_records.__file__).resolve().parent.glob("*.py")
    assert not any("teapot" in source.read_text(encoding="utf-8") for source in sources)


def test_the_registry_is_as_it_was_once_the_teapot_is_gone():
    assert "teapot" not in kinds() and "teapot" not in records()
