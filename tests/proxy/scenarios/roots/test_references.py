"""The roots reference declarations: each check has a build that passes it and one that fails it, in 2026-07-28
and in a 2025 era, and the SDK drivers are declared with and without --root."""

from __future__ import annotations

from pathlib import Path

from backchannel.proxy.clients.toy_agent_roots import ROOTS_FLAWS
from backchannel.proxy.scenarios.roots.references import ERAS, REFERENCES

ROOT = Path(__file__).resolve().parents[4]


def test_every_roots_flaw_is_declared_in_2026_and_2025_with_its_flag():
    by_name = {ref.name: ref for ref in REFERENCES}
    for flaw in ROOTS_FLAWS:
        for name, era in ((f"toy-{flaw}", "2026-07-28"), (f"toy-{flaw}-2025-11-25", "2025-11-25")):
            assert by_name[name].era == era
            assert by_name[name].argv(ROOT)[3:] == ["roots", "--roots-flaw", flaw, "{url}"]


def test_the_careful_toy_and_both_drivers_are_declared_in_every_era():
    names = {ref.name for ref in REFERENCES}
    for stem in ("toy-careful", "py-sdk", "ts-sdk"):
        assert {f"{stem}{'' if era == '2026-07-28' else '-' + era}" for era in ERAS} <= names
    assert {"py-sdk-no-roots", "ts-sdk-no-roots-2025-11-25", "toy-no-roots-2025-11-25"} <= names


def test_the_drivers_expose_the_working_folder_and_add_a_folder_in_it():
    [py] = [ref for ref in REFERENCES if ref.name == "py-sdk-2025-11-25"]
    assert py.argv(ROOT)[-5:] == ["{url}", "--root", ".", "--add-root", "added"]
