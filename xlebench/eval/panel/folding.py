"""How the blind panel folds a benchmark's items: by source video (or life log), so that a
learned member never sees an answer about a video it is scored on
(`xlebench.eval.panel.blind`), and, for items about several videos, the items each one may
learn from."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

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
    every fit and every run) — kept in their own order. Each video lists the items about it,
    so a video set's items are struck out of one mask and the first ``n`` left are read off
    in rank order: a fit reads about ``n`` items however many the benchmark holds, where
    filtering and ranking all of them per video set grew with the square of it (and walking
    the ranked items in Python, item by item, was a tenth of the ten-times grid's check). A
    video set's items are kept (`KEPT_SETS`): every member fitted per item asks for them."""

    def __init__(self, items: Sequence[dict], n: int) -> None:
        self.items, self.n = items, n
        self.ranked = np.array(sorted(range(len(items)),
                                      key=lambda k: _fit_rank(items[k]["item_id"])), dtype=np.int64)
        about: dict[str, list[int]] = {}
        for k, it in enumerate(items):
            for v in set(source_videos(it)):
                about.setdefault(v, []).append(k)
        self.about = {v: np.array(ks, dtype=np.int64) for v, ks in about.items()}
        self.kept: OrderedDict[frozenset[str], list[int]] = OrderedDict()
        #: per video set, (the public view's key, `digest`) for the last view asked
        self.digests: dict[frozenset[str], tuple[bytes, tuple[bytes, ...]]] = {}
        self.lock = threading.Lock()

    def indices(self, mine: frozenset[str]) -> list[int]:
        """The positions in ``items`` of the items ``mine`` may learn from, in item order."""
        with self.lock:
            if mine in self.kept:
                self.kept.move_to_end(mine)
                return self.kept[mine]
        free = np.ones(len(self.items), dtype=bool)
        for v in mine:
            if v in self.about:
                free[self.about[v]] = False
        found = np.sort(self.ranked[free[self.ranked]][:self.n]).tolist()
        with self.lock:
            self.kept[mine] = found
            while len(self.kept) > KEPT_SETS:
                self.digests.pop(self.kept.popitem(last=False)[0], None)
        return found

    def __call__(self, mine: frozenset[str]) -> list[dict]:
        return [self.items[k] for k in self.indices(mine)]

    def digest(self, mine: frozenset[str], public: Any) -> tuple[bytes, ...]:
        """The contents of ``mine``'s items (``public.digest`` of each, in order): what a
        fit on them is kept under (`xlebench.eval.panel.blind._Fits`), read once per video
        set, not once per member fitted on it."""
        held = self.digests.get(mine)
        if held is None or held[0] != public.key:
            digest = public.digest
            held = (public.key, tuple(digest(self.items[k]) for k in self.indices(mine)))
            with self.lock:
                self.digests[mine] = held
        return held[1]


#: Video sets whose items `_Apart` keeps (a list of `PER_ITEM_FIT` positions each).
KEPT_SETS = 8192
#: Item lists whose `_Apart` is kept (`apart`).
APARTS_KEPT = 16
_APARTS: list[tuple[Sequence[dict], _Apart]] = []


def apart(items: Sequence[dict], n: int = PER_ITEM_FIT) -> _Apart:
    """The `_Apart` of ``items`` (this very list), built once: every member fitted per item
    and every task of the spread panel reads it, and one built before the panel spreads is
    inherited by its forked children (`xlebench.eval.panel.blind._warm`)."""
    for held, found in _APARTS:
        if held is items and found.n == n:
            return found
    made = _Apart(items, n)
    _APARTS.append((items, made))
    del _APARTS[:-APARTS_KEPT]
    return made


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
