"""A screenshot from a recording is shown only when its bytes are the image its row says, under a name made from
the answer's number alone; anything else is refused with why, in backchannel's words."""

from __future__ import annotations

import pytest

from backchannel.recordings.model import Attestation
from backchannel.recordings.screenshots import (
    MAX_SCREENSHOT,
    Screenshot,
    image_files,
    is_image,
    screenshot_of,
    sniffed_type,
)

PNG = b"\x89PNG\r\n\x1a\n" + b"png-payload"
JPEG = b"\xff\xd8\xff\xe0" + b"jpeg-payload"
HTML = b"<html><script>alert(1)</script></html>"


def _answer(shot: bytes | None, kind: str | None, seq: int = 7) -> Attestation:
    return Attestation(
        seq=seq, run_id="a", question_id="q", question="Q?", answer="n", screenshot=shot, screenshot_type=kind
    )


def test_an_answer_without_a_screenshot_has_none():
    assert screenshot_of(_answer(None, None)) is None


@pytest.mark.parametrize(
    ("shot", "kind", "name"), [(PNG, "image/png", "answer-7.png"), (JPEG, "image/jpeg", "answer-7.jpg")]
)
def test_an_image_whose_bytes_match_its_type_is_named_from_the_answers_number(shot, kind, name):
    assert screenshot_of(_answer(shot, kind)) == Screenshot(7, shot, name, None)


@pytest.mark.parametrize(
    ("shot", "kind", "why"),
    [
        (HTML, "image/png", "its bytes are not a PNG image"),
        (PNG, "image/jpeg", "its bytes are not a JPEG image"),
        (None, "image/png", "it is not in this copy: its bytes held text redaction would change"),
        (PNG, None, "its image type is not named"),
        (PNG + b"\x00" * MAX_SCREENSHOT, "image/png", f"it is larger than {MAX_SCREENSHOT} bytes"),
    ],
)
def test_a_screenshot_that_is_not_the_image_its_row_says_is_refused_with_why(shot, kind, why):
    found = screenshot_of(_answer(shot, kind))
    assert found is not None and found.file_name is None and found.refused == why


def test_the_type_is_read_from_the_first_bytes():
    assert [sniffed_type(data) for data in (PNG, JPEG, HTML, b"")] == ["image/png", "image/jpeg", None, None]


def test_a_file_name_is_an_image_only_when_the_bytes_say_the_type_its_suffix_names():
    assert is_image(Screenshot(1, PNG, "answer-1.png", None)) and is_image(Screenshot(1, JPEG, "answer-1.jpg", None))
    assert not is_image(Screenshot(1, HTML, "answer-1.png", None))
    assert not is_image(Screenshot(1, PNG, "answer-1.jpg", None))
    assert not is_image(Screenshot(1, PNG, None, "refused"))


def test_the_files_to_write_are_the_images_each_named_once_and_nothing_else():
    png, again = Screenshot(1, PNG, "answer-1.png", None), Screenshot(1, PNG, "answer-1.png", None)
    jpeg, html = Screenshot(2, JPEG, "answer-2.jpg", None), Screenshot(3, HTML, "answer-3.png", None)
    refused = Screenshot(4, PNG, None, "its bytes are not a PNG image")
    assert image_files([png, None, again, html, jpeg, refused]) == {"answer-1.png": png, "answer-2.jpg": jpeg}
    assert image_files([]) == {}
