"""How many threads a forward pass runs on (MiniLM's embeddings, BERTScore), whatever another
library of the process left the shared OpenMP runtime at."""

from __future__ import annotations

import contextlib
import logging
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from typing import TypeVar

from xlebench.runner.cores import pass_threads

__all__ = ["intra_op_threads", "pass_threads", "passes_in_threads"]

log = logging.getLogger(__name__)
T, R = TypeVar("T"), TypeVar("R")


@contextlib.contextmanager
def intra_op_threads() -> Iterator[None]:
    """torch at `pass_threads` for the block, its setting restored after. Why: torch reads its
    thread count from the OpenMP runtime it shares with FAISS, and loading an index
    (`xlebench.library.index.load_index`) sets that to one thread for the searches; every
    later pass of the process then ran on one core (the evaluate stage's model metrics at ten
    times the paper grid: 240 s instead of about 130). Restored after, so FAISS keeps its
    own. A text's vectors do not depend on the count (`same_length_batches`)."""
    import torch

    before, want = torch.get_num_threads(), pass_threads()
    if before != want:
        torch.set_num_threads(want)
    try:
        yield
    finally:
        if before != want:
            torch.set_num_threads(before)


def passes_in_threads(items: Iterable[T], count: int, run: Callable[[T], R]) -> Iterator[R]:
    """``run`` over the ``count`` ``items``, results in their order, on `pass_threads` threads
    of one torch thread each (here, at `pass_threads`, where that is one or there is one item).

    Why: a forward pass of a few dozen short sentences keeps two intra-op threads only
    partly busy (3,000 of the library's summaries in 73 equal-length passes on the 2-core
    AMD EPYC: 22.0 s on one thread, 13.0 s on two, 11.0 s as two passes at once), and torch
    releases the GIL inside its operators, so passes side by side fill the cores; on many
    cores the gap widens. A pass's bits do not depend on its thread count
    (`tests/library/test_embed.py`). At most twice as many passes as threads are in flight,
    so results wait in memory only that far ahead of the reader, and ``items`` (a generator,
    say, that prepares each pass's inputs) is drawn from in this thread, as far ahead."""
    n = min(pass_threads(), count)
    if n <= 1:
        with intra_op_threads():
            yield from map(run, items)
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with ThreadPoolExecutor(n, thread_name_prefix="xlebench-pass") as pool:
            todo = iter(items)
            flight = deque(pool.submit(run, x) for x in islice(todo, 2 * n))
            while flight:
                done = flight.popleft().result()
                flight.extend(pool.submit(run, x) for x in islice(todo, 1))
                yield done
    finally:
        torch.set_num_threads(before)
