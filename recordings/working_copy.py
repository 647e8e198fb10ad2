"""A private working copy of a recording that may come from anyone: what `upgrade`, `store_report` and `trim_copy`
change instead of the file itself.

The source is read without ever blocking (a FIFO is refused, never read) and must be a non-empty SQLite file. The
copy is made beside where it will end up, so the caller moves it there in one step (os.replace, os.link): the
original is either untouched or wholly replaced. Whatever happens, no temp file is left behind.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import RecordingError, RecordingFormatError

SQLITE_HEADER = b"SQLite format 3\x00"
_KINDS = {stat.S_IFDIR: "a directory", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device"}


@contextmanager
def working_copy(target: Path, *, beside: Path, suffix: str, untouched: str) -> Iterator[Path]:
    """A checked copy of `target` in `beside`'s folder, removed (with any journal) when the block ends.

    Refused while a -wal with rows sits beside `target`: another process may be writing it, its newest rows are
    there, and a copy of the file alone lacks them. `untouched` ends that message (what the caller did not do).
    """
    wal = target.with_name(target.name + "-wal")
    if wal.is_file() and wal.stat().st_size > 0:
        raise RecordingError(f"{target} has a -wal beside it: another process may be writing it; {untouched}")
    fd, name = tempfile.mkstemp(prefix=f".{beside.name}.", suffix=suffix, dir=beside.parent)
    copy = Path(name)
    try:
        try:
            copy_checked(target, fd)
        finally:
            os.close(fd)
        yield copy
    finally:
        for leftover in (copy, copy.with_name(copy.name + "-journal")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def copy_checked(target: Path, into: int) -> None:
    """Copy `target` into the open file `into`, refusing anything that is not a non-empty SQLite file."""
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK)  # O_NONBLOCK: a FIFO must never block us
    except FileNotFoundError:
        raise RecordingError(f"{target}: no such file; give the path of an existing recording") from None
    except IsADirectoryError:
        raise RecordingError(f"{target} is a directory, not a recording") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
            raise RecordingError(f"{target} is {kind}, not a recording; nothing was changed")
        if info.st_size == 0:
            raise RecordingError(f"{target} is empty, not a recording; nothing was changed")
        head = os.pread(fd, len(SQLITE_HEADER), 0)
        if head != SQLITE_HEADER:
            raise RecordingFormatError(f"{target} is not a SQLite database, so not a recording; nothing was changed")
        offset = 0
        while chunk := os.pread(fd, 1 << 20, offset):
            os.write(into, chunk)
            offset += len(chunk)
    finally:
        os.close(fd)
