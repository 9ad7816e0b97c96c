"""MiniLM's forward passes side by side where a machine has many cores.

One pass at a time on every intra-op thread leaves most of a many-core machine idle: on a
lent GPU machine's 16-core Xeon host, 2,000 library summaries took 2.39 s at 16 threads and
10.3 s at one, 4.3x for 16x the threads, and the 10x command's evaluate panel spent 54.7 s in
its model metrics, 2.6x its 2-core time for 8x the cores (docs/performance.md, sixteen cores).
torch releases the GIL inside its operators, so several passes can run at once from Python
threads: eight at two threads each took 1.00 s there (2.4x), sixteen at one 0.98 s, with the
same bits as one pass at a time (`benchmarks/pass_threads.py`; a pass's bits depend on its
rows, `same_length_batches`, not on its threads). On 2 cores the gain was 1.1x and each
thread's allocator arena keeps its peak (seventh session: +0.5 GB at 1x), so below
`SIDE_MIN_THREADS` the passes stay one at a time.

Each pass is tokenised in the calling thread (a fast tokenizer used from several threads at
once can fail) and run through the model's ``forward``, which is what
``SentenceTransformer.encode`` runs for it; the results come back in the batches' order.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

#: Intra-op threads from which passes run side by side (two torch threads each).
SIDE_MIN_THREADS = 4
#: torch threads of each pass run side by side: 16x1 and 8x2 were within 3% of each other
#: on the 16-core Xeon, and two threads a pass halve the arenas.
THREADS_PER_PASS = 2


def side_by_side(threads: int) -> int:
    """How many passes run at once on ``threads`` intra-op threads (1: one at a time)."""
    return threads // THREADS_PER_PASS if threads >= SIDE_MIN_THREADS else 1


def run_passes(model: Any, rows: Sequence[list[str]], passes: int,
               enter: Callable[[], contextlib.AbstractContextManager],
               threads: int = THREADS_PER_PASS) -> Iterator[dict]:
    """The model's output features (``sentence_embedding`` normalised as ``encode`` does,
    the last layer's token rows) for each list of ``rows``, in order, ``passes`` at once at
    ``threads`` torch threads each; ``enter``: the context each pass runs in (its
    precision: autocast is per thread)."""
    import torch

    def run(features: dict) -> dict:
        with torch.inference_mode(), enter():
            out = model.forward(features)
        out["sentence_embedding"] = torch.nn.functional.normalize(
            out["sentence_embedding"], p=2, dim=1)
        return out

    # `tokenize` is deprecated (a warning on the console) where `preprocess` exists
    prepare = getattr(model, "preprocess", None) or model.tokenize
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        with ThreadPoolExecutor(passes) as pool:
            yield from pool.map(run, (prepare(list(r)) for r in rows))
    finally:
        torch.set_num_threads(before)
