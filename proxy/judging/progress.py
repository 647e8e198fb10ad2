"""A progress bar on stderr while a corpus is judged, only when stderr is a terminal (never in CI logs or pipes)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


def progress_bar(console: Console) -> Callable[[int], AbstractContextManager[Callable[[], None]]]:
    """A factory: given the number of recordings, a context whose value advances the bar by one."""

    @contextmanager
    def bar(total: int) -> Iterator[Callable[[], None]]:
        if not console.is_terminal or total <= 1:
            yield lambda: None
            return
        columns = (TextColumn("judging"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        # no refresh thread: the worker pool forks after the bar starts, and forking a threaded process is unsafe
        with Progress(*columns, console=console, transient=True, auto_refresh=False) as shown:
            task = shown.add_task("judging", total=total)

            def advance() -> None:
                shown.advance(task)
                shown.refresh()

            yield advance

    return bar
