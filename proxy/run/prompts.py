r"""Answering a piped client at its prompts (`--answer` with `--no-tty`): what `--answer` does under a terminal,
with the client on pipes.

Piping every answer on stdin at once lets a client read an answer before it has shown its question: the recording
then cannot say the user saw the URL before consenting, and a form answered from stdin cannot be told from an
auto-accept. Here an answer is written only when its prompt has been read: the client's output (stdout and stderr,
in the order read) is rendered on a virtual screen (proxy/run/tty.py's `Terminal`, a line feed starting a new line
as on a pipe) and matched exactly as under `--tty`; the screen it answered is an `answered` snapshot (a `screens`
row), taken before the answer is written. In the answer's TEXT, `\n` (Enter) is a line feed here, since a pipe has no
terminal to turn a carriage return into one.

Stdin stays open until the client exits, as a terminal's would (`--stdin` bytes, if any, are written first, with no
end of input after them): a client that waits for end of input before prompting waits until the run's timeout.
Writing never blocks reading: a client that does not read its stdin only leaves the answers unread.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import IO

from backchannel.proxy.run.tty import MAX_SNAPSHOTS, Snapshot, Terminal, TtyOptions

_CLOSE = b""  # queued last: the writer closes the pipe


class PipedPrompts:
    """The virtual screen of one piped run, its matcher, and the writer of the answers to the client's stdin."""

    def __init__(
        self,
        options: TtyOptions,
        stdin: IO[bytes],
        on_snapshot: Callable[[Snapshot], None] | None = None,
        preamble: bytes | None = None,
    ) -> None:
        self.terminal = Terminal(options, newline=True)
        self.on_snapshot = on_snapshot
        self._lock = threading.Lock()  # stdout and stderr are read by two threads; the screen sees one order
        self._pending: queue.SimpleQueue[bytes] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._write, args=(stdin,), name="piped-answers", daemon=True)
        if preamble:
            self._pending.put(preamble)
        self._writer.start()

    def output(self, chunk: bytes) -> None:
        """Take one chunk the client wrote; answer the first prompt it completes, if any."""
        with self._lock:
            self.terminal.feed(chunk)
            found = self.terminal.match()
            if found is None:
                return
            answer, row, col = found
            if self.on_snapshot is not None and self.terminal.snapshots < MAX_SNAPSHOTS:
                self.on_snapshot(self.terminal.snapshot("answered", answer))
            self.terminal.consume(row, col)
            self._pending.put(answer.text.replace("\r", "\n").encode("utf-8"))

    def close(self, timeout: float = 5.0) -> None:
        """Stop writing and close the client's stdin (after the client exited: nothing more will be answered)."""
        self._pending.put(_CLOSE)
        self._writer.join(timeout)

    def _write(self, pipe: IO[bytes]) -> None:
        try:
            while (data := self._pending.get()) != _CLOSE:
                pipe.write(data)
                pipe.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the client closed its stdin or exited: what is left stays unanswered
        finally:
            try:
                pipe.close()
            except (OSError, ValueError):
                pass
