"""Recordings become tables: one per scenario, a column per recording in input order, a case per judged check."""

from dataclasses import replace
from functools import cache
from pathlib import Path

from backchannel.oracle import judge
from backchannel.proxy.judging.inputs import expand
from backchannel.proxy.matrix.model import build, slug
from backchannel.recordings.reader import load
from tests.proxy.matrix.conftest import REFERENCES, hostile_judged


@cache  # judging all 225 references takes seconds: the two tests that read the matrix share one build
def _reference_matrix():
    return build((item, rec, judge(rec)) for item in expand([str(REFERENCES)]) for rec in [load(item.path)])


def test_the_references_make_one_table_per_scenario_with_every_recording_of_it_as_a_column():
    matrix = _reference_matrix()
    assert [t.scenario for t in matrix.tables] == [
        "conformance",
        "elicitation-sep1036-url-mode",
        "elicitation-ui",
        "elicitation-url-mode",
        "mrtr-provenance",
        "roots",
        "sampling",
        "sdk-regressions",
        "session",  # the session rules judge every recording: every reference is a column of that table
    ]
    assert len(matrix.tables[-1].columns) == len(list(REFERENCES.glob("*.sqlite")))
    mrtr = next(t for t in matrix.tables if t.scenario == "mrtr-provenance")
    assert [c.recording for c in mrtr.columns] == sorted(p.name for p in REFERENCES.glob("mrtr-provenance-*.sqlite"))
    assert [r.id for r, _ in mrtr.rows] == sorted(r.id for r, _ in mrtr.rows)


def test_a_probe_cell_shows_its_verdict_and_names_its_case_page():
    mrtr = next(t for t in _reference_matrix().tables if t.scenario == "mrtr-provenance")
    row = next(cells for r, cells in mrtr.rows if r.id == "mrtr-provenance-input-requests")
    flawed = next(c for c in row if c is not None and c.column.recording == "mrtr-provenance-toy-flawed.sqlite")
    assert flawed.status == "CONFIRMED" and flawed.requirement.probe
    assert flawed.page == "cases/mrtr-provenance-toy-flawed/mrtr-provenance-input-requests.html"
    assert flawed.findings[0].excerpts and flawed.requirement.doc.startswith("The PROBE run")


def test_a_cell_with_several_results_shows_the_worst(tmp_path: Path):
    [(item, rec, report)] = hostile_judged(tmp_path)
    passed = replace(report.results[0], status="PASS", subject="other arm")
    report = replace(report, results=(passed, report.results[0], passed))
    [case] = build([(item, rec, report)]).cases
    assert case.status == "FAIL" and [f.status for f in case.findings] == ["PASS", "FAIL", "PASS"]


def test_two_recordings_whose_names_slug_alike_get_distinct_pages(tmp_path: Path):
    [(item, rec, report)] = hostile_judged(tmp_path)
    twin = replace(item, relative=item.relative.upper())
    pages = [case.page for case in build([(item, rec, report), (twin, rec, report)]).cases]
    assert len(set(pages)) == 2


def test_a_slug_keeps_only_lowercase_letters_digits_and_dashes():
    assert slug("../<script>x\u202e.sqlite") == "script-x-sqlite"
    assert slug("\u202e") == "x"


def test_server_scenario_columns_are_labelled_by_the_server_not_the_scripted_client():
    from backchannel.oracle import judge
    from backchannel.proxy.judging.inputs import Input
    from backchannel.proxy.matrix.model import build
    from backchannel.recordings.reader import load
    from tests.proxy.matrix.conftest import REFERENCES

    path = REFERENCES / "elicitation-sep1036-url-mode-py-sdk.sqlite"
    rec = load(path)
    table, _session = build([(Input(path, path.name), rec, judge(rec))]).tables
    [column] = table.columns
    assert (column.client.label, column.client.role) == ("backchannel-py-sdk", "server")


def test_a_session_of_two_real_parties_is_labelled_by_the_client_and_the_server():
    from backchannel.proxy.judging.inputs import Input

    path = REFERENCES / "session-ts-sdk-vs-py-sdk-2025-11-25.sqlite"
    rec = load(path)
    (table,) = build([(Input(path, path.name), rec, judge(rec))]).tables  # no scenario: the session table only
    [column] = table.columns
    assert column.label == "backchannel-ts-sdk-driver 0.1.0 against backchannel-py-sdk"  # serverInfo names no version
    assert table.scenario == "session"


def test_a_staged_scenarios_column_names_only_the_party_under_test():
    from backchannel.proxy.judging.inputs import Input

    path = REFERENCES / "mrtr-provenance-py-sdk.sqlite"
    rec = load(path)
    tables = build([(Input(path, path.name), rec, judge(rec))]).tables
    assert all(column.peer is None for table in tables for column in table.columns)


def test_a_case_carries_the_sentence_its_check_tests_and_the_anchor_where_the_spec_says_it():
    item = next(i for i in expand([str(REFERENCES / "mrtr-provenance-toy-flawed.sqlite")]))
    rec = load(item.path)
    mrtr = next(t for t in build([(item, rec, judge(rec))]).tables if t.scenario == "mrtr-provenance")
    requirement = next(r for r, _ in mrtr.rows if r.id == "mrtr-provenance-result-type-default")
    assert requirement.quote is not None and requirement.quote.startswith("For backward compatibility with servers")
    assert requirement.anchor == "https://modelcontextprotocol.io/specification/2026-07-28/basic#resulttype"
    assert requirement.unquoted is None
