"""The kind registry and the base every kind builds on."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

from backchannel.addons import mutations
from backchannel.addons.mutations import kinds
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
