"""The README's roots example, run exactly as written: the careful toy roots client in 2025-11-25 (roots declared
with listChanged, its working folder only, the change announced, the GET stream listened on) breaks no roots check
and no session rule."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.live
ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Roots: the `roots` scenario"


def _examples() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index(SECTION) : readme.index("\n## ", readme.index(SECTION) + 1)]
    return re.findall(r"```bash\n(.*?)\n```", section, re.DOTALL)


def test_the_section_has_its_one_example():
    assert len(_examples()) == 1


def test_the_careful_roots_example_runs_as_written_and_breaks_nothing(tmp_path):
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    line = _examples()[0]
    assert "--era 2025-11-25" in line
    done = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert re.search(r"results: \d+ PASS, 0 FAIL, 0 WARN, \d+ SKIP, 0 ERROR", done.stdout), done.stdout[-2000:]
    for check in (
        "roots-file-uri",
        "roots-within-configured",
        "roots-list-changed-notified",
    ):
        assert re.search(rf"{check}\s+│\s+PASS", done.stdout), check
    # it declared roots in both runs, so the out-of-turn run has nothing to judge, and says why
    assert re.search(r"roots-only-with-capability\s+│\s+SKIP", done.stdout)
