"""An export file is written whole or not at all, and never over an existing file."""

from __future__ import annotations

import pytest

from backchannel.proxy.share.files import ShareError, publish


def test_a_file_is_written_whole(tmp_path):
    publish(tmp_path / "out", lambda handle: handle.write(b"all"))
    assert (tmp_path / "out").read_bytes() == b"all" and [p.name for p in tmp_path.iterdir()] == ["out"]


def test_a_failed_write_leaves_nothing_behind(tmp_path):
    def broken(handle):
        handle.write(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError):
        publish(tmp_path / "out", broken)
    assert list(tmp_path.iterdir()) == []


def test_an_existing_file_or_link_is_never_replaced(tmp_path):
    (tmp_path / "out").write_text("mine")
    (tmp_path / "link").symlink_to(tmp_path / "nowhere")
    for taken in ("out", "link"):
        with pytest.raises(ShareError, match="already exists"):
            publish(tmp_path / taken, lambda handle: handle.write(b"new"))
    assert (tmp_path / "out").read_text() == "mine" and sorted(p.name for p in tmp_path.iterdir()) == ["link", "out"]
