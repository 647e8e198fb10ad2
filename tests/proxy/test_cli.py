"""The command line as a whole: every command registered answers --help, a run builds only the command it names,
and a broken scenario package stops every command that offers the scenarios' flags."""

import json
import subprocess
import sys

import pytest
import typer.main
from typer.testing import CliRunner

from backchannel.oracle import all_checks
from backchannel.proxy import cli
from backchannel.proxy.check import scenario_flags

COMMANDS = (
    "serve record check replay matrix export bug-report explore bridge judge merge-reports"  # fmt: skip
    " checks scenarios agents show upgrade"
)


def test_every_command_is_registered_in_order_and_answers_help():
    group = typer.main.get_command(cli.app)
    assert list(group.commands) == COMMANDS.split()  # type: ignore[attr-defined]
    for name in COMMANDS.split():
        assert CliRunner().invoke(cli.app, [name, "--help"]).exit_code == 0, name


@pytest.mark.parametrize("name", COMMANDS.split())
def test_a_command_built_alone_has_the_same_help_as_in_the_whole_app(name):
    alone = CliRunner().invoke(cli.build_app(name), [name, "--help"], prog_name="backchannel")
    whole = CliRunner().invoke(cli.app, [name, "--help"], prog_name="backchannel")
    assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)


def test_judging_a_recording_imports_neither_mitmproxy_nor_the_scenario_packages(tmp_path):
    probe = (
        "import sys; sys.argv = ['backchannel', 'judge', '--help']\n"
        "from backchannel.proxy import cli\n"
        "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
        "loaded = [m for m in sys.modules if m.startswith(('mitmproxy', 'backchannel.proxy.scenarios', "
        "'backchannel.proxy.run', 'backchannel.addons'))]\n"
        "print(loaded)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("argv", [["check", "--help"], ["--help"]])
def test_a_scenario_package_that_cannot_be_listed_makes_check_and_the_whole_list_exit_2_saying_why(
    monkeypatch, capsys, argv
):
    monkeypatch.setattr(scenario_flags, "BROKEN_SCENARIOS", ["scenario x declares --a twice"])
    monkeypatch.setattr(sys, "argv", ["backchannel", *argv])
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 2
    assert capsys.readouterr().err == "backchannel: scenario x declares --a twice\n"


def test_a_command_that_reads_recordings_still_runs_beside_a_broken_scenario_package(monkeypatch, capsys):
    monkeypatch.setattr(scenario_flags, "BROKEN_SCENARIOS", ["scenario x declares --a twice"])
    monkeypatch.setattr(sys, "argv", ["backchannel", "checks"])
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 0
    assert "mrtr-provenance-input-requests" in capsys.readouterr().out


def test_checks_prints_the_requirements_registry_as_one_json_document_or_markdown_and_text_stays_the_default():
    as_json = CliRunner().invoke(cli.app, ["checks", "--format", "json"])
    assert as_json.exit_code == 0
    document = json.loads(as_json.stdout)
    assert document["format"] == "backchannel-requirements"
    assert {row["id"] for row in document["checks"]} == set(all_checks())
    as_markdown = CliRunner().invoke(cli.app, ["checks", "--format", "markdown"])
    assert as_markdown.exit_code == 0
    assert as_markdown.stdout.startswith("| Check | Scenario | Level | Requirement |")
    assert "## Requirements deliberately not checked" in as_markdown.stdout
    plain = CliRunner().invoke(cli.app, ["checks"])
    assert plain.stdout.splitlines()[0].startswith("agent-server-text-directive  [mrtr-provenance] SHOULD  ")


def test_checks_refuses_an_unknown_format_naming_the_valid_ones():
    result = CliRunner().invoke(cli.app, ["checks", "--format", "xml"])
    assert result.exit_code == 2
    assert "unknown --format 'xml'; valid formats: text, json, markdown" in result.output


def test_checks_as_json_with_a_check_missing_from_the_registry_says_which_and_where_and_exits_2(monkeypatch):
    from dataclasses import replace

    from backchannel.oracle import requirements

    shipped = requirements.load_requirements()
    short = replace(shipped, entries={k: v for k, v in shipped.entries.items() if k != "roots-file-uri"})
    monkeypatch.setattr(requirements, "load_requirements", lambda: short)
    result = CliRunner().invoke(cli.app, ["checks", "--format", "json"])
    assert result.exit_code == 2
    assert "no entry for 1 registered check(s): roots-file-uri; add a [checks.<id>] table" in result.output
    assert "oracle/requirements/requirements.toml" in result.output


def _script(argv: list[str], before: str = "") -> subprocess.CompletedProcess[str]:
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('atexit handler ran', file=sys.stderr))\n"
        f"{before}"
        f"sys.argv = ['backchannel', *{argv!r}]\n"
        "from backchannel.proxy.cli import script\n"
        "script()\n"
        "print('never here', file=sys.stderr)\n"
    )
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(("argv", "code"), [(["checks"], 0), (["checks", "--format", "nope"], 2)])
def test_the_script_ends_without_the_interpreters_teardown_but_keeps_exit_code_output_and_atexit(argv, code):
    done = _script(argv)
    assert done.returncode == code
    assert "never here" not in done.stderr
    assert done.stderr.endswith("atexit handler ran\n")
    if code == 0:
        assert "mrtr-provenance-input-requests" in done.stdout  # the whole output, flushed before the exit


def test_the_script_waits_for_a_thread_that_is_not_a_daemon_as_python_would():
    # a thread still running when the command ends (its sleep is the subject here, not a wait for an event)
    thread = (
        "import threading, time\nthreading.Thread(target=lambda: (time.sleep(0.2), print('thread done'))).start()\n"
    )
    done = _script(["checks", "--format", "nope"], before=thread)
    assert done.returncode == 2
    assert "thread done" in done.stdout


def test_the_script_lets_an_executor_left_open_finish_and_exit_as_python_would():
    executor = (
        "from concurrent.futures import ThreadPoolExecutor\n"
        "pool = ThreadPoolExecutor(1)\n"
        "pool.submit(lambda: print('task ran', flush=True))\n"
    )
    done = _script(["checks", "--format", "nope"], before=executor)  # an idle worker left: no hang, no lost task
    assert done.returncode == 2
    assert "task ran" in done.stdout


def test_the_script_given_a_message_to_exit_with_prints_it_and_exits_1():
    probe = (
        "import sys\n"
        "from backchannel.proxy import cli\n"
        "def main():\n    raise SystemExit('backchannel: gone')\n"
        "cli.main = main\n"
        "cli.script()\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (1, "backchannel: gone\n")
