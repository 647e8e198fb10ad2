"""A spool: text written piece by piece comes back whole, the same characters, from memory or from disk."""

from __future__ import annotations

import io

import pytest

from backchannel.proxy.judging.spool import Spool

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
