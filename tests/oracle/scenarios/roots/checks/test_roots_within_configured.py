from backchannel.oracle.scenarios.roots.facts import configured, within
from tests.oracle.reference import recording, results

CHECK = "roots-within-configured"


def test_it_passes_roots_inside_the_labs_working_folder_in_every_era():
    for name in ("toy-careful", "toy-careful-2025-06-18", "py-sdk-2025-11-25", "ts-sdk", "ts-sdk-2025-06-18"):
        result = results(f"roots-{name}")[CHECK]
        assert result.status == "PASS", (name, result.message)


def test_the_whole_home_is_warn_with_the_list_as_evidence_never_fail():
    for name in ("roots-toy-expose-home", "roots-toy-expose-home-2025-11-25"):
        result = results(name)[CHECK]
        assert result.status == "WARN"
        assert "exposes the whole HOME" in result.message and "a person should look" in result.message
        assert any(e.note and e.note.startswith("roots given: [") for e in result.evidence)


def test_the_configured_folders_are_the_runs_facts():
    for run in recording("roots-toy-careful").runs:
        folders, home = configured(run)
        assert folders and all(f.endswith("/work") for f in folders)
        assert home is not None and home.endswith("/home")


def test_within_is_a_path_prefix_at_folder_boundaries():
    assert within("/lab/work", ["/lab/work"]) and within("/lab/work/added", ["/lab/work"])
    assert not within("/lab/workshop", ["/lab/work"]) and not within("/lab", ["/lab/work"])


def test_a_client_that_gives_no_roots_is_skipped():
    assert results("roots-py-sdk-no-roots-2025-11-25")[CHECK].status == "SKIP"
