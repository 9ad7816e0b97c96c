"""What the runner shows while it works: rich progress columns, the live counters under a
stage's bar, futures in the order they finish, and how long a stage's work over all its units
took."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager

from rich.progress import Progress, ProgressColumn, Task, TaskID
from rich.text import Text


class RateColumn(ProgressColumn):
    """Items per second (units, frames, captions...), from rich's own speed estimate."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:6.1f}/s" if speed else "      /s", style="progress.data.speed")


def reporter(progress: Progress, totals: dict[str, int]) -> Callable[[str, int], None]:
    """Live counters under a stage's bar (frames, captions, model calls...), also kept in
    ``totals`` for the run summary."""
    tasks: dict[str, TaskID] = {}
    lock = threading.Lock()

    def report(counter: str, n: int) -> None:
        if n <= 0:
            return
        with lock:
            totals[counter] = totals.get(counter, 0) + n
            if counter not in tasks:
                tasks[counter] = progress.add_task(f"  {counter}", total=None)
            progress.advance(tasks[counter], n)
    return report


def as_completed(futures: list[Future]) -> Iterable[Future]:
    """Futures as they finish; those finished together in submission order. Each future
    reports its own index through a queue when done (cancelled ones included): linear in the
    number of units, where waiting on the set of the remaining ones is quadratic."""
    finished: queue.SimpleQueue[int] = queue.SimpleQueue()
    for k, fut in enumerate(futures):
        fut.add_done_callback(lambda _f, k=k: finished.put(k))
    left = len(futures)
    while left:
        batch = [finished.get()]
        while True:
            try:
                batch.append(finished.get_nowait())
            except queue.Empty:
                break
        left -= len(batch)
        for k in sorted(batch):
            if not futures[k].cancelled():
                yield futures[k]


@contextmanager
def timed(logger: logging.Logger, step: str) -> Iterator[None]:
    """Log how long ``step`` took (``<step>: 1.2 s``), so that work done once over a whole
    benchmark — not per unit, which the runner times — is measured where it runs
    (`benchmarks/validity_scaling.py` reads these lines)."""
    start = time.perf_counter()
    try:
        yield
    finally:
        logger.info("%s: %.1f s", step, time.perf_counter() - start)
