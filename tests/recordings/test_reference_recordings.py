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


def test_every_reference_the_scenarios_declare_is_committed_and_the_script_makes_exactly_those():
    from backchannel.proxy.scenarios.registry import all_references

    declared = [ref.stem for ref in all_references()]
    assert len(declared) == len(set(declared))
    assert set(declared) == {p.stem for p in GOLDEN}
    listed = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make-reference-recordings"), "--list"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert [line.split()[0] for line in listed.splitlines() if line.strip()] == declared


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
