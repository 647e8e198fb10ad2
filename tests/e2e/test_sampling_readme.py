"""The README's sampling examples, run exactly as written: the careful toy sampling client passes every check its
era can judge under a terminal; its answer-undeclared-tools build, piped and answered at its prompts in 2025-11-25,
fails the tools check alone."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]
SECTION = "## What a server's model requests get: the `sampling` scenario"


def _examples() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index(SECTION) : readme.index("\n## ", readme.index(SECTION) + 1)]
    return re.findall(r"```bash\n(.*?)\n```", section, re.DOTALL)


def _run(line: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    return subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=120)


def test_the_section_has_its_two_examples():
    assert len(_examples()) == 2


def test_the_careful_build_example_runs_as_written_and_trips_nothing(tmp_path):
    done = _run(_examples()[0], tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "36 results: 17 PASS, 0 FAIL, 0 WARN, 19 SKIP, 0 ERROR" in done.stdout
    assert re.search(r"sep-2322-client-constructs-inputs-all-kinds\s+│\s+PASS", done.stdout)


def test_the_undeclared_tools_example_fails_the_tools_check_alone(tmp_path):
    line = _examples()[1]
    assert "--no-tty" in line and "--era 2025-11-25" in line
    done = _run(line, tmp_path)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    assert "36 results: 15 PASS, 1 FAIL, 0 WARN, 20 SKIP, 0 ERROR" in done.stdout
    assert re.search(r"sampling-tools-undeclared-error\s+│\s+FAIL", done.stdout)
