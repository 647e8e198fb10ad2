"""`judge --baseline FILE`: expected failures pass the run; an unexpected one or a stale entry fails it, named."""

from __future__ import annotations

from pathlib import Path

import pytest

from backchannel.proxy.judging.baseline import BaselineError, load_baseline
from tests.proxy.judging.conftest import FLAWED, PASSING, as_json, copy_in, run_cli

FLAWED_FAILS = (
    "mrtr-provenance:elicitation-names-requesting-server",
    "mrtr-provenance:mrtr-provenance-input-requests",
    "mrtr-provenance:mrtr-provenance-result-type-default",
)


def _baseline(tmp_path: Path, *entries: str) -> Path:
    path = tmp_path / "baseline.yaml"
    path.write_text("expected-failures:\n" + "".join(f"  - {e}\n" for e in entries), encoding="utf-8")
    return path


@pytest.fixture
def flawed_corpus(tmp_path: Path) -> Path:
    copy_in(tmp_path / "corpus", FLAWED, PASSING[0])
    return tmp_path / "corpus"


def test_only_listed_checks_failing_exits_zero(tmp_path: Path, flawed_corpus: Path) -> None:
    done = run_cli("judge", flawed_corpus, "--baseline", _baseline(tmp_path, *FLAWED_FAILS))
    assert done.returncode == 0, done.stdout
    assert "baseline: 3 expected failure(s), 0 unexpected" in done.stdout


def test_a_whole_scenario_may_be_listed(tmp_path: Path, flawed_corpus: Path) -> None:
    done = run_cli("judge", flawed_corpus, "--baseline", _baseline(tmp_path, "mrtr-provenance"))
    assert done.returncode == 0, done.stdout


def test_an_unexpected_failure_fails_the_run_and_is_named(tmp_path: Path, flawed_corpus: Path) -> None:
    done = run_cli("judge", flawed_corpus, "--baseline", _baseline(tmp_path, *FLAWED_FAILS[:2]), "--format", "json")
    assert done.returncode == 1
    verdict = as_json(done)["baseline"]
    assert verdict["unexpected"] == [f"{flawed_corpus / FLAWED}.sqlite: {FLAWED_FAILS[2]} FAIL"]


def test_a_stale_baseline_entry_fails_the_run_and_is_named(tmp_path: Path) -> None:
    copy_in(tmp_path / "fixed", PASSING[0])
    entry = "mrtr-provenance:mrtr-provenance-input-requests"
    done = run_cli("judge", tmp_path / "fixed", "--baseline", _baseline(tmp_path, entry))
    assert done.returncode == 1
    assert f"stale baseline entry (now passes; remove it): {entry}" in done.stdout


def test_an_entry_for_a_scenario_not_judged_here_is_neither_stale_nor_a_failure(tmp_path: Path) -> None:
    copy_in(tmp_path / "fixed", PASSING[0])
    done = run_cli("judge", tmp_path / "fixed", "--baseline", _baseline(tmp_path, "elicitation-url-mode"))
    assert done.returncode == 0
    assert "baseline entry not judged in this run: elicitation-url-mode" in done.stdout


@pytest.mark.parametrize(
    "text",
    [
        "expected-failures: [unclosed\n",
        "other-key: []\n",
        "expected-failures: {a: 1}\n",
        "expected-failures:\n  - 42\n",
        "expected-failures:\n  - 'Not A Slug'\n",
        "- just a list\n",
        "expected-failures: !!python/object/apply:os.system ['echo hi']\n",
        "\xff\xfe binary",
    ],
)
def test_a_malformed_baseline_is_one_clear_line_and_exit_2(tmp_path: Path, flawed_corpus: Path, text: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(text.encode("latin-1"))
    done = run_cli("judge", flawed_corpus, "--baseline", path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"backchannel: baseline {path}") and done.stderr.count("\n") == 1


def test_a_baseline_built_of_nested_aliases_is_refused_at_once_instead_of_expanding(tmp_path):
    lines = ['a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    previous = "a"
    for i in range(1, 12):  # 9^12 strings once expanded
        lines.append(f"b{i}: &b{i} [" + ", ".join([f"*{previous}"] * 9) + "]")
        previous = f"b{i}"
    lines.append(f"expected-failures: [*{previous}]")
    path = tmp_path / "laughs.yaml"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(BaselineError, match="aliases"):
        load_baseline(path)
