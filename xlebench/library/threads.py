"""How many threads a forward pass runs on (MiniLM's embeddings, BERTScore), whatever another
library of the process left the shared OpenMP runtime at."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
from collections.abc import Iterator

log = logging.getLogger(__name__)


def pass_threads() -> int:
    """Intra-op threads of a forward pass: ``OMP_NUM_THREADS`` where set (clamped to the CPUs
    with one warning: torch given 99999 dies in its pool; nonsense ignored, as torch does),
    else every CPU this process may run on (torch's own default on a machine without SMT)."""
    cpus = len(os.sched_getaffinity(0))
    env = os.environ.get("OMP_NUM_THREADS", "").strip()
    if not (env.isdigit() and int(env) > 0):
        return cpus
    if int(env) > cpus:
        _warn_clamped(env, cpus)
    return min(int(env), cpus)


@functools.cache
def _warn_clamped(env: str, cpus: int) -> None:
    log.warning("OMP_NUM_THREADS=%s: more than the %d CPUs here; passes use %d", env, cpus, cpus)


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
