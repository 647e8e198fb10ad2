"""The README's benchmark command runs as written, from the checkout, and reports every section it promises."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.live  # it starts mitmdump and the endpoint many times

ROOT = Path(__file__).resolve().parents[2]
COMMAND = re.compile(r"`(\.venv/bin/python bench/[a-z_]+\.py[^`]*)`")
BOUND_S = 420  # the short look takes about a minute on a busy 2-core machine


def _readme_bench_commands() -> list[str]:
    return COMMAND.findall((ROOT / "README.md").read_text(encoding="utf-8"))


def test_the_readme_names_one_benchmark_command():
    assert len(_readme_bench_commands()) == 1


def test_the_readme_benchmark_command_runs_as_written_and_reports_every_section():
    [command] = _readme_bench_commands()
    argv = shlex.split(command)
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=BOUND_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    out = done.stdout
    for section in ("latency", "SSE", "start", "recording"):
        assert section.lower() in out.lower(), f"no {section} section in:\n{out[-3000:]}"
    assert re.search(r"\d+(\.\d+)? ?ms", out), "no timing in milliseconds was printed"
