"""Output text written as it is made and printed once at the end: in memory while it is small, then in an unnamed
temporary file, so a corpus of any size is printed without holding its whole output (or every report) in memory."""

from __future__ import annotations

import tempfile
from typing import IO

IN_MEMORY = 8 * 1024 * 1024  # characters kept in memory before the spool moves to a temporary file
CHUNK = 1024 * 1024  # characters copied out at a time


class Spool:
    """Text appended piece by piece, then copied out whole. Every string round-trips exactly, a lone surrogate
    included (a report may quote one), so what is printed is what was written, as if it had been one string."""

    def __init__(self, in_memory: int | None = None) -> None:
        self._file = tempfile.SpooledTemporaryFile(  # noqa: SIM115 - closed by close(), after the copy
            max_size=IN_MEMORY if in_memory is None else in_memory,
            mode="w+",
            encoding="utf-8",
            errors="surrogatepass",
            newline="",
        )
        self.empty = True

    def write(self, text: str) -> None:
        if text:
            self._file.write(text)
            self.empty = False

    def copy_to(self, out: IO[str]) -> None:
        """Everything written so far, to `out`, a chunk at a time."""
        self._file.seek(0)
        while chunk := self._file.read(CHUNK):
            out.write(chunk)

    def read(self) -> str:
        """Everything written so far, as one string (for callers that want the whole text)."""
        self._file.seek(0)
        text: str = self._file.read()
        return text

    def close(self) -> None:
        self._file.close()
