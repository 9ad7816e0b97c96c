"""How many threads a forward pass runs on (MiniLM's embeddings, BERTScore), whatever another
library of the process left the shared OpenMP runtime at."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from xlebench.runner.cores import pass_threads

__all__ = ["intra_op_threads", "pass_threads"]

log = logging.getLogger(__name__)


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
