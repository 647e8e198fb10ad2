"""Zero false findings across eras: every check states the eras it applies to, and a run of another era gets SKIP
`not-in-era` from it, never a verdict. Proved on committed real runs: a client correct by 2025 rules that would look
wrong by 2026 rules, and the reverse, each beside the same behaviour judged in the era where it is wrong."""

from collections.abc import Iterator

import pytest

from backchannel.oracle import all_checks, judge
from backchannel.oracle.era_gate import NOT_IN_ERA
from backchannel.oracle.model import ERAS, Check, Finding
from backchannel.oracle.registry import check
from backchannel.oracle.session.spoken import eras_by_run
from backchannel.recordings.model import Recording
from tests.oracle.reference import REFERENCE, recording, results, session_results

MODERN = "2026-07-28"
LEGACY = ("2025-06-18", "2025-11-25")


def _always_fails(rec: Recording) -> Iterator[Finding]:
    """Fails every run it is given, whatever it spoke (a check that holds every client to one era's rules)."""
    for run in rec.runs:
        yield Finding.failed("held to this check's era", run=run.id)


def _check(eras: tuple[str, ...]) -> Check:
    return Check(
        id="era-probe", scenario="session", level="MUST", spec="https://example.invalid", title="t", doc="d",
        fn=_always_fails, eras=eras,
    )  # fmt: skip


def test_every_check_states_one_or_more_of_the_three_eras():
    for found in all_checks().values():
        assert found.eras and set(found.eras) <= set(ERAS), found.id


def test_a_check_that_says_nothing_applies_to_2026_07_28_alone_so_it_can_never_judge_a_2025_run():
    @check("era-default-probe", scenario="nowhere", level="MUST", spec="https://example.invalid", title="t")
    def probe(rec: Recording) -> Iterator[Finding]:
        """A probe."""
        yield from ()

    from backchannel.oracle import registry

    assert registry._REGISTRY.pop("era-default-probe").eras == (MODERN,)


def test_an_era_that_is_not_one_of_the_three_is_refused_at_registration():
    with pytest.raises(ValueError, match="must name one or more of 2025-06-18, 2025-11-25, 2026-07-28"):
        check("era-bad-probe", scenario="x", level="MUST", spec="https://e.invalid", title="t", eras=("2024-11-05",))(
            _always_fails
        )


def test_a_2026_check_applied_to_a_2025_client_run_is_skipped_naming_the_era_never_failed():
    # the TypeScript SDK client against the Python SDK server, both at 2025-11-25 (no discover probe, no _meta)
    rec = recording("session-ts-sdk-vs-py-sdk-2025-11-25")
    for found in judge(rec, [_check((MODERN,))]).results:
        assert found.status == "SKIP" and found.reason == NOT_IN_ERA
        assert "2025-11-25" in found.message and "applies to 2026-07-28 only" in found.message


def test_a_2025_check_applied_to_a_2026_client_run_is_skipped_naming_the_era_never_failed():
    rec = recording("session-ts-sdk-vs-py-sdk-2026-07-28")
    for found in judge(rec, [_check(LEGACY)]).results:
        assert found.status == "SKIP" and found.reason == NOT_IN_ERA and "spoke 2026-07-28" in found.message


def test_a_check_applied_in_its_own_era_keeps_its_verdict():
    rec = recording("session-ts-sdk-vs-py-sdk-2025-11-25")
    assert {r.status for r in judge(rec, [_check(LEGACY)]).results} == {"FAIL"}


def test_a_2025_client_without_meta_or_result_type_answering_elicitation_as_a_request_is_not_failed():
    """The Python SDK driver forced into 2025-06-18 (check --era): its requests carry no `_meta`
    clientCapabilities, its results no resultType, and it answers the elicitation the endpoint sent on the call's
    stream with a POSTed JSON-RPC response; each of those would break a 2026-07-28 rule."""
    name = "mrtr-provenance-py-sdk-2025-06-18"
    rules = session_results(name)
    assert rules["session-client-answers-only-server-requests"].status == "PASS"  # a response to a server request
    assert results(name)["mrtr-provenance-input-requests"].status == "PASS"  # judged on the 2025 form of the probe
    assert results(name)["mrtr-provenance-result-type-default"].status == "PASS"
    # the 2026-only rules judge only its refused server/discover probe (a 2026-07-28 message), never its session
    rec = recording(name)
    for rule in ("sep-2575-client-populates-meta", "sep-2575-client-sends-client-info"):
        cited = [m for e in rules[rule].evidence for m in rec.messages_in(e.run) if m.seq == e.seq]
        assert rules[rule].status == "PASS" and {m.method for m in cited} == {"server/discover"}


def test_the_same_missing_client_capabilities_fails_in_2026_and_is_not_in_era_for_a_2025_client():
    assert session_results("session-toy-no-client-capabilities-vs-py-sdk")["sep-2575-client-populates-meta"].status == (
        "FAIL"
    )
    legacy = session_results("session-ts-sdk-vs-py-sdk-2025-11-25")["sep-2575-client-populates-meta"]
    assert legacy.status == "SKIP" and legacy.reason == NOT_IN_ERA
    toy = session_results("mrtr-provenance-toy-legacy-only")  # the toy agent's legacy-only build: initialize only
    assert {toy[r].reason for r in ("sep-2575-client-populates-meta", "sep-2575-http-client-sends-version-header")} == {
        NOT_IN_ERA
    }


def test_the_same_missing_session_id_fails_in_2025_and_is_not_in_era_for_a_2026_client():
    """The toy agent sends no Mcp-Session-Id in both: a flaw after a 2025 initialize, the rule in 2026-07-28 (no
    initialize, no session at all)."""
    assert session_results("session-toy-no-session-id-vs-ts-sdk")["session-client-sends-session-id"].status == "FAIL"
    for name in ("session-toy-no-client-info-vs-py-sdk", "session-ts-sdk-vs-py-sdk-2026-07-28"):
        rules = session_results(name)
        for rule in ("session-client-sends-session-id", "session-client-version-header-negotiated"):
            assert rules[rule].status == "SKIP" and rules[rule].reason == NOT_IN_ERA, (name, rule)
            assert "spoke 2026-07-28" in rules[rule].message


def test_url_mode_checks_skip_a_2025_06_18_run_which_has_no_url_mode():
    url_checks = [c for c in all_checks().values() if c.scenario == "elicitation-ui" and "url" in c.id]
    assert url_checks and all("2025-06-18" not in c.eras for c in url_checks)


@pytest.mark.parametrize("name", sorted(p.name[: -len(".sqlite")] for p in REFERENCE.glob("*.sqlite")))
def test_no_committed_reference_has_a_verdict_from_a_check_on_a_run_of_another_era(name):
    rec = recording(name)
    settled, spoken = eras_by_run(rec)
    checks = all_checks()
    for found in judge(rec).results:
        if found.status not in ("PASS", "FAIL", "WARN") or found.id not in checks:
            continue
        eras_of = spoken if found.scenario == "session" else settled
        runs = [found.run] if found.run is not None else list(eras_of)
        seen = {era for run in runs for era in eras_of.get(run, frozenset())}
        assert not seen or seen & set(checks[found.id].eras), (found.id, found.run, seen)
