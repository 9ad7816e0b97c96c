"""Blind members that read the script: the plan a life log was simulated from.

xlebench is deterministic and open, so everything the generator decided before it matched a
video — the plan's chunks, their times, activities, scenarios and one-line descriptions — is
public whenever the configuration is (`xlebench.eval.panel.public.Public.script`). The matcher
then picks a video that fits the chunk, so the chunk a period overlaps names what the record
shows in nearly its words. These members price that in: the chunk's own words (`plan_echo`),
and the reference of the training items whose chunks read most like this item's (`plan_memory`,
cross-fitted by source video like every learned member).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from xlebench.eval.metrics import rouge_l_kept
from xlebench.eval.panel.public import word_share
from xlebench.eval.scorers.base import Blind, BlindContext
from xlebench.eval.scorers.text_shapes import GENERIC_SUMMARY, query_shape, reference

#: Training references read per answer: those whose chunks share the most words with it.
NEAREST = 8
_SHAPE = itemgetter(1)


def echo_answer(item: dict, _model: Any, ctx: BlindContext) -> str:
    """"C " and the plan chunk's activity, scenarios and description, fitted to nothing."""
    text = ctx.public.script_text(item) if ctx.public is not None else ""
    return f"C {text}" if text else GENERIC_SUMMARY


def fit_plan(train: Sequence[dict], public: Any) -> list[tuple[frozenset[str], str, str]]:
    """(the words of the item's plan chunk, query shape, reference) of every training item
    that has a chunk, in a fixed order (by shape, reference and sorted words: each item's
    key made once per panel, where sorting its words at every fit was half of one)."""
    kept = [e for e in (_plan_entry(it, public) for it in train) if e is not None]
    kept.sort(key=itemgetter(0))  # stable: the training order among equal keys
    return [m for _, m in kept]


def _plan_entry(item: dict, public: Any) -> tuple[tuple, tuple[frozenset[str], str, str]] | None:
    def build() -> tuple[tuple, tuple[frozenset[str], str, str]] | None:
        words = public.script_words(item)
        if not words:
            return None
        shape, ref = query_shape(item), reference(item)
        return (shape, ref, sorted(words)), (words, shape, ref)
    if public.items.get(item["item_id"]) is not item:  # not the view's own item: not kept
        return build()
    return public.memo(f"plan-entry|{item['item_id']}", build)


def plan_answer(item: dict, model: list[tuple[frozenset[str], str, str]],
                ctx: BlindContext) -> str:
    """Of the `NEAREST` training references of the same query shape whose chunks share the
    most words with this item's (Jaccard), the one most like the others, each weighed by how
    near its chunk is (a weighted medoid: a few records of another activity among the nearest
    never outvote those of this one): what other logs' records of the same planned activity
    were summarised as."""
    words = ctx.public.script_words(item) if ctx.public else frozenset()
    shape = query_shape(item)
    # `fit_plan` sorts by shape first: a shape's entries are one run of the list
    pool = model[bisect_left(model, shape, key=_SHAPE):bisect_right(model, shape, key=_SHAPE)]
    pool = pool or model
    if not words or not pool:
        return echo_answer(item, None, ctx)
    # the first by (-share, reference), as sorted(...)[:NEAREST] takes them
    near = [(-s, ref) for s, ref in heapq.nsmallest(
        NEAREST, ((-word_share(words, w), ref) for w, _, ref in pool))]

    def support(k: int) -> float:
        w, ref = near[k]
        return w * sum(v * rouge_l_kept(ref, o) for j, (v, o) in enumerate(near) if j != k)
    return near[max(range(len(near)), key=lambda k: (support(k), near[k][0], near[k][1]))][1]


def script_members() -> tuple[Blind, ...]:
    """The text panel's readers of the script."""
    return (Blind("plan_echo", "the life log's plan (public: the configuration rebuilds it): "
                  "the chunk the period overlaps, its activity, scenarios and description",
                  echo_answer, public=True),
            Blind("plan_memory", "the life log's plan; other logs' references whose plan "
                  "chunks read most like this period's (their medoid)", plan_answer, fit_plan,
                  public=True))
