"""`backchannel check --server`: the README's example run exactly as written, the flags that go with a server
scenario and the ones that do not, and a server that is down answered in one bounded ERROR report."""

from __future__ import annotations

import json
import re
import shlex
import socket
import subprocess
from pathlib import Path

import pytest
from typer.testing import Result

from backchannel.proxy.servers.launch import start_server
from tests.in_process import backchannel

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]
BOUND = 60
SECTION = "## Test a server: the `elicitation-sep1036-url-mode` scenario"


def _cli(*args: object) -> Result:
    """The command in this process (tests/in_process.py): the flags' checks and the report of a server that is down
    are the command's logic; the README's lines above run as written, as processes of their own."""
    return backchannel(*map(str, args))


def _readme_lines() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index(SECTION) :]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block, "the README's server example moved"
    return block.group(1).strip().splitlines()


def _local(argv: list[str], cwd: Path) -> list[str]:
    return [str(ROOT / argv[0]) if argv[0].startswith(".venv/") else argv[0], *argv[1:]]


def test_the_readmes_server_examples_run_exactly_as_written(tmp_path):
    bundled, server_line, check_line = _readme_lines()
    done = subprocess.run(
        _local(shlex.split(bundled), tmp_path), capture_output=True, text=True, timeout=BOUND, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "35 results: 15 PASS, 0 FAIL, 0 WARN, 20 SKIP, 0 ERROR"  # 7 checks and 28 session rules in done.stdout
    assert server_line.endswith(" &")
    with start_server(_local(shlex.split(server_line[:-2]), tmp_path)) as server:
        assert server.url == "http://127.0.0.1:47931/mcp" and server.url in check_line
        done = subprocess.run(
            _local(shlex.split(check_line), tmp_path), capture_output=True, text=True, timeout=BOUND, cwd=tmp_path
        )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["summary"]["PASS"] == 15 and report["scenarios"] == ["elicitation-sep1036-url-mode", "session"]
    assert (tmp_path / "py-sdk-server.sqlite").is_file()


def test_server_is_a_usage_error_with_a_scenario_that_tests_a_client(tmp_path):
    done = _cli(
        "check",
        "--server",
        "http://127.0.0.1:9/mcp",
        "--scenario",
        "elicitation-url-mode",
        "--out",
        tmp_path / "x.sqlite",
    )
    assert done.exit_code == 2 and done.stdout == ""
    assert "--scenario elicitation-url-mode tests a client" in done.stderr
    assert "elicitation-sep1036-url-mode" in done.stderr
    assert not (tmp_path / "x.sqlite").exists()


def test_a_client_is_a_usage_error_with_the_server_scenario(tmp_path):
    done = _cli("check", "--scenario", "elicitation-sep1036-url-mode", "--client", "x {url}")
    assert done.exit_code == 2 and "tests a server: give --server URL" in done.stderr


@pytest.mark.parametrize("url", ["127.0.0.1:8000/mcp", "ftp://127.0.0.1/mcp", "http:///mcp", "http://h:99999/mcp"])
def test_a_server_url_that_is_not_http_is_refused_in_one_line(url):
    done = _cli("check", "--server", url)
    assert done.exit_code == 2 and len(done.stderr.strip().splitlines()) == 1
    assert done.stderr.startswith(f"backchannel: --server {url!r}:")


def test_a_server_that_is_down_is_one_error_report_with_exit_code_1(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
    done = _cli("check", "--server", f"http://127.0.0.1:{port}/mcp", "--format", "json", "--out", tmp_path / "d.sqlite")
    assert done.exit_code == 1, done.stderr
    report = json.loads(done.stdout)
    assert {(r["status"], r["reason"]) for r in report["results"]} == {("ERROR", "server-unreachable")}
    again = _cli("judge", tmp_path / "d.sqlite", "--format", "json")
    assert json.loads(again.stdout)["results"] == report["results"]


def test_the_request_timeout_flag_belongs_to_the_server_scenario_only():
    done = _cli("check", "--scenario", "elicitation-url-mode", "--client", "x {url}", "--request-timeout", "2")
    assert done.exit_code == 2 and "--request-timeout belongs to scenario elicitation-sep1036-url-mode" in done.stderr


def test_scenarios_prints_what_the_server_under_test_must_offer():
    done = _cli("scenarios", "elicitation-sep1036-url-mode")
    assert done.exit_code == 0
    assert "test_url_elicitation" in done.stdout and "--server" in done.stdout
