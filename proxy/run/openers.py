"""Stand-ins for the common URL openers: first on a lab's PATH and in BROWSER, they open nothing and record each call.

A client that opens a URL (an elicitation's, say) goes through one of these or through `BROWSER` (Python's
`webbrowser`, many CLIs). Each stand-in is a tiny `/bin/sh` script written per lab (about a third of the start-up
time of a Python one): it appends one record to a log in the lab root, outside HOME, and exits 0 without a word.
It never writes the recording and never executes, expands or interprets its arguments (`printf '%s'` only).

A record is NUL-separated fields, written by one `printf`: the magic, the opener's name, the time
(`date +%s.%N`), the argument count, then each argument (an argument can hold any byte but NUL, so none is ever
ambiguous). The lab is the client's territory: after the run the harness reads the log as untrusted input, bounded
(`MAX_LOG_BYTES` read, `MAX_INVOCATIONS` kept, `MAX_ARGV_BYTES` of each argv), refusing symlinks and anything
that is not a regular file; whatever is wrong with it comes back as a problem (an anomaly), never an exception.
"""

from __future__ import annotations

import math
import os
import shlex
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

# the openers clients reach for, on Linux, macOS (`open`), GNOME (`gio open`), Debian's alternatives and WSL
OPENERS = ("xdg-open", "open", "sensible-browser", "x-www-browser", "www-browser", "gio", "wslview")
BROWSER_OPENER = "xdg-open"  # the stand-in `BROWSER` names
BIN_DIR = "openers"  # in the lab root, beside home/ and work/
LOG_NAME = "openers.log"
MAGIC = b"backchannel-open-1"

MAX_LOG_BYTES = 4 * 1024 * 1024  # read of the log; past it, an `opener-log-oversized` anomaly
MAX_INVOCATIONS = 200  # kept per run; past it, an `opener-log-limit` anomaly counts the rest
MAX_ARGV_BYTES = 4096  # of one call's arguments (each counted with its NUL); past it the argv is cut, `truncated`
_MAX_FIELD = 64  # the opener's name, its time and its argument count are short


@dataclass(frozen=True, slots=True)
class Invocation:
    """One call of a stand-in: which opener, its arguments (not its own name), when (None: unknown)."""

    opener: str
    argv: tuple[str, ...]
    t: float | None
    truncated: bool = False  # the arguments were cut at MAX_ARGV_BYTES


@dataclass(frozen=True, slots=True)
class LogProblem:
    """Something wrong with a run's opener log, as an anomaly kind and a sentence."""

    kind: str  # opener-log-unreadable | opener-log-oversized | opener-log-malformed | opener-log-limit
    detail: str


@dataclass(frozen=True, slots=True)
class OpenerLog:
    invocations: tuple[Invocation, ...]
    problems: tuple[LogProblem, ...]


def script(name: str, log: Path, date: str | None) -> str:
    """The stand-in for `name`: appends one record of its call to `log` and exits 0, printing nothing."""
    if name not in OPENERS:
        raise ValueError(f"{name!r} is not one of the stand-in openers ({', '.join(OPENERS)})")
    clock = f"t=$({shlex.quote(date)} +%s.%N 2>/dev/null)" if date else "t="
    return (
        "#!/bin/sh\n"
        f"# backchannel's stand-in for {name}: it opens nothing. It records this call (its name, the time, every\n"
        "# argument, never expanded or run) in the lab's opener log, and exits 0 without a word.\n"
        f"{clock}\n"
        f'printf \'%s\\0\' {MAGIC.decode()} {name} "$t" "$#" "$@" >>{shlex.quote(str(log))} 2>/dev/null\n'
        "exit 0\n"
    )


def install(root: Path) -> Path:
    """Write the stand-ins into `root`/openers (owner-only) and return that folder; they log to `root`/openers.log."""
    folder = root / BIN_DIR
    folder.mkdir(mode=0o700)
    date = shutil.which("date")  # found on the harness's PATH: the client's PATH cannot swap it
    for name in OPENERS:
        path = folder / name
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o700)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(script(name, root / LOG_NAME, date))
    return folder


def read_log(path: Path) -> OpenerLog:
    """The calls a run's stand-ins recorded, bounded; a log that is absent holds none (no stand-in was called)."""
    data, problems = _read_bounded(path)
    if data is None:
        return OpenerLog((), tuple(problems))
    invocations, more = _parse(data, cut=bool(problems), problems=problems)
    if more:
        problems.append(
            LogProblem(
                "opener-log-limit",
                f"the URL openers were called {MAX_INVOCATIONS + more} times; the first {MAX_INVOCATIONS} are "
                f"recorded, {more} more are not",
            )
        )
    return OpenerLog(tuple(invocations), tuple(problems))


