from backchannel.oracle import judge
from backchannel.oracle.judge import scenarios_of
from backchannel.oracle.model import Check, Evidence, Finding
from backchannel.oracle.render import render
from backchannel.recordings import load
from tests.factories import new_recording


def _check(probe: bool, status: str) -> Check:
    def fn(rec):
        """Doc."""
        yield Finding(status=status, message="m", evidence=(Evidence(kind="message", seq=1),))

    return Check(id="c", scenario="s", level="MUST", spec="https://x.test", title="t", doc="d", fn=fn, probe=probe)


def test_the_scenario_comes_from_the_recording_meta_or_its_runs(tmp_path):
    rec = load(new_recording(tmp_path / "a.sqlite", runs=[{"id": "r", "scenario": "mrtr-provenance"}]))
    assert scenarios_of(rec) == ("mrtr-provenance",)


def test_a_probe_renders_fail_as_confirmed_and_pass_as_refuted(tmp_path):
    rec = load(new_recording(tmp_path / "a.sqlite"))
    assert judge(rec, [_check(True, "FAIL")]).results[0].verdict == "CONFIRMED"
    assert judge(rec, [_check(True, "PASS")]).results[0].verdict == "REFUTED"
    assert judge(rec, [_check(False, "FAIL")]).results[0].verdict is None


def test_exit_code_is_one_when_anything_failed_or_errored(tmp_path):
    rec = load(new_recording(tmp_path / "a.sqlite"))
    assert judge(rec, [_check(False, "PASS")]).exit_code == 0
    assert judge(rec, [_check(False, "SKIP")]).exit_code == 0
    assert judge(rec, [_check(False, "FAIL")]).exit_code == 1
    assert judge(rec, [_check(False, "ERROR")]).exit_code == 1


def test_the_same_recording_gives_the_same_report_wherever_it_lies(tmp_path):
    (tmp_path / "x").mkdir()
    first = new_recording(tmp_path / "a.sqlite")
    second = tmp_path / "x" / "a.sqlite"
    second.write_bytes(first.read_bytes())
    reports = [render(judge(load(p), [_check(True, "FAIL")]), "json") for p in (first, second)]
    assert reports[0] == reports[1]


def test_a_check_that_also_judges_another_scenario_reports_under_the_scenario_it_judged():
    from backchannel.oracle import all_checks
    from tests.oracle.reference import recording

    check = all_checks()["elicitation-names-requesting-server"]
    assert check.scenario == "mrtr-provenance" and check.also == ("elicitation-ui",)
    [ui] = [r for r in judge(recording("elicitation-ui-toy-careful")).results if r.id == check.id]
    [mrtr] = [r for r in judge(recording("mrtr-provenance-toy-flawed")).results if r.id == check.id]
    assert (ui.scenario, ui.status) == ("elicitation-ui", "PASS")
    assert mrtr.scenario == "mrtr-provenance"


def test_beside_a_harness_error_no_session_rule_says_not_exercised_but_what_was_seen_is_still_judged(tmp_path):
    from tests.oracle.session.wire import Wire, complete

    wire = Wire()
    wire.call("tools/call", {"name": "t"}, result=complete())
    path = new_recording(tmp_path / "unended.sqlite", runs=[{"id": wire.run, "name": "live"}],
                         exchanges=wire.exchanges, messages=wire.messages)  # fmt: skip
    results = judge(load(path)).results  # the run never ended: the harness did not see all of it
    assert any(r.status == "ERROR" and r.id == "harness-saw-every-run" for r in results)
    session = {r.id: r.status for r in results if r.scenario == "session"}
    assert "SKIP" not in session.values() and session["sep-2575-client-populates-meta"] == "PASS"
