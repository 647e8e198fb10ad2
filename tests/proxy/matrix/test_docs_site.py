"""docs/matrix/ is what scripts/build-matrix makes from the committed reference recordings.

That the committed site is current, byte for byte, is proved once, by building it with the README's own command
(tests/proxy/matrix/test_command.py, `backchannel matrix recordings/reference --out site`). Here: the script builds
the same site from the same references, through the same function, into docs/matrix/ unless told otherwise."""

import runpy
from pathlib import Path

import pytest

from backchannel.proxy.matrix import command
from tests.proxy.matrix.conftest import ROOT

SCRIPT = ROOT / "scripts" / "build-matrix"


def _run_script(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> list[tuple[list[str], Path]]:
    built: list[tuple[list[str], Path]] = []

    def build_site(paths: list[str], out: Path) -> list[Path]:
        built.append((paths, out))
        return []

    monkeypatch.setattr(command, "build_site", build_site)
    monkeypatch.setattr("sys.argv", [str(SCRIPT), *argv])
    runpy.run_path(str(SCRIPT), run_name="__main__")
    return built


def test_the_script_builds_the_site_from_the_committed_references_into_docs_matrix(monkeypatch, capsys):
    assert _run_script(monkeypatch, []) == [([str(ROOT / "recordings" / "reference")], ROOT / "docs" / "matrix")]
    assert "wrote 0 files to" in capsys.readouterr().out


def test_the_script_writes_elsewhere_when_told(monkeypatch, tmp_path):
    assert _run_script(monkeypatch, ["--out", str(tmp_path)]) == [([str(ROOT / "recordings" / "reference")], tmp_path)]
