"""Real recordings (copies of the committed references) and the real CLI, in a subprocess with a bounded wait."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REFERENCE = Path(__file__).resolve().parents[3] / "recordings" / "reference"
PASSING = ("mrtr-provenance-toy-fixed", "mrtr-provenance-toy-strict", "elicitation-url-mode-ts-sdk")
FLAWED = "mrtr-provenance-toy-flawed"  # two CONFIRMED probes and elicitation-names-requesting-server FAIL
BOUND_S = 120


def run_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "backchannel.proxy.cli", *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=BOUND_S)


def run_here(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The same command in this process (tests/in_process.py), for runs that start no judging pool: one recording,
    `--jobs 1`, or `merge-reports` (a judging pool would fork the pytest worker itself): a CLI start (about a CPU
    second) spared each."""
    from tests.in_process import backchannel

    done = backchannel(*map(str, args))
    assert done.exception is None or isinstance(done.exception, SystemExit), repr(done.exception)
    return subprocess.CompletedProcess(list(map(str, args)), done.exit_code, done.stdout, done.stderr)


def as_json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.stdout, f"no output (exit code {done.returncode}): {done.stderr[-2000:]}"
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def copy_in(folder: Path, *names: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in names:
        target = folder / f"{name}.sqlite"
        shutil.copyfile(REFERENCE / f"{name}.sqlite", target)
        out.append(target)
    return out


def _copied(folder: Path, step: int) -> Path:
    for i, source in enumerate(sorted(REFERENCE.glob("*.sqlite"))[::step]):
        target = folder / ("nested" if i % 2 else ".") / source.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return folder


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Every committed reference, copied into a folder, some of them one level down."""
    return _copied(tmp_path / "corpus", 1)


@pytest.fixture
def some_corpus(tmp_path: Path) -> Path:
    """Every fifth committed reference (passing and failing ones, every scenario's), laid out as `corpus`: for
    what does not depend on judging every reference (how shards split a corpus, how shards merge)."""
    return _copied(tmp_path / "corpus", 5)
