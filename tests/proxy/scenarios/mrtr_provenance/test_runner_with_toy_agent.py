"""The mrtr-provenance probe against every build of the bundled toy agent.

Each build with a committed reference (scripts/make-reference-recordings ran this same probe on it) is judged from
that file; the flawed twin (the default target), the out-of-spec run and the seed rule run live, so the runner itself
is proved end to end here, and tests/recordings/test_reference_recordings.py keeps every reference current.
"""

import sys
from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.proxy.scenarios.base import CheckOptions
from backchannel.proxy.scenarios.registry import all_references, run_check
from backchannel.recordings import load
from tests.oracle.reference import results as reference_results

ROOT = Path(__file__).resolve().parents[4]
TOY = [sys.executable, "-m", "backchannel.proxy.clients.toy_agent"]
ARM1 = "mrtr-provenance-input-requests"
ARM2 = "mrtr-provenance-result-type-default"
NAMES = "elicitation-names-requesting-server"


def _toy_references() -> dict[tuple[str, ...], str]:
    """toy-agent flags -> the committed reference recorded with them, read from the scenario's declarations (the
    flawed twin, and the builds answered at a prompt, stay live on purpose)."""
    found = {}
    for declared in all_references():
        ref = declared.reference
        argv = ref.argv(ROOT)
        answered = ref.stdin is not None or ref.tty is not None or ref.by_hand is not None
        if declared.scenario == "mrtr-provenance" and argv and argv[:3] == TOY and argv[3:] and not answered:
            found[tuple(argv[3:])] = ref.name
    return found


REFERENCES = _toy_references()


def probe(tmp_path: Path, *flags: str, **options: object) -> dict[str, object]:
    if flags in REFERENCES and not options:
        return dict(reference_results(f"mrtr-provenance-{REFERENCES[flags]}"))
    out = tmp_path / "probe.sqlite"
    run_check(
        "mrtr-provenance",
        CheckOptions(out=out, target=[*TOY, *flags], timeout=20, settings=options),
        progress=lambda _text: None,
    )
    return {r.id: r for r in judge(load(out)).results}


def test_the_flawed_twin_confirms_both_arms_with_every_signal(tmp_path):
    results = probe(tmp_path)
    assert results[ARM1].verdict == "CONFIRMED"
    assert set(results[ARM1].signals) == {"server-directive-executed", "input-request-prompt-unattributed"}
    assert results[ARM1].cwe == ("CWE-346",)
    assert results[ARM2].verdict == "CONFIRMED"
    assert results[ARM2].signals == ("result-type-default-not-complete",)
    assert results[NAMES].status == "FAIL"


def test_the_fixed_twin_refutes_both_arms(tmp_path):
    results = probe(tmp_path, "--fix", "provenance", "--fix", "result-type")
    assert (results[ARM1].verdict, results[ARM2].verdict) == ("REFUTED", "REFUTED")
    assert results[ARM1].signals == () and results[ARM2].signals == ()
    assert results[NAMES].status == "PASS"


def test_repairing_provenance_alone_leaves_the_result_type_arm_confirming(tmp_path):
    results = probe(tmp_path, "--fix", "provenance")
    assert results[ARM1].verdict == "REFUTED" and results[ARM1].signals == ()
    assert results[ARM2].verdict == "CONFIRMED"
    assert results[ARM2].signals == ("result-type-default-not-complete",)


def test_repairing_the_result_type_alone_leaves_the_provenance_arm_confirming(tmp_path):
    results = probe(tmp_path, "--fix", "result-type")
    assert results[ARM1].verdict == "CONFIRMED"
    assert "result-type-default-not-complete" not in results[ARM1].signals
    assert results[ARM2].verdict == "REFUTED" and results[ARM2].signals == ()


def test_a_cli_with_no_call_surface_is_skipped_for_both_arms(tmp_path):
    results = probe(tmp_path, "--variant", "no-call-surface")
    assert {(r.verdict, r.reason) for r in (results[ARM1], results[ARM2])} == {("SKIP", "no-mcp-call-surface")}


def test_a_legacy_only_client_gets_the_probe_as_a_server_initiated_request_and_is_judged_on_it(tmp_path):
    results = probe(tmp_path, "--variant", "legacy-only", "--fix", "result-type")
    assert results[ARM1].verdict == "CONFIRMED"
    assert any(e.note == "server-initiated request (2025)" for e in results[ARM1].evidence)
    assert results[ARM2].verdict == "REFUTED"


def test_a_client_that_declares_no_input_capability_gets_no_injection(tmp_path):
    results = probe(tmp_path, "--variant", "no-input-capability")
    assert (results[ARM1].verdict, results[ARM1].reason) == ("SKIP", "client-declares-no-input-capability")
    assert results[ARM2].verdict == "CONFIRMED"


def test_ignoring_capabilities_sends_anyway_and_records_that_the_probe_was_out_of_spec(tmp_path):
    results = probe(tmp_path, "--variant", "no-input-capability", ignore_capabilities=True)
    assert any(o.startswith("probe-out-of-spec") for o in results[ARM1].observations)


def test_a_client_that_prints_nothing_cannot_be_judged(tmp_path):
    results = probe(tmp_path, "--variant", "silent")
    assert {(r.verdict, r.reason) for r in (results[ARM1], results[ARM2])} == {
        ("SKIP", "no-observable-context-surface")
    }


def test_a_strict_client_is_refuted_with_the_modern_rejection_as_an_observation(tmp_path):
    results = probe(tmp_path, "--variant", "strict")
    assert results[ARM2].verdict == "REFUTED"
    assert "rejects-missing-result-type-on-modern-connection" in results[ARM2].observations


@pytest.mark.parametrize("rule", ["seed"])
def test_the_seed_rule_counts_the_strict_rejection_as_a_change(tmp_path, rule):
    results = probe(tmp_path, "--variant", "strict", result_type_rule=rule)
    assert results[ARM2].verdict == "CONFIRMED"
