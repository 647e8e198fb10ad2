"""What a person may answer in a by-hand session: y, n or ? (anything else is asked again), and a screenshot only
when it is a PNG or JPEG by its bytes, within the size bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from backchannel.oracle.scenarios.elicitation_ui.checks import (
    by_hand_names_requesting_server,
    by_hand_nothing_opened_before_consent,
    by_hand_url_shown_before_consent,
)
from backchannel.proxy.byhand.plans import Era, elicitation_ui, mrtr_provenance
from backchannel.proxy.byhand.questions import ScreenshotError, parse_answer, read_screenshot
from backchannel.recordings.screenshots import MAX_SCREENSHOT

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 16


@pytest.mark.parametrize(
    ("typed", "answer"),
    [("y", "y"), ("Yes", "y"), (" n ", "n"), ("NO", "n"), ("?", "?"), ("not sure", "?"), ("Unsure", "?")],
)
def test_yes_no_and_not_sure_are_read_in_any_case_and_spacing(typed: str, answer: str) -> None:
    assert parse_answer(typed) == answer


@pytest.mark.parametrize("typed", ["", "maybe", "yess", "y n", "1"])
def test_anything_else_is_no_answer_so_it_is_asked_again(typed: str) -> None:
    assert parse_answer(typed) is None


def test_the_question_ids_are_those_the_oracles_by_hand_checks_read() -> None:
    [ui] = elicitation_ui(Era()).steps
    assert [q.id for q in ui.questions] == [
        by_hand_names_requesting_server.QUESTION,
        by_hand_url_shown_before_consent.QUESTION,
        by_hand_nothing_opened_before_consent.QUESTION,
    ]
    [probe] = mrtr_provenance(Era()).steps
    assert [q.id for q in probe.questions] == [by_hand_names_requesting_server.QUESTION]


@pytest.mark.parametrize(("data", "kind"), [(PNG, "image/png"), (JPEG, "image/jpeg")])
def test_a_png_or_jpeg_is_kept_with_its_type_whatever_its_name(tmp_path: Path, data: bytes, kind: str) -> None:
    path = tmp_path / "shot.txt"  # the name says nothing: the first bytes do
    path.write_bytes(data)
    assert read_screenshot(f"  {path}  ") == (data, kind)


def test_a_file_that_is_not_an_image_is_refused_with_why(tmp_path: Path) -> None:
    path = tmp_path / "shot.png"
    path.write_bytes(b"GIF89a not allowed")
    with pytest.raises(ScreenshotError, match="not a PNG or JPEG"):
        read_screenshot(str(path))


def test_an_image_past_the_bound_is_refused_naming_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "big.png"
    path.write_bytes(PNG + b"\x00" * MAX_SCREENSHOT)
    with pytest.raises(ScreenshotError, match=f"at most {MAX_SCREENSHOT} bytes"):
        read_screenshot(str(path))


def test_a_missing_path_and_a_folder_are_refused_naming_the_path(tmp_path: Path) -> None:
    with pytest.raises(ScreenshotError, match="cannot read .*missing.png"):
        read_screenshot(str(tmp_path / "missing.png"))
    with pytest.raises(ScreenshotError, match="is not a file"):
        read_screenshot(str(tmp_path))
