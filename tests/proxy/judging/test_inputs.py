"""What `judge PATH...` judges: files, folders (recursively) and globs; each once, named relative to its argument."""

from __future__ import annotations

from pathlib import Path

import pytest

from backchannel.proxy.judging.inputs import expand
from backchannel.recordings.errors import RecordingError


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


@pytest.mark.parametrize("argument", ["missing.sqlite", "nothing-*.sqlite", "empty"])
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
