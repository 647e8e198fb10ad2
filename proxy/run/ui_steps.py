r"""Keys the lab itself types into a terminal UI: an interactive coding agent's task, and the keys that end it.

An agent's terminal UI (`--tty`) reads its task from the keyboard and never exits on its own. So the lab types for
it, in steps, each one when three things hold: its `Gate` is open (an event in this process: the run's server has
listed its tools, the model stand-in has given its last answer), the screen has been quiet for the terminal's quiet
period (the UI is drawn and waiting), and the step's `ready` pattern matches the rendered screen (its input box, not
a dialog). Each step is snapshotted as `typed` (never `answered`: an answer is the user's step, these are the lab's).

Keys are typed as keystroke groups (`split_keys`): Enter alone, after the text before it was echoed. A terminal UI
that reads a burst of characters as one paste (Claude Code's, Codex's) takes an Enter inside that burst as a new
line in its input box, not as "send".
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

ENTER = "\r"


class Gate:
    """A one-way event a terminal's select loop can wait on: `open()` from any thread wakes `fd`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._event = threading.Event()
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        self._lock = threading.Lock()
        self._closed = False

    @property
    def fd(self) -> int:
        return self._read

    @property
    def is_open(self) -> bool:
        return self._event.is_set()

    def open(self) -> None:
        with self._lock:
            if self._event.is_set() or self._closed:
                self._event.set()
                return
            self._event.set()
            os.write(self._write, b"x")

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for fd in (self._read, self._write):
                try:
                    os.close(fd)
                except OSError:
                    pass

    def __repr__(self) -> str:
        return f"Gate({self.name!r}, open={self.is_open})"


@dataclass(frozen=True)
class UiStep:
    """Type `keys` (keystroke groups, each after the last one's echo) once `gate` is open (None: at once), the
    screen is quiet, and `ready` (a regex, None: any screen) matches it. `ends` marks the step that ends the UI."""

    name: str
    keys: tuple[str, ...]
    ready: str | None = None
    gate: Gate | None = None
    ends: bool = False
    regex: re.Pattern[str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        compiled = None
        if self.ready is not None:
            try:
                compiled = re.compile(self.ready, re.MULTILINE)
            except re.error as exc:
                raise ValueError(f"the {self.name} step's ready pattern {self.ready!r}: {exc}") from None
        object.__setattr__(self, "regex", compiled)

    def text(self) -> str:
        return "".join(self.keys)


def split_keys(text: str) -> tuple[str, ...]:
    """Text as keystroke groups: every Enter on its own, the text between kept together.

    `"y\r"` → `("y", "\r")`; `"\r"` → `("\r",)`; `"ab\rcd\r"` → `("ab", "\r", "cd", "\r")`."""
    groups: list[str] = []
    for piece in re.split(f"({re.escape(ENTER)})", text):
        if piece:
            groups.append(piece)
    return tuple(groups)


def key_groups(keys: Sequence[str]) -> tuple[str, ...]:
    """A step's keys as keystroke groups: each given group, split again at its Enters."""
    return tuple(group for key in keys for group in split_keys(key))
