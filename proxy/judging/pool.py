"""Running one function over many items in worker processes, results in item order, through a pool that survives a
worker dying.

A worker can die under any item: the OOM killer (a recording may hold a gigabyte of cells), a crash in a library.
`multiprocessing.Pool` never returns the task a dead worker held, so the run hung for ever; `concurrent.futures`
notices, but then fails every item not yet done and cannot say which one killed the worker. So:

- items go out in chunks, at most WINDOW_PER_WORKER chunks a worker ahead of the one the caller waits for: the
  parent holds only the results it has not yet handed on (the corpus output's memory does not grow with the
  corpus), and a caller that stops early waits for little;
- when the pool breaks, what finished is kept, and every item it failed is run again in a new pool, one item per
  chunk; an item failed by a second broken pool runs alone, in a process of its own, where its fate is its own:
  `lost(item)` is its result if that process dies too.

Every item's result is yielded exactly once, in item order.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import BaseContext

WINDOW_PER_WORKER = 3  # chunks sent ahead per worker: enough that no worker waits on the parent, few to hold


def run_chunk[Item, Result](run: Callable[[Item], Result], chunk: list[Item]) -> list[Result]:
    """In a worker: `run` over one chunk (`run` is sent by reference: a module-level function)."""
    return [run(item) for item in chunk]


def in_order[Item, Result](
    items: Sequence[Item],
    run: Callable[[Item], Result],
    lost: Callable[[Item], Result],
    *,
    workers: int,
    size: int,
    context: BaseContext,
) -> Iterator[Result]:
    """`run(item)` for every item, in `workers` processes, in item order; `lost(item)` for an item whose own
    process died (module docstring)."""
    slots: list[list[int]] = [list(range(start, min(start + size, len(items)))) for start in range(0, len(items), size)]
    todo: deque[int] = deque(range(len(slots)))  # slots to send, the next item's first
    finished: dict[int, Result] = {}  # results not yet yielded, by item index
    strikes: Counter[int] = Counter()  # how many broken pools failed each item
    emitted = 0
    while emitted < len(items):
        flying: dict[int, Future[list[Result]]] = {}
        pool = ProcessPoolExecutor(workers, mp_context=context)
        broken, ended = False, False
        try:
            while emitted < len(items):
                while emitted in finished:
                    yield finished.pop(emitted)
                    emitted += 1
                if emitted == len(items):
                    break
                while todo and len(flying) < workers * WINDOW_PER_WORKER:
                    chunk = [items[i] for i in slots[todo[0]]]
                    flying[todo[0]] = pool.submit(run_chunk, run, chunk)  # BrokenProcessPool once a worker died
                    todo.popleft()
                waited = next(slot for slot in flying if emitted in slots[slot])  # sent in order: it is flying
                results = flying[waited].result()
                del flying[waited]
                finished.update(zip(slots[waited], results, strict=True))
            ended = True
        except BrokenProcessPool:
            broken = True
        finally:
            _close(pool, cleanly=ended or broken)
        if broken:
            again = _retry(flying, slots, finished, strikes, lambda i: _alone(run, lost, items[i], context))
            todo.extendleft(reversed(again))


def _retry[Result](
    flying: dict[int, Future[list[Result]]],
    slots: list[list[int]],
    finished: dict[int, Result],
    strikes: Counter[int],
    alone: Callable[[int], Result],
) -> list[int]:
    """After a broken pool: the flying chunks that finished are kept; every item of the others becomes a slot of its
    own (returned, in item order, to be sent first), or, failed by a second broken pool, runs alone now."""
    again: list[int] = []
    for slot, future in flying.items():
        if future.done() and not future.cancelled() and future.exception() is None:
            finished.update(zip(slots[slot], future.result(), strict=True))
            continue
        for index in slots[slot]:
            strikes[index] += 1
            if strikes[index] >= 2:
                finished[index] = alone(index)
            else:
                slots.append([index])
                again.append(len(slots) - 1)
    return sorted(again, key=lambda slot: slots[slot][0])


def _alone[Item, Result](
    run: Callable[[Item], Result], lost: Callable[[Item], Result], item: Item, context: BaseContext
) -> Result:
    """One item run in a process of its own; `lost(item)` when that process dies too."""
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        try:
            (result,) = pool.submit(run_chunk, run, [item]).result()
        except BrokenProcessPool:
            return lost(item)
    return result


def _close(pool: ProcessPoolExecutor, *, cleanly: bool) -> None:
    """Shut the pool down. When the caller stopped early (it stopped reading, Ctrl-C, an error such as a scenario
    that cannot load), the workers are stopped at once rather than left to finish the chunks already sent."""
    if not cleanly:
        # the executor keeps its workers here (CPython 3.12; `terminate_workers` only comes in 3.14)
        workers = list((getattr(pool, "_processes", None) or {}).values())
        for process in workers:
            process.terminate()
        for process in workers:
            process.join()
        # A worker stopped while it was sending a large result leaves the executor's thread waiting for the rest of
        # it for ever (this process holds the pipe's writing end too, so no end of file comes) and the shutdown
        # below with it. With every worker gone, nothing else writes there: closing our end lets that read end.
        writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
        if writer is not None:
            writer.close()
    pool.shutdown(wait=True, cancel_futures=True)
