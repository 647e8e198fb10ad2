"""Every registered check has its entry: a check without one, or an entry for no check, is named with the file."""

from dataclasses import replace

import pytest

from backchannel.oracle import all_checks
from backchannel.oracle.requirements import REQUIREMENTS_FILE, RequirementsError, load_requirements, traced


def test_every_registered_check_has_exactly_one_entry_and_every_entry_a_check():
    rows = traced(all_checks(), load_requirements())
    assert [row.check.id for row in rows] == sorted(all_checks())
    assert all(row.requirement is not None and row.requirement.check_id == row.check.id for row in rows)


def test_checks_without_an_entry_are_each_named_with_the_file_to_add_them_to():
    requirements = load_requirements()
    checks = dict(all_checks())
    entries = {k: v for k, v in requirements.entries.items() if k not in ("wire-schema-valid", "roots-file-uri")}
    with pytest.raises(RequirementsError) as caught:
        traced(checks, replace(requirements, entries=entries))
    assert str(caught.value) == (
        f"{REQUIREMENTS_FILE}: no entry for 2 registered check(s): roots-file-uri, wire-schema-valid; add a "
        f"[checks.<id>] table for each to {REQUIREMENTS_FILE} (quote and anchor, or unquoted saying why none)"
    )


def test_an_entry_for_no_registered_check_is_named():
    requirements = load_requirements()
    checks = {k: v for k, v in all_checks().items() if k != "roots-file-uri"}
    with pytest.raises(RequirementsError, match="entries for no registered check: roots-file-uri; remove them"):
        traced(checks, requirements)


def test_a_check_of_a_scenario_from_elsewhere_is_listed_without_an_entry():
    requirements = load_requirements()
    outsider = replace(all_checks()["roots-file-uri"], id="echo-once-called")
    outsider = replace(outsider, fn=_outside)
    rows = traced({**all_checks(), "echo-once-called": outsider}, requirements)
    assert [row.requirement for row in rows if row.check.id == "echo-once-called"] == [None]


def _outside() -> None:
    """Stands for a check function defined outside backchannel's own oracle package."""


_outside.__module__ = "elsewhere.oracle.checks.echo_once_called"


def test_a_check_that_shares_its_id_with_the_suite_cites_that_suite_check():
    requirements = load_requirements()
    suite_ids = {suite_id for ids in requirements.suite_releases.values() for suite_id in ids}
    for check_id in sorted(set(all_checks()) & suite_ids):
        assert check_id in [s.id for s in requirements.entries[check_id].suite], check_id
