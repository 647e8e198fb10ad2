"""The questions the wire cannot answer, and what a person may answer: y, n or ?, and an optional screenshot.

A person's input is untrusted: an answer that is not one of the three is asked again, and a screenshot must be a
PNG or JPEG (by its first bytes, not its name) no larger than MAX_SCREENSHOT, else it is refused with why.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from backchannel.recordings.screenshots import MAX_SCREENSHOT, sniffed_type

ANSWERS = {"y": "y", "yes": "y", "n": "n", "no": "n", "?": "?", "not sure": "?", "unsure": "?"}
PROMPT = "[y]es/[n]o/[?] not sure"


@dataclass(frozen=True)
class Question:
    id: str
    text: str  # in the scenario's own words, with the server's name or URL filled in


class ScreenshotError(ValueError):
    """A screenshot path that cannot be kept; the message says which and why."""


def parse_answer(typed: str) -> str | None:
    """y, n or ? for what a person typed (case and spaces aside), None for anything else."""
    return ANSWERS.get(typed.strip().lower())


def read_screenshot(typed: str) -> tuple[bytes, str]:
    """The image's bytes and type; ScreenshotError names the path and what is wrong with it."""
    path = Path(typed.strip()).expanduser()
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise ScreenshotError(f"{path} is not a file")
        if size > MAX_SCREENSHOT:
            raise ScreenshotError(f"{path} is {size} bytes; a screenshot may be at most {MAX_SCREENSHOT} bytes")
        data = path.read_bytes()[: MAX_SCREENSHOT + 1]
    except OSError as exc:
        raise ScreenshotError(f"cannot read {path}: {exc.strerror or exc}") from exc
    kind = sniffed_type(data)  # the same test a bug report and the matrix apply before showing it
    if kind is not None:
        return data, kind
    raise ScreenshotError(f"{path} is not a PNG or JPEG image (its first bytes say otherwise)")
