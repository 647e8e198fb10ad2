"""Command lines run one after another as one client: `connect URL`, then `call TOOL`, for a CLI that needs a session
step before a call (target discovery proposes such an invocation; any `--client` may use it too).

    python -m backchannel.proxy.run.steps FIRST... ';;' THEN...

Every step but the last runs with stdin closed and the lab's environment, its output the client's own; the first
that fails ends the run with its exit code. The last step replaces this process (exec), so it keeps the pid, the
stdin (answers), the terminal and the signals the harness sends, as if it had been run alone. Nothing runs through
a shell: `{url}` was substituted in every word before this module saw them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence

SEPARATOR = ";;"
MODULE = "backchannel.proxy.run.steps"


def steps_argv(*steps: Sequence[str]) -> tuple[str, ...]:
    """One command line that runs `steps` in order (each a command line of its own, none holding SEPARATOR)."""
    words: list[str] = [sys.executable, "-m", MODULE]
    for index, step in enumerate(steps):
        if not step or SEPARATOR in step:
            raise ValueError(f"step {index + 1} is empty or holds {SEPARATOR!r}")
        words.extend([SEPARATOR, *step] if index else step)
    return tuple(words)


def split(argv: Sequence[str]) -> list[list[str]]:
    """The steps of a command line after the module's name; ValueError names an empty step."""
    found: list[list[str]] = [[]]
    for word in argv:
        if word == SEPARATOR:
            found.append([])
        else:
            found[-1].append(word)
    if any(not step for step in found):
        raise ValueError(f"an empty step: give command lines separated by {SEPARATOR!r}")
    return found


def main(argv: Sequence[str] | None = None) -> int:
    try:
        steps = split(sys.argv[1:] if argv is None else argv)
    except ValueError as exc:
        print(f"backchannel steps: {exc}", file=sys.stderr)
        return 2
    *first, last = steps
    for number, step in enumerate(first, start=1):
        try:
            code = subprocess.run(step, stdin=subprocess.DEVNULL, check=False).returncode
        except OSError as exc:
            print(f"backchannel steps: step {number} ({step[0]}) could not start: {exc}", file=sys.stderr)
            return 127
        if code != 0:
            print(f"backchannel steps: step {number} ({step[0]}) exited {code}; the rest was not run", file=sys.stderr)
            return code if code > 0 else 128 - code
    sys.stdout.flush()
    try:
        os.execvp(last[0], last)
    except OSError as exc:
        print(f"backchannel steps: the last step ({last[0]}) could not start: {exc}", file=sys.stderr)
        return 127
    return 0  # not reached: exec replaced this process


if __name__ == "__main__":
    sys.exit(main())
