r"""Answering a piped client at its prompts (`--answer` with `--no-tty`): what `--answer` does under a terminal,
with the client on pipes.

Piping every answer on stdin at once lets a client read an answer before it has shown its question: the recording
then cannot say the user saw the URL before consenting, and a form answered from stdin cannot be told from an
auto-accept. Here an answer is written only when its prompt has been read: the client's output (stdout and stderr,
each chunk after it was recorded, in the order the two readers hand them over) is rendered on a virtual screen
(proxy/run/tty.py's `Terminal`, a line feed starting a new line as on a pipe) and matched exactly as under `--tty`;
the screen it answered is an `answered` snapshot (a `screens` row), taken before the answer is written. Two prompts
read at once are both answered, in order. In the answer's TEXT, `\n` (Enter) is a line feed here, since a pipe has
no terminal to turn a carriage return into one.

Stdin stays open until the client exits, as a terminal's would (`--stdin` bytes, if any, are written first, with no
end of input after them): a client that waits for end of input before prompting waits until the run's timeout.

One thread of its own renders, matches and writes, so the readers of the client's output only hand chunks over:
a client printing fast is read as fast as piped without answers (what the screen has not caught up with is
bounded, RENDER_BACKLOG), and writing never blocks (a client that does not read its stdin only leaves the answers
unwritten). Closing stops the thread within WRITE_WAIT, whatever holds the other end of the pipe.
"""

from __future__ import annotations

import os
import select
import threading
from collections.abc import Callable
from typing import IO

from backchannel.proxy.run.tty import Snapshot, Terminal, TtyOptions, keep_last

WRITE_WAIT = 0.1  # seconds between tries of an answer the client's stdin does not take yet
CLOSE_WAIT = 5.0  # seconds close() waits for the thread, at most (it ends within WRITE_WAIT of being told)


class PipedPrompts:
    """The virtual screen of one piped run, its matcher, and the writer of the answers to the client's stdin."""

    def __init__(
        self,
        options: TtyOptions,
        stdin: IO[bytes],
        on_snapshot: Callable[[Snapshot], None] | None = None,
        preamble: bytes | None = None,
    ) -> None:
        self.terminal = Terminal(options, newline=True)  # touched by the prompter thread only
        self.on_snapshot = on_snapshot
        self._pipe = stdin
        self._fd = stdin.fileno()
        os.set_blocking(self._fd, False)
        self._changed = threading.Condition()
        self._incoming = bytearray()  # handed over by the readers, not yet on the screen (at most RENDER_BACKLOG)
        self.dropped = 0  # bytes the screen never got: the readers outran it (the raw streams have them)
        self._closing = False
        self._to_write = bytearray(preamble or b"")  # the prompter thread's own
        self._thread = threading.Thread(target=self._prompter, name="piped-answers", daemon=True)
        self._thread.start()

    def output(self, chunk: bytes) -> None:
        """Hand over one chunk the client wrote (already recorded); never blocks on the screen or the client."""
        with self._changed:
            self.dropped += keep_last(self._incoming, chunk)
            self._changed.notify()

    def close(self) -> None:
        """Stop answering and close the client's stdin (once the client has exited: nothing more will be asked).

        The prompter thread closes the pipe itself, as it ends: closed from here while the thread still ran (a long
        render outlasting CLOSE_WAIT on a busy machine), its next write went to whatever file was opened next under
        the same descriptor number, such as the next capture's recording ("file is not a database")."""
        with self._changed:
            self._closing = True
            self._changed.notify()
        self._thread.join(CLOSE_WAIT)

    def _prompter(self) -> None:
        try:
            self._answer_until_closed()
        finally:
            try:
                self._pipe.close()
            except (OSError, ValueError):
                pass

    def _answer_until_closed(self) -> None:
        while True:
            with self._changed:
                if not self._incoming and not self._closing:
                    self._changed.wait(WRITE_WAIT if self._to_write else None)
                data = bytes(self._incoming)
                self._incoming.clear()
                closing = self._closing
            if data:
                self.terminal.feed(data)
                for answer in self.terminal.answer_all(self._snapshot):
                    self._to_write += answer.text.replace("\r", "\n").encode("utf-8")
            if self._to_write:
                self._write()
            if closing:
                return

    def _snapshot(self, taken: Snapshot) -> None:
        if self.on_snapshot is not None:
            self.on_snapshot(taken)

    def _write(self) -> None:
        """Write what the client's stdin takes now; the rest waits for the next turn. A closed stdin takes nothing
        more, ever: what is left is dropped."""
        try:
            _, writable, _ = select.select([], [self._fd], [], 0)
            if writable:
                written = os.write(self._fd, self._to_write[:65536])
                del self._to_write[:written]
        except BlockingIOError:
            pass
        except (OSError, ValueError):  # the client closed its stdin or exited
            self._to_write.clear()
