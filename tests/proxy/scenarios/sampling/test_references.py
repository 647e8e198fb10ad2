"""The sampling reference declarations: the careful build in three eras, each flaw in two, the drivers with and
without a stand-in model."""

from pathlib import Path

from backchannel.proxy.clients.toy_agent_sampling import SAMPLING_FLAWS
from backchannel.proxy.scenarios.sampling.references import REFERENCES, REPLY

ROOT = Path(__file__).resolve().parents[4]


def test_every_flaw_is_declared_in_2026_and_2025_11_25_answered_at_its_prompts():
    by_name = {ref.name: ref for ref in REFERENCES}
    for flaw in SAMPLING_FLAWS:
        for name, era in ((f"toy-{flaw}", "2026-07-28"), (f"toy-{flaw}-2025-11-25", "2025-11-25")):
            ref = by_name[name]
            assert ref.era == era and ref.tty is not None and ref.tty.answers
            assert ref.argv(ROOT)[3:] == ["sampling", "--sampling-flaw", flaw, "{url}"]


def test_the_drivers_with_a_stand_in_model_run_in_every_era():
    eras = {ref.era for ref in REFERENCES if ref.name.startswith(("py-sdk-reply", "ts-sdk-reply"))}
    assert eras == {"2026-07-28", "2025-11-25", "2025-06-18"}
    py = next(ref for ref in REFERENCES if ref.name == "py-sdk-reply")
    assert py.argv(ROOT)[-2:] == ["--sampling-reply", REPLY]
