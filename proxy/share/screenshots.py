"""A person's screenshots in a shared folder: written beside REPORT.md, and said aloud on stderr.

Redaction reads text; it cannot see a token or a home folder drawn in an image. So the images are shared as the
person gave them, stderr says so every time (and how to leave them out: `--no-screenshots`), and an image is
written only when its bytes are the image its row says (recordings/screenshots.py), checked again here where the
file is made, since a recording may come from a stranger.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import BinaryIO

from backchannel.recordings.model import Recording
from backchannel.recordings.screenshots import Screenshot, image_files

from .files import ShareError, publish

SCREENSHOTS = "screenshots"  # the bug-report folder's subfolder: REPORT.md links `screenshots/answer-<seq>.png`


def write_screenshots(folder: Path, shots: Iterable[Screenshot]) -> list[Path]:
    """Write each screenshot that is an image into `folder/screenshots/` under its own name (each once); the files
    written, in name order. Nothing is made when there is none."""
    ready = image_files(shots)
    if not ready:
        return []
    target = folder / SCREENSHOTS
    try:
        target.mkdir()
    except OSError as exc:
        raise ShareError(f"cannot make {target}: {exc.strerror or exc}") from exc
    written = []
    for name, shot in sorted(ready.items()):
        publish(target / name, partial(_write_all, shot.data))
        written.append(target / name)
    return written


def _write_all(data: bytes, handle: BinaryIO) -> None:
    handle.write(data)


def screenshots_in(rec: Recording, run_ids: Iterable[str] | None = None) -> int:
    """How many answers (of these runs; None: all) carry a screenshot."""
    runs = None if run_ids is None else set(run_ids)
    return sum(1 for a in rec.attestations if a.screenshot is not None and (runs is None or a.run_id in runs))


def screenshot_lines(count: int, *, kept: bool) -> list[str]:
    """What stderr says about the screenshots a shared copy holds (`kept`) or was made without; nothing for none."""
    if not count:
        return []
    if kept:
        return [
            f"kept {count} screenshot(s) as the person gave them: redaction cannot read images "
            "(--no-screenshots leaves them out)"
        ]
    return [f"left out {count} screenshot(s) (--no-screenshots)"]
