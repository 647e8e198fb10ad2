"""The scenario registry: one list of names on both sides, and the recipe for adding a scenario proved end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import Result

from backchannel.oracle.registry import all_checks
from backchannel.oracle.registry import all_scenarios as oracle_scenarios
from backchannel.proxy.scenarios.base import CheckError
from backchannel.proxy.scenarios.registry import all_scenarios, get_scenario, missing_oracle_side, scenario_names
from tests.in_process import backchannel

ROOT = Path(__file__).resolve().parents[3]
RECIPE = "tests.scenario_recipe.echo_once"
PY_SDK = f"{sys.executable} -m backchannel.proxy.clients.drivers.py_sdk {{url}}"


@pytest.fixture(autouse=True)
def _built_in_scenarios_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with only the built-in scenarios in this process; the tests that add one set the variable."""
    monkeypatch.delenv("BACKCHANNEL_SCENARIOS", raising=False)


def _here(*args: str | Path) -> Result:
    """The command in this process (tests/in_process.py): refusals and listings, where each new process would only
    add a CLI start."""
    return backchannel(*map(str, args))


def _cli(*args: str | Path, extra: str | None = RECIPE, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "BACKCHANNEL_SCENARIOS"} | {"COLUMNS": "400"}
    if extra is not None:
        env |= {"BACKCHANNEL_SCENARIOS": extra, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "backchannel.proxy.cli", *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)


def test_both_sides_know_the_same_scenarios_and_every_check_belongs_to_one():
    assert scenario_names() == list(oracle_scenarios())
    assert missing_oracle_side() == []
    assert {c.scenario for c in all_checks().values()} <= {*scenario_names(), "session"}  # the session rules: none's


def test_an_unknown_scenario_is_refused_naming_the_known_ones():
    with pytest.raises(CheckError, match="elicitation-url-mode, mrtr-provenance"):
        get_scenario("nope")


def test_serve_and_record_refuse_an_unknown_scenario_before_anything_is_served(tmp_path: Path):
    # the endpoint is handed its tools, so the name is checked here, at the top, against the registry
    out = tmp_path / "r.sqlite"
    for args in (
        ("serve", "--scenario", "nope"),
        ("record", "--scenario", "nope", "--out", out, "--", "true", "{url}"),
    ):
        done = _here(*args)
        assert done.exit_code == 2, args
        assert "unknown scenario 'nope'" in done.stderr and "mrtr-provenance" in done.stderr, args
    assert not out.exists()


def _own(report: dict) -> list[dict]:
    """A report's results of the scenario's own checks (the session rules judge every recording beside them)."""
    return [r for r in report["results"] if r["scenario"] != "session"]


def test_every_command_lists_the_same_scenario_names(monkeypatch: pytest.MonkeyPatch):
    listed = [line.split()[0] for line in _here("scenarios").stdout.splitlines()]
    assert listed == scenario_names()
    checks = {line.split()[1].strip("[]") for line in _here("checks").stdout.splitlines()}
    assert checks <= {*listed, "session"}
    monkeypatch.setenv("COLUMNS", "400")  # the help's table, wide enough that no name is cut
    for command in ("check", "serve", "record"):
        shown = "".join(_here(command, "--help").stdout.replace("│", "").split())
        assert ",".join(listed) in shown, command


def test_check_on_the_default_scenario_asks_for_a_client_instead_of_calling_it_unknown():
    done = _here("check", "--scenario", "default")
    assert done.exit_code == 2
    assert "unknown scenario" not in done.stderr and "--client" in done.stderr


def test_a_flag_of_another_scenario_is_a_usage_error():
    done = _here("check", "--scenario", "default", "--hold-ms", "3", "--client", "x {url}")
    assert done.exit_code == 2
    assert "--hold-ms belongs to scenario elicitation-url-mode, not default" in done.stderr


def test_a_scenario_defined_only_under_tests_is_discovered_run_end_to_end_and_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    listed = _cli("scenarios").stdout  # a fresh process finds it through the variable alone
    assert "echo-once" in listed
    # the rest in this process (tests/in_process.py), the variable set as above: the client and mitmdump are real
    monkeypatch.setenv("BACKCHANNEL_SCENARIOS", RECIPE)
    assert "echo-once-answered  [echo-once] MUST" in backchannel("checks").stdout
    passing, failing = tmp_path / "pass.sqlite", tmp_path / "fail.sqlite"

    done = backchannel(
        "check", "--scenario", "echo-once", "--client", PY_SDK, "--out", str(passing), "--format", "json"
    )
    assert done.exit_code == 0, done.output
    (result,) = _own(json.loads(done.stdout))
    assert (result["id"], result["scenario"], result["status"]) == ("echo-once-answered", "echo-once", "PASS")

    silent = f"{sys.executable} -c pass {{url}}"
    done = backchannel(
        "check", "--scenario", "echo-once", "--client", silent, "--out", str(failing), "--format", "json"
    )
    assert done.exit_code == 1, done.output
    (result,) = _own(json.loads(done.stdout))
    assert result["status"] == "FAIL" and "saw 0 tools/call" in result["message"]

    rejudged = backchannel("judge", str(passing), "--format", "json")
    assert json.loads(rejudged.stdout) == json.loads(backchannel("judge", str(passing), "--format", "json").stdout)
    assert _own(json.loads(rejudged.stdout))[0]["status"] == "PASS"


@pytest.mark.parametrize(("command", "side"), [("checks", "oracle"), ("check", "proxy")])
def test_a_broken_extra_scenario_package_is_one_clear_line_for_every_command(command: str, side: str):
    # each command names the side it needed: `checks` lists the oracle's checks, `check` offers the proxy's flags
    done = _cli(command, extra="no_such_package_anywhere")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"backchannel: cannot import scenario package no_such_package_anywhere.{side}: "
        "No module named 'no_such_package_anywhere'"
    ]


def test_the_recipe_scenario_is_gone_once_its_root_is_no_longer_listed(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("BACKCHANNEL_SCENARIOS", RECIPE)
    assert "echo-once" in all_scenarios() and "echo-once-answered" in all_checks()
    monkeypatch.delenv("BACKCHANNEL_SCENARIOS")
    assert "echo-once" not in all_scenarios() and "echo-once-answered" not in all_checks()


def test_the_side_a_scenario_tests_and_the_side_its_oracle_says_backchannel_plays_are_opposite():
    # the oracle cannot import the proxy, so each scenario says it twice: its proxy side names the party under test
    # (side_of), its oracle package the party backchannel plays (STAGED, which the session rules leave unjudged)
    from backchannel.oracle.session.facts import staged_side
    from backchannel.proxy.scenarios.registry import side_of

    for name in scenario_names():
        assert {side_of(name), staged_side(name)} == {"client", "server"}, name
