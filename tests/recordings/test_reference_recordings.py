"""The committed reference recordings: each re-judges to its committed report, byte for byte, and opens read-only.

Set BACKCHANNEL_UPDATE_GOLDEN=1 to rewrite the expected reports instead (then review the diff); regenerate the
recordings themselves with scripts/make-reference-recordings.
"""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.oracle.render import render
from backchannel.recordings import load

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "recordings" / "reference"
GOLDEN = sorted(REFERENCE.glob("*.sqlite"))


def _listed(script: str) -> list[str]:
    listed = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), "--list"], capture_output=True, text=True, check=True,
        timeout=60,
    ).stdout  # fmt: skip
    return [line.split()[0] for line in listed.splitlines() if line.strip()]


def test_every_committed_reference_is_made_by_a_script_the_scenarios_or_the_real_pairs():
    from backchannel.proxy.scenarios.registry import all_references

    declared = [ref.stem for ref in all_references()]
    assert len(declared) == len(set(declared))
    assert _listed("make-reference-recordings") == declared
    pairs = _listed("make-pair-recordings")  # the real client/server pairs the session rules are proven on
    assert not set(pairs) & set(declared)
    assert set(declared) | set(pairs) == {p.stem for p in GOLDEN}


@pytest.mark.parametrize("recording", GOLDEN, ids=lambda p: p.stem)
def test_a_committed_recording_judges_to_its_committed_report_byte_for_byte(recording: Path):
    expected = recording.with_suffix(".expected.json")
    report = render(judge(load(recording)), "json")
    if os.environ.get("BACKCHANNEL_UPDATE_GOLDEN") == "1":
        expected.write_text(report, encoding="utf-8")
    assert report == expected.read_text(encoding="utf-8")


@pytest.mark.parametrize("recording", GOLDEN, ids=lambda p: p.stem)
def test_a_committed_recording_is_finalised_so_a_read_only_copy_opens(recording: Path):
    assert not Path(f"{recording}-wal").exists()
    uri = f"{recording.resolve().as_uri()}?mode=ro"
    with sqlite3.connect(uri, uri=True) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()
