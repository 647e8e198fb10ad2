"""docs/matrix/ is what scripts/build-matrix makes from the committed reference recordings, byte for byte."""

import subprocess
import sys
from pathlib import Path

from tests.proxy.matrix.conftest import ROOT

SITE = ROOT / "docs" / "matrix"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_docs_matrix_is_current_with_the_reference_recordings(tmp_path: Path):
    out = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build-matrix"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rebuilt, committed = _files(out), _files(SITE)
    stale = sorted(name for name in rebuilt.keys() | committed.keys() if rebuilt.get(name) != committed.get(name))
    assert stale == [], f"docs/matrix/ is out of date ({len(stale)} files); run .venv/bin/python scripts/build-matrix"
