"""Output text written as it is made and printed once at the end: in memory while it is small, then in an unnamed
temporary file, so a corpus of any size is printed without holding its whole output (or every report) in memory."""

from __future__ import annotations

import contextlib
import tempfile
from typing import IO

IN_MEMORY = 8 * 1024 * 1024  # bytes (UTF-8) kept in memory before the spool moves to a temporary file
CHUNK = 1024 * 1024  # characters copied out at a time


class SpoolError(Exception):
    """The spool could not be written (its temporary file's disk is full, or a file size limit): one line, exit 2,
    said before anything is printed."""


class Spool:
    """Text appended piece by piece, then copied out whole. Every string round-trips exactly, a lone surrogate
    included, so what is printed is what was written, as if it had been one string.

    `finish` before printing anything: a write to the temporary file can fail only when it is flushed, and a
    failure then must be a clear error, not a document cut after its head."""

    def __init__(self, in_memory: int | None = None) -> None:
        self._file = tempfile.SpooledTemporaryFile(  # noqa: SIM115 - closed by close(), after the copy
            max_size=max(1, IN_MEMORY if in_memory is None else in_memory),  # 0 would mean never to disk
            mode="w+",
            encoding="utf-8",
            errors="surrogatepass",
            newline="",
        )
        self.empty = True

    def write(self, text: str) -> None:
        if text:
            try:
                self._file.write(text)
            except OSError as exc:
                raise SpoolError(self._cannot(exc)) from exc
            self.empty = False

    def finish(self) -> None:
        """Everything written is stored (flushed to its file if it has one); raises SpoolError if it is not."""
        try:
            self._file.flush()
            self._file.seek(0)
        except OSError as exc:
            raise SpoolError(self._cannot(exc)) from exc

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
        with contextlib.suppress(OSError):  # a file whose last write failed fails its close too: said already
            self._file.close()

    @staticmethod
    def _cannot(exc: OSError) -> str:
        where = tempfile.gettempdir()
        return f"cannot keep the output in a temporary file under {where} ($TMPDIR): {exc.strerror or exc}"
