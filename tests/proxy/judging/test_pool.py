"""The pool behind `judge --jobs N`: every item's result once, in item order, whatever workers die on the way."""

from __future__ import annotations

import multiprocessing
import os
import signal

import pytest

from backchannel.proxy.judging import pool

FORK = multiprocessing.get_context("fork")
KILLERS = {7, 8}  # items whose running kills the process that runs them


def square(item: int) -> int:
    return item * item


def square_or_die(item: int) -> int:
    if item in KILLERS:
        os.kill(os.getpid(), signal.SIGKILL)
    return item * item


def lost(item: int) -> int:
    return -item


@pytest.mark.parametrize(("workers", "size"), [(1, 1), (2, 1), (2, 5), (3, 4), (2, 100)])
def test_every_result_comes_once_in_item_order(workers: int, size: int) -> None:
    items = list(range(37))
    assert list(pool.in_order(items, square, lost, workers=workers, size=size, context=FORK)) == [i * i for i in items]


@pytest.mark.parametrize(("workers", "size"), [(2, 1), (2, 3), (2, 16), (3, 5)])
def test_only_the_items_whose_own_process_dies_are_lost_and_every_other_is_run(workers: int, size: int) -> None:
    items = list(range(30))
    got = list(pool.in_order(items, square_or_die, lost, workers=workers, size=size, context=FORK))
    assert got == [-i if i in KILLERS else i * i for i in items]
    assert multiprocessing.active_children() == []


def test_no_items_is_no_results() -> None:
    assert list(pool.in_order([], square, lost, workers=2, size=1, context=FORK)) == []