def _read_bounded(path: Path) -> tuple[bytes | None, list[LogProblem]]:
    """At most MAX_LOG_BYTES of the log, never through a symlink, never blocking on a FIFO."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None, []
    except OSError as exc:
        why = "is a symlink" if path.is_symlink() else f"cannot be opened ({exc.strerror or exc})"
        return None, [LogProblem("opener-log-unreadable", f"the URL-opener log {why}; no call of it is recorded")]
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            detail = "the URL-opener log is not a regular file; no call of it is recorded"
            return None, [LogProblem("opener-log-unreadable", detail)]
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_LOG_BYTES and (chunk := os.read(fd, min(1 << 20, MAX_LOG_BYTES + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        return None, [LogProblem("opener-log-unreadable", f"the URL-opener log cannot be read ({exc.strerror or exc})")]
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) <= MAX_LOG_BYTES:
        return data, []
    detail = (
        f"the URL-opener log holds {max(info.st_size, len(data))} bytes, over the {MAX_LOG_BYTES} read; "
        f"the calls in its first {MAX_LOG_BYTES} bytes are recorded"
    )
    return data[:MAX_LOG_BYTES], [LogProblem("opener-log-oversized", detail)]


class _Malformed(Exception):
    pass


class _Cut(Exception):
    pass


class _Fields:
    """NUL-terminated fields of the log, read one by one from a cursor (no list of every field: the log is hostile)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def at_end(self) -> bool:
        return self.pos >= len(self.data)

    def end_of_next(self) -> int:
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            raise _Cut
        return end

    def short(self, what: str) -> bytes:
        end = self.data.find(b"\0", self.pos, self.pos + _MAX_FIELD + 1)
        if end < 0:
            if self.data.find(b"\0", self.pos) < 0 and len(self.data) - self.pos <= _MAX_FIELD:
                raise _Cut
            raise _Malformed(f"its {what} is longer than {_MAX_FIELD} bytes")
        field = self.data[self.pos : end]
        self.pos = end + 1
        return field


def _parse(data: bytes, *, cut: bool, problems: list[LogProblem]) -> tuple[list[Invocation], int]:
    """The calls in the log, up to MAX_INVOCATIONS, and how many more it holds; a problem for what is wrong."""
    fields = _Fields(data)
    kept: list[Invocation] = []
    more = 0
    while not fields.at_end():
        start = fields.pos
        try:
            found = _record(fields, keep=len(kept) < MAX_INVOCATIONS)
        except _Cut:
            if not cut:  # a log cut at MAX_LOG_BYTES ends mid-record, and the oversized anomaly says so already
                problems.append(_malformed(start, "it ends in the middle of a call", len(kept) + more))
            break
        except _Malformed as exc:
            problems.append(_malformed(start, str(exc), len(kept) + more))
            break
        if found is None:
            more += 1
        else:
            kept.append(found)
    return kept, more


def _malformed(offset: int, why: str, read: int) -> LogProblem:
    detail = (
        f"the URL-opener log is malformed at byte {offset}: {why}; "
        f"the {read} call{'s' if read != 1 else ''} before it {'are' if read != 1 else 'is'} recorded, the rest is not"
    )
    return LogProblem("opener-log-malformed", detail)


def _record(fields: _Fields, *, keep: bool) -> Invocation | None:
    rest = fields.data[fields.pos : fields.pos + len(MAGIC)]
    try:
        magic = fields.short("magic")
    except _Cut:
        if not MAGIC.startswith(rest):  # a tail that could never become a record is not merely cut short
            raise _Malformed("it is not a stand-in's record") from None
        raise
    except _Malformed:
        magic = b""
    if magic != MAGIC:
        raise _Malformed("it is not a stand-in's record")
    name = fields.short("opener name").decode("ascii", "replace")
    if name not in OPENERS:
        raise _Malformed("it names no stand-in opener")
    t = _time(fields.short("time"))
    count_field = fields.short("argument count")
    if not count_field.isdigit() or len(count_field) > 9:
        raise _Malformed("its argument count is not a number")
    count = int(count_field)
    argv: list[str] = []
    budget = MAX_ARGV_BYTES
    truncated = False
    for _ in range(count):
        end = fields.end_of_next()
        if keep and not truncated:
            raw = fields.data[fields.pos : end]
            if len(raw) + 1 > budget:
                raw, truncated = raw[: max(0, budget - 1)], True
                if raw:
                    argv.append(raw.decode("utf-8", "replace"))
            else:
                argv.append(raw.decode("utf-8", "replace"))
            budget -= len(raw) + 1
        fields.pos = end + 1
    return Invocation(name, tuple(argv), t, truncated) if keep else None


def _time(field: bytes) -> float | None:
    """`date +%s.%N`: seconds since the epoch; anything else (no `date`, a forged record) is an unknown time."""
    try:
        value = float(field.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if math.isfinite(value) and value >= 0 else None
