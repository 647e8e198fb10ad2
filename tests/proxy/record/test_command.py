"""`record`'s own parsing: the mutation plan file, checked before anything starts."""

import json

import pytest

from backchannel.addons.plan import PlanError
from backchannel.proxy.record.command import load_plan


def test_no_plan_is_the_empty_plan_and_a_plan_file_is_read_and_checked(tmp_path):
    assert load_plan(None) == {}
    good = tmp_path / "plan.json"
    good.write_text(json.dumps({"mutations": []}), encoding="utf-8")
    assert load_plan(good) == {"mutations": []}


def test_a_file_that_is_not_json_or_not_a_plan_is_a_plan_error_naming_it(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(PlanError, match="bad.json is not JSON"):
        load_plan(bad)
    bad.write_text(json.dumps({"mutations": [{"kind": "no-such-kind"}]}), encoding="utf-8")
    with pytest.raises(PlanError):
        load_plan(bad)
