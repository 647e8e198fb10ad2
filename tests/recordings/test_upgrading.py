"""`upgrade`'s own refusals beyond those in test_store.py: a FIFO behind a symlink, a file still being written."""

import os
import shutil
from pathlib import Path

import pytest

from backchannel.recordings import RecordingError, store

FROZEN_M001 = Path(__file__).resolve().parent.parent / "fixtures" / "format-m001.sqlite"


def test_a_symlink_to_a_fifo_is_refused_without_blocking(tmp_path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "r.sqlite").symlink_to(tmp_path / "fifo")
    with pytest.raises(RecordingError, match="is a FIFO"):
        store.upgrade(tmp_path / "r.sqlite")


def test_a_recording_with_a_wal_beside_it_is_left_alone(tmp_path) -> None:
    path = tmp_path / "r.sqlite"
    shutil.copyfile(FROZEN_M001, path)
    Path(f"{path}-wal").write_bytes(b"\0" * 32)
    before = path.read_bytes()
    with pytest.raises(RecordingError, match="another process may be writing it"):
        store.upgrade(path)
    assert path.read_bytes() == before
