"""Steps: command lines run one after another as one client, the last in this process's place."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from backchannel.proxy.run.steps import MODULE, SEPARATOR, split, steps_argv

PY = sys.executable


def run(*steps: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(steps_argv(*steps)), input=stdin, capture_output=True, text=True, timeout=30)


def test_a_command_line_of_steps_names_this_module_and_keeps_each_step_whole():
    argv = steps_argv(["cli", "connect", "{url}"], ["cli", "call", "tool"])
    assert argv == (PY, "-m", MODULE, "cli", "connect", "{url}", SEPARATOR, "cli", "call", "tool")
    assert split(argv[3:]) == [["cli", "connect", "{url}"], ["cli", "call", "tool"]]


def test_a_step_that_is_empty_or_holds_the_separator_is_refused():
    with pytest.raises(ValueError):
        steps_argv(["a"], [])
    with pytest.raises(ValueError):
        steps_argv(["a", SEPARATOR], ["b"])
    with pytest.raises(ValueError):
        split(["a", SEPARATOR])


def test_each_step_runs_in_order_and_only_the_last_reads_stdin(tmp_path: Path):
    log = tmp_path / "log"
    first = [PY, "-c", f"import sys; open({str(log)!r}, 'a').write('first:' + sys.stdin.read() + ';')"]
    last = [PY, "-c", f"import sys; open({str(log)!r}, 'a').write('last:' + sys.stdin.read())"]
    done = run(first, last, stdin="answer")
    assert done.returncode == 0, done.stderr
    assert log.read_text() == "first:;last:answer"


def test_the_first_step_that_fails_ends_the_run_with_its_code_and_the_rest_never_runs(tmp_path: Path):
    marker = tmp_path / "ran"
    done = run([PY, "-c", "raise SystemExit(3)"], [PY, "-c", f"open({str(marker)!r}, 'w')"])
    assert done.returncode == 3 and "step 1" in done.stderr and "exited 3" in done.stderr
    assert not marker.exists()


def test_the_last_step_takes_this_process_place_and_its_exit_code():
    argv = steps_argv([PY, "-c", "pass"], [PY, "-c", "import os, sys; print(os.getpid()); sys.exit(5)"])
    proc = subprocess.Popen(list(argv), stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 5 and int(out) == proc.pid  # the pid the harness holds is the last step's


def test_a_step_that_cannot_start_is_named_with_exit_127():
    done = run(["/nonexistent/cli", "connect"], [PY, "-c", "pass"])
    assert done.returncode == 127 and "could not start" in done.stderr
    done = run([PY, "-c", "pass"], ["/nonexistent/cli", "call"])
    assert done.returncode == 127 and "last step" in done.stderr
