"""Writing an export file: whole or not at all, and never over an existing file."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


class ShareError(Exception):
    """An export or bug report cannot be made as asked; the message says why and what to do, on one line."""


def publish(out: Path, write: Callable[[BinaryIO], object]) -> None:
    """Write `out` through `write` into a temporary file beside it, then link it into place (refused if it exists)."""
    if out.exists() or out.is_symlink():
        raise ShareError(f"{out} already exists; choose another --out or remove it (nothing was written)")
    if not out.parent.is_dir():
        raise ShareError(f"{out.parent} is not a folder; choose an --out in an existing folder")
    fd, name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".writing", dir=out.parent)
    temp = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
        try:
            os.link(temp, out)  # unlike rename, never replaces a file that appeared meanwhile
        except FileExistsError:
            raise ShareError(f"{out} already exists; choose another --out or remove it (nothing was written)") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
