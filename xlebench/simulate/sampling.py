"""Choosing N chunks from the day, as the authors do."""

from __future__ import annotations

import random
from collections.abc import Sequence

from xlebench.errors import ConfigError


def groups(n_items: int, n: int) -> list[range]:
    """Split range(n_items) into n contiguous groups of near-equal size (larger ones first)."""
    base, extra = divmod(n_items, n)
    out, start = [], 0
    for g in range(n):
        size = base + (1 if g < extra else 0)
        out.append(range(start, start + size))
        start += size
    return out


def sample_chunk_indices(n_items: int, n: int, rng: random.Random) -> list[int]:
    """One index per group, uniformly within the group; sorted by construction."""
    if n <= 0:
        raise ConfigError(f"simulation: n_chunks={n}; expected a positive number of chunks")
    if n > n_items:
        raise ConfigError(
            f"simulation: n_chunks={n} but the day plan has only {n_items} chunks; "
            f"raise planner.min_chunks to at least {n}, ask for fewer chunks, or spread them "
            "over days (simulation.days, with simulation.n_chunks chunks per day)"
        )
    return [rng.choice(g) for g in groups(n_items, n)]


def group_of(index: int, n_items: int, n: int) -> int:
    for g, r in enumerate(groups(n_items, n)):
        if index in r:
            return g
    raise IndexError(index)


def category_for(n_chunks: int, lengths: dict[str, int] | None = None) -> str:
    names = {v: k for k, v in (lengths or {"short": 4, "medium": 9, "long": 15}).items()}
    return names.get(n_chunks, f"n{n_chunks}")


__all__: Sequence[str] = ("groups", "sample_chunk_indices", "group_of", "category_for")
