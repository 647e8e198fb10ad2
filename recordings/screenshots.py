"""A person's screenshot as a recording holds it, checked before anything shows it as an image.

The by-hand guide keeps a screenshot only when its first bytes say PNG or JPEG (proxy/byhand/questions.py reads
these same magics and bound), but a recording may come from a stranger: a row may say image/png and hold HTML.
So whatever writes one out (a bug report's folder, the matrix site) asks here first, and names the file from the
answer's number only, never from anything the recording says.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .model import Attestation

MAX_SCREENSHOT = 2 * 1024 * 1024  # what the guide accepts; anything larger was not written by it
MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"))
SUFFIX = {"image/png": "png", "image/jpeg": "jpg"}
SAID_TYPE = {"image/png": "a PNG image", "image/jpeg": "a JPEG image"}


def sniffed_type(data: bytes) -> str | None:
    """image/png or image/jpeg by the first bytes, None for anything else."""
    return next((kind for magic, kind in MAGIC if data.startswith(magic)), None)


@dataclass(frozen=True, slots=True)
class Screenshot:
    """The screenshot given with answer `seq`: `file_name` when its bytes are the image its type says, else
    `refused` says why it is not shown (in backchannel's words: nothing from the recording)."""

    seq: int
    data: bytes
    file_name: str | None
    refused: str | None


def screenshot_of(answer: Attestation) -> Screenshot | None:
    """The answer's screenshot, checked; None when the answer came with none."""
    data, declared = answer.screenshot, answer.screenshot_type
    if data is None and declared is None:
        return None
    if data is None:  # its type kept, its bytes not: redaction leaves out an image it would have changed
        return Screenshot(answer.seq, b"", None, "it is not in this copy: its bytes held text redaction would change")
    if declared not in SUFFIX:
        return Screenshot(answer.seq, data, None, "its image type is not named")
    if len(data) > MAX_SCREENSHOT:
        return Screenshot(answer.seq, data, None, f"it is larger than {MAX_SCREENSHOT} bytes")
    if sniffed_type(data) != declared:
        return Screenshot(answer.seq, data, None, f"its bytes are not {SAID_TYPE[declared]}")
    return Screenshot(answer.seq, data, f"answer-{answer.seq}.{SUFFIX[declared]}", None)


def is_image(shot: Screenshot) -> bool:
    """True when `shot` has a file name whose suffix is the type its bytes themselves say: asked again where the
    file is made, since a name alone proves nothing about the bytes."""
    kind = sniffed_type(shot.data)
    return kind is not None and shot.file_name is not None and shot.file_name.endswith(f".{SUFFIX[kind]}")


def image_files(shots: Iterable[Screenshot | None]) -> dict[str, Screenshot]:
    """The shots to write as files, by file name: each an image by its own bytes (`is_image`), each name once (one
    answer may be cited many times, always with the same bytes). What the bug report and the matrix both write."""
    found: dict[str, Screenshot] = {}
    for shot in shots:
        if shot is not None and shot.file_name is not None and is_image(shot):
            found.setdefault(shot.file_name, shot)
    return found
