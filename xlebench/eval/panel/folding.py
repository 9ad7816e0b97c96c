"""How the blind panel folds a benchmark's items: by source video (or life log), so that a
learned member never sees an answer about a video it is scored on
(`xlebench.eval.panel.blind`), and, for items about several videos, the items each one may
learn from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from xlebench.eval.provenance import cluster_of, source_videos
from xlebench.runner.rng import derive_seed

#: Source videos are split into this many folds (fewer when there are fewer videos).
FOLDS = 5
#: Items a strategy fitted per item learns from at most (the first, in a fixed order, of those
#: sharing none of its videos): one fit per item over every other item grows with the square
#: of the benchmark; this keeps it linear, and every grid this project compiles below it.
PER_ITEM_FIT = 512


@lru_cache(maxsize=1 << 18)
def _fit_rank(item_id: str) -> tuple[int, str]:
    return derive_seed(0, "per-item-fit", item_id), item_id


class _Apart:
    """Per video set, the items sharing none of its videos — all of them where there are at
    most ``n``, else the ``n`` first in an order fixed by their ids (`_fit_rank`: the same for
    every fit and every run) — kept in their own order. Found by walking the items once ranked
    until ``n`` are found: each fit reads about ``n`` items however many the benchmark holds,
    where filtering and ranking all of them per video set grew with the square of it."""

    def __init__(self, items: Sequence[dict], n: int) -> None:
        self.items, self.n = items, n
        self.videos = [frozenset(source_videos(it)) for it in items]
        self.ranked = sorted(range(len(items)), key=lambda k: _fit_rank(items[k]["item_id"]))

    def __call__(self, mine: frozenset[str]) -> list[dict]:
        found = []
        for k in self.ranked:
            if mine.isdisjoint(self.videos[k]):
                found.append(k)
                if len(found) == self.n:
                    break
        return [self.items[k] for k in sorted(found)]


def _unit_of(item: dict, unit: str) -> str:
    return cluster_of(item) if unit == "video" else item["lifelog_id"]


def folds(items: Sequence[dict], seed: int, k: int = FOLDS, unit: str = "video"
          ) -> dict[str, int]:
    """Fold of each item: its first source video's (or its life log's), the videos (logs) in
    a seeded order dealt round-robin (balanced)."""
    keys = sorted({_unit_of(it, unit) for it in items},
                  key=lambda v: (derive_seed(seed, "blind-fold", v), v))
    n = max(1, min(k, len(keys)))
    fold_of_key = {v: i % n for i, v in enumerate(keys)}
    return {it["item_id"]: fold_of_key[_unit_of(it, unit)] for it in items}


def training(items: Sequence[dict], fold_of: Mapping[str, int], fold: int,
             unit: str = "video") -> list[dict]:
    """What a strategy answering ``fold`` may learn from: the items that share no source video
    with any item of the fold (items about several videos are left out more often); folded
    by life log, every item of the other folds."""
    if unit == "life_log":
        return [it for it in items if fold_of[it["item_id"]] != fold]
    held = {v for it in items if fold_of[it["item_id"]] == fold for v in source_videos(it)}
    return [it for it in items if fold_of[it["item_id"]] != fold
            and held.isdisjoint(source_videos(it))]


def own_videos(items: Sequence[dict], unit: str) -> bool:
    """Whether learned strategies are fitted per item (on the items sharing none of its
    videos) rather than per fold: for a subtask whose items are about several videos each
    (a day's summary, its ordering), the union of a fold's videos would leave almost nothing
    to learn from (7% of the demo's holistic items at five folds, against 81% per item)."""
    return unit == "video" and any(len(source_videos(it)) > 1 for it in items)
