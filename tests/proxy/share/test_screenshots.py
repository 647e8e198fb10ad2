"""A bug report's screenshots: written only when their bytes are the image their name says, each once, in a folder
made only when there is one; stderr says every time that images went out unredacted, or that they were left out."""

from __future__ import annotations

from pathlib import Path

from backchannel.proxy.share.screenshots import SCREENSHOTS, screenshot_lines, screenshots_in, write_screenshots
from backchannel.recordings import load
from backchannel.recordings.screenshots import Screenshot
from tests.factories import HOSTILE_SHOT, JPEG_SHOT, PNG_SHOT, answered_recording


def test_each_image_is_written_once_under_its_own_name_with_its_exact_bytes(tmp_path: Path):
    shots = [
        Screenshot(1, PNG_SHOT, "answer-1.png", None),
        Screenshot(3, JPEG_SHOT, "answer-3.jpg", None),
        Screenshot(1, PNG_SHOT, "answer-1.png", None),  # the same answer cited twice
    ]
    written = write_screenshots(tmp_path, shots)
    assert written == [tmp_path / SCREENSHOTS / "answer-1.png", tmp_path / SCREENSHOTS / "answer-3.jpg"]
    assert [p.read_bytes() for p in written] == [PNG_SHOT, JPEG_SHOT]


def test_bytes_that_are_not_the_image_their_name_says_are_never_written_and_no_folder_is_made_for_nothing(tmp_path):
    forged = [
        Screenshot(2, HOSTILE_SHOT, "answer-2.png", None),  # checked again where the file is made
        Screenshot(4, PNG_SHOT, "answer-4.jpg", None),
        Screenshot(5, HOSTILE_SHOT, None, "its bytes are not a PNG image"),
    ]
    assert write_screenshots(tmp_path, forged) == []
    assert not (tmp_path / SCREENSHOTS).exists()


def test_the_screenshots_of_chosen_runs_are_counted(tmp_path: Path):
    rec = load(answered_recording(tmp_path / "answered.sqlite"))
    assert (screenshots_in(rec), screenshots_in(rec, ["a"]), screenshots_in(rec, ["b"])) == (3, 3, 0)


def test_stderr_says_images_kept_are_unredacted_and_how_to_leave_them_out_and_nothing_for_none():
    assert screenshot_lines(2, kept=True) == [
        "kept 2 screenshot(s) as the person gave them: redaction cannot read images (--no-screenshots leaves them out)"
    ]
    assert screenshot_lines(2, kept=False) == ["left out 2 screenshot(s) (--no-screenshots)"]
    assert screenshot_lines(0, kept=True) == screenshot_lines(0, kept=False) == []
