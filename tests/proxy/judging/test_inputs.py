"""What `judge PATH...` judges: files, folders (recursively) and globs; each once, named relative to its argument."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from backchannel.proxy.judging.inputs import expand
from backchannel.recordings.errors import RecordingError

REFERENCE = Path(__file__).resolve().parents[3] / "recordings" / "reference"
CLI = [sys.executable, "-m", "backchannel.proxy.cli", "judge"]


def _touch(*paths: Path) -> None:
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")


def test_a_folder_yields_its_recordings_recursively_in_sorted_order_named_relative_to_it(tmp_path: Path) -> None:
    _touch(tmp_path / "b.sqlite", tmp_path / "a" / "z.sqlite", tmp_path / "a" / "notes.txt", tmp_path / "c.sqlite")
    found = expand([str(tmp_path)])
    assert [i.relative for i in found] == ["a/z.sqlite", "b.sqlite", "c.sqlite"]
    assert [i.path for i in found] == [tmp_path / "a" / "z.sqlite", tmp_path / "b.sqlite", tmp_path / "c.sqlite"]


def test_a_glob_is_expanded_recursively_and_named_relative_to_its_fixed_part(tmp_path: Path) -> None:
    _touch(tmp_path / "x" / "one-ts.sqlite", tmp_path / "x" / "deep" / "two-ts.sqlite", tmp_path / "x" / "py.sqlite")
    found = expand([str(tmp_path / "x" / "**" / "*-ts.sqlite")])
    assert sorted(i.relative for i in found) == ["deep/two-ts.sqlite", "one-ts.sqlite"]


def test_a_file_named_twice_or_also_inside_a_folder_is_judged_once_in_first_mention_order(tmp_path: Path) -> None:
    _touch(tmp_path / "a.sqlite", tmp_path / "b.sqlite")
    found = expand([str(tmp_path / "b.sqlite"), str(tmp_path), str(tmp_path / "b.sqlite")])
    assert [i.path.name for i in found] == ["b.sqlite", "a.sqlite"]
    assert found[0].relative == "b.sqlite"


@pytest.mark.parametrize(
    "argument", ["missing.sqlite", "nothing-*.sqlite", "empty", "missing/**/*.sqlite", "empty/**/*.sqlite"]
)
def test_an_argument_naming_no_recording_is_an_error_not_an_empty_run(tmp_path: Path, argument: str) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(RecordingError, match="no such recording|names no"):
        expand([str(tmp_path / argument)])


def test_a_recursive_glob_over_a_symlink_loop_ends_and_finds_each_recording_once(tmp_path):
    folder = tmp_path / "loop" / "d"
    folder.mkdir(parents=True)
    (folder / "one.sqlite").write_bytes(b"")
    (folder / "x").symlink_to("..")
    (folder / "y").symlink_to("..")
    found = expand([f"{tmp_path}/loop/**/*.sqlite"])
    assert [item.relative for item in found] == ["d/one.sqlite"]


def test_a_symlink_loop_named_like_a_recording_is_an_input_not_a_crash(tmp_path: Path) -> None:
    _touch(tmp_path / "a.sqlite")
    (tmp_path / "loop.sqlite").symlink_to("loop.sqlite")
    found = expand([str(tmp_path), str(tmp_path / "loop.sqlite")])
    assert [i.relative for i in found] == ["a.sqlite", "loop.sqlite"]


def test_a_glob_keeps_what_it_matches_that_is_not_a_folder_as_a_folder_does(tmp_path: Path) -> None:
    """A FIFO, a dangling link or a link loop that a glob matches is judged, and its error named (exit 2), as when
    a folder holds it; a glob used to drop them, and the run passed over them."""
    _touch(tmp_path / "g" / "a.sqlite")
    os.mkfifo(tmp_path / "g" / "b.sqlite")
    (tmp_path / "g" / "c.sqlite").symlink_to("gone.sqlite")
    (tmp_path / "g" / "d.sqlite").symlink_to("d.sqlite")
    (tmp_path / "g" / "e.sqlite").mkdir()
    names = ["a.sqlite", "b.sqlite", "c.sqlite", "d.sqlite"]
    assert [i.relative for i in expand([str(tmp_path / "g" / "*.sqlite")])] == names
    assert [i.relative for i in expand([str(tmp_path / "g" / "**" / "*.sqlite")])] == names
    assert [i.relative for i in expand([str(tmp_path / "g")])] == names


def _as_a_user(argv: list[str]) -> list[str]:
    """argv run without the capabilities that let root read any folder (as is, for anyone else)."""
    return ["setpriv", "--bounding-set=-all", "--inh-caps=-all", *argv] if os.geteuid() == 0 else argv


@pytest.mark.skipif(os.geteuid() == 0 and not shutil.which("setpriv"), reason="root reads any folder")
def test_a_folder_that_cannot_be_read_is_named_not_judged_and_the_run_exits_2(tmp_path: Path) -> None:
    """An unreadable folder in a corpus was passed over: its recordings unseen, the run green (exit 0)."""
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    shutil.copyfile(REFERENCE / "conformance-toy.sqlite", corpus / "a.sqlite")
    shutil.copyfile(REFERENCE / "conformance-toy-flawed.sqlite", corpus / "sub" / "flawed.sqlite")
    (corpus / "sub").chmod(0)
    try:
        for argument in (str(corpus), f"{corpus}/**/*.sqlite", str(corpus / "sub")):
            done = subprocess.run(_as_a_user([*CLI, argument, "--format", "json"]), capture_output=True, timeout=60)
            document = json.loads(done.stdout)
            assert done.returncode == 2, done.stderr
            (unread,) = [entry for entry in document["recordings"] if "error" in entry]
            assert unread["error"].endswith(
                "cannot read this folder (Permission denied); the recordings in it are not judged"
            )
    finally:
        (corpus / "sub").chmod(0o755)
