"""A spool: text written piece by piece comes back whole, the same characters, from memory or from disk."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from backchannel.proxy.judging.spool import Spool, SpoolError
from tests.proxy.judging.conftest import BOUND_S, FLAWED, PASSING, copy_in

PIECES = ["plain ", "caf\u00e9 \u4e2d\u6587\n", "a lone surrogate \udcff kept", "", "\u202e bidi", "x" * 5000]


@pytest.mark.parametrize("in_memory", [16, 1 << 20], ids=["rolled-over-to-disk", "in-memory"])
def test_what_was_written_is_copied_out_and_read_back_exactly(in_memory: int) -> None:
    spool = Spool(in_memory)
    for piece in PIECES:
        spool.write(piece)
    out = io.StringIO()
    spool.copy_to(out)
    assert out.getvalue() == spool.read() == "".join(PIECES)
    spool.close()


def test_a_spool_is_empty_until_something_that_is_not_empty_is_written() -> None:
    spool = Spool()
    spool.write("")
    assert spool.empty
    spool.write("x")
    assert not spool.empty
    spool.close()


class _FullDisk(io.StringIO):
    """A temporary file whose disk filled up: its writes succeed, and the flush finds that they did not."""

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    def close(self) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_a_spool_that_could_not_be_stored_is_one_clear_error_at_finish_and_closes_quietly() -> None:
    spool = Spool()
    spool.write("x")
    spool._file.close()
    spool._file = _FullDisk()  # type: ignore[assignment]  # the disk under its temporary file is full
    with pytest.raises(SpoolError, match=r"cannot keep the output in a temporary file under .*No space left"):
        spool.finish()
    spool.close()  # said already: closing does not raise a second time


def test_judging_into_a_temporary_folder_with_no_room_is_exit_2_with_one_line_and_nothing_printed(
    tmp_path: Path,
) -> None:
    # a real file size limit in a child process: the spool moves to disk early and cannot grow there
    folder = tmp_path / "c"
    copy_in(folder, FLAWED, *PASSING)
    script = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))\n"
        "from backchannel.proxy.judging import spool\n"
        "spool.IN_MEMORY = 512\n"
        "from backchannel.proxy.cli import main\n"
        f"sys.argv = ['backchannel', 'judge', {str(folder)!r}, '--format', 'json', '--jobs', '1']\n"
        "main()\n"
    )
    # -B: under the limit a module's bytecode would be written cut short, and every later import of it would fail
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    argv = [sys.executable, "-B", "-c", script]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=BOUND_S, env=env)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "cannot keep the output in a temporary file under" in done.stderr
    assert "Traceback" not in done.stderr
