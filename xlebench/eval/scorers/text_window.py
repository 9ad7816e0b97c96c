"""Window identification (`window_id`): is a summary nearer its own record's reference than
its rivals'? A reply that does not depend on the record scores 0.5, whatever words it games
ROUGE-L with."""

from __future__ import annotations

import hashlib
import heapq
from collections import defaultdict
from collections.abc import Sequence
from functools import lru_cache, partial
from typing import Any

from xlebench.eval.metrics import content_tokens, rouge_l_of
from xlebench.eval.metrics.lcs import lcs_of_pairs
from xlebench.runner.cores import runs, spread

#: Rival records a reply is told apart from when its life log has no other (a day summary).
RIVALS = 31


def rivals(items: Sequence[dict]) -> list[list[int]]:
    """For each item, the items whose references its reply must be nearer its own than: the
    other records of its life log, else (one item per log: a day) up to `RIVALS` items of
    other logs in an order fixed by the ids. Every member of the blind panel scores the same
    items, so the lists are computed once per set of items."""
    return _rivals(tuple(str(it.get("item_id", k)) for k, it in enumerate(items)),
                   tuple(it.get("lifelog_id") for it in items))


@lru_cache(maxsize=16)
def _rivals(ids: tuple[str, ...], logs: tuple[Any, ...]) -> list[list[int]]:
    by_log: dict[Any, list[int]] = defaultdict(list)
    for k, log in enumerate(logs):
        by_log[log].append(k)
    alone = [k for k, log in enumerate(logs) if len(by_log[log]) == 1]
    drawn = dict(zip(alone, _drawn(ids, logs, alone), strict=True))
    return [drawn[k] if k in drawn else [j for j in by_log[log] if j != k]
            for k, log in enumerate(logs)]


def _drawn(ids: Sequence[str], logs: Sequence[Any], alone: Sequence[int]) -> list[list[int]]:
    """For each item ``alone`` in its log, the `RIVALS` items of other logs first in the
    order of ``sha256(f"{own id}|{rival id}")``: a hash for every pair, so the items are cut
    into runs spread over the run's cores (`xlebench.runner.cores.spread`; at ten times the
    paper grid a subtask's days took 7.7 s of its oracle's scores on one core), each hash
    continued from its item's prefix."""
    encoded = [i.encode() for i in ids]
    parts = spread([partial(_drawn_run, encoded, logs, run) for run in runs(alone, _PER_TASK)])
    return [r for part in parts for r in part]


#: Items alone in their log per task of `_drawn`.
_PER_TASK = 256


def _drawn_run(encoded: Sequence[bytes], logs: Sequence[Any], run: Sequence[int]
               ) -> list[list[int]]:
    out = []
    for k in run:
        prefix = hashlib.sha256(encoded[k] + b"|")

        def order(j: int, prefix: Any = prefix) -> bytes:
            h = prefix.copy()
            h.update(encoded[j])
            return h.digest()
        # nsmallest keeps sorted's order among equal keys: the same lists
        out.append(heapq.nsmallest(RIVALS, (j for j in range(len(encoded)) if logs[j] != logs[k]),
                                   key=order))
    return out


def window_id(reply: str, own: str, others: Sequence[str]) -> float | None:
    """Share of rival references the reply is nearer to its own reference than to (content
    ROUGE-L; ties count half): 0.5 for any reply that does not depend on the record."""
    return window_ids([reply], [own, *others], [list(range(1, len(others) + 1))])[0]


def window_ids(replies: Sequence[str | None], refs: Sequence[str],
               rivals: Sequence[Sequence[int]]) -> list[float | None]:
    """`window_id` of each reply against ``refs[k]`` and its rivals' references (None where
    there is no reply or no rival). Each distinct (reply, reference) pair is compared once per
    call, and all of them at once (`lcs_of_pairs`): a panel member that replies alike to many
    items (a constant, a skeleton, a generic sentence) meets every reference of a life log
    once per item of it, and at ten times the paper grid the pairs' LCSs, one at a time, were
    the largest part of the panel's scores."""
    texts: dict[str, int] = {}
    pair_at: dict[tuple[int, int], int] = {}
    asked: list[list[int] | None] = []
    for k, reply in enumerate(replies):
        if reply is None or not rivals[k]:
            asked.append(None)
            continue
        q = texts.setdefault(reply, len(texts))
        asked.append([pair_at.setdefault((q, j), len(pair_at)) for j in (k, *rivals[k])])
    near = _near(list(pair_at), [content_tokens(r) for r in refs],
                 [content_tokens(t) for t in texts])
    out: list[float | None] = []
    for at in asked:
        if at is None:
            out.append(None)
            continue
        mine, sims = near[at[0]], [near[p] for p in at[1:]]
        out.append(round((sum(mine > x for x in sims) + 0.5 * sum(mine == x for x in sims))
                         / len(sims), 10))
    return out


def _near(pairs: Sequence[tuple[int, int]], refs: Sequence[Sequence[str]],
          replies: Sequence[Sequence[str]]) -> list[float]:
    """Content ROUGE-L of each (reply, reference) pair, as `rouge_l_tokens` gives it."""
    lcs = lcs_of_pairs(refs, replies, [j for _, j in pairs], [q for q, _ in pairs])
    return [rouge_l_of(n, len(refs[j]), len(replies[q]))
            for n, (q, j) in zip(lcs, pairs, strict=True)]
