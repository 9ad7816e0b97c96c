"""Wrong options made from records that no life log of the benchmark holds (``unasked``).

A summary choice's right option is the library summary of a record (or the aggregate of a
period's records). Wrong options drawn from other items' answers give them away: a text that is
another item's right answer is, to a reader who remembers the benchmark, a decoy here, and the
settling of printed answers (`xlebench.tasks.screening.leaks`) keeps one of every such pair —
on the demo 4 of 223 questions survived. Here every wrong option is made by the process that
made the right one, from records nobody is asked about:

* For each record of the question, *stand-ins*: library videos that no life log uses and
  that are of the record's kind (their scenarios overlap the record video's at Jaccard
  ``same_kind``), a summary length near the record's first (option-only rules read lengths),
  then the nearest to what the matcher searched for the record (its plan chunk's
  description). A wrong option is one stand-in per record, summarised as the right option is
  (`remake`). The kind is what keeps every kind of record right and wrong in the same
  proportion: unused videos are not distributed as used ones (on a 2000-video synthetic
  library 125 of 1691 unused summaries said "mopped", 3 of 263 used ones did), and without it
  a reader of which words are right on other questions reached 41% (`word_odds`, chance
  20%); with it, 25%.
* **The plan does not tell the right option.** The plan is public, and the matcher chose the
  record *because* it fits its chunk, so the stand-ins nearest the chunk are still farther
  from it than the record most of the time: a reader picking the option most like the chunk
  found the reference on 38% of a 4000-video library's questions (chance 20%). So the
  reference's rank among its options by nearness to the chunk is drawn uniformly per
  question: ``r`` stand-ins are drawn from the ``pool`` best nearer the chunk than the
  record, the rest from the ``pool`` best farther, the same ``r`` for every record of a
  question (its rows aligned, so an aggregated option is nearer or farther as a whole).
  Nearness is the content-word share with the chunk's activity, scenarios and description
  (what the panel's ``plan_choice`` reads), the stand-ins as near as the record left out (a
  reader sharing ties would find the record in every tie), each side ordered by closeness
  to the record's share; where too few are nearer by words (the matcher chose the record as
  the nearest), the stand-ins all share the record's nearness in words and are nearer or
  farther by MiniLM cosine to the chunk's description. A question is made only where every
  rank could have been drawn (``n`` stand-ins on each side), so which questions are made
  says nothing of the rank drawn.
* **Each stand-in is printed once in the whole benchmark**, and no stand-in's summary is any
  record's: how often a text is printed, or whether another question printed it, says nothing.
* **Each record is asked once in the whole benchmark**: a question whose records an earlier
  question asked is not made (counted), so the donors are spent on questions that stay.

Which questions are made, and with which stand-ins, is decided for the whole benchmark at once
(questions in an order seeded by their ids, so no life log is served first), once per
process (`Context.shared`), and every life log's build reads its share.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from xlebench.eval.panel.public import chunk_text, content_words, word_share
from xlebench.eval.scorers.option_rules import words
from xlebench.library.records import LibraryVideo
from xlebench.library.taxonomy import scenario_iou
from xlebench.tasks.choices.mcq import NearDuplicate
from xlebench.tasks.recipe.context import Context

TOO_FEW = "source items with too few unasked records for decoys"
ASKED = "source items whose records another question asks"
OVER_CAP = "source items over max_items_per_log"


@dataclass(frozen=True)
class Spec:
    """What the allocation reads: wrong options per question, stand-ins considered per
    record, questions per life log, a summary length ratio preferred, what counts as a
    paraphrase of the right answer, and how much of a record's kind a stand-in shares."""

    n: int
    pool: int
    per_log: int | None
    length_ratio: tuple[float, float]
    same: NearDuplicate
    same_kind: float = 0.3


@dataclass
class Made:
    """One question: its source item, its wrong options, what they were made of."""

    source: dict
    decoys: list[str]
    info: dict


@dataclass
class Allocation:
    """Every life log's questions, and per log why source items were not asked."""

    by_log: dict[str, list[Made]] = field(default_factory=dict)
    stats: dict[str, Counter] = field(default_factory=dict)


def allocate(ctx: Context, spec: Spec, sources: Callable[[str], list[dict]],
             remake: Callable[[dict, list[str]], str]) -> Allocation:
    """Every life log's questions and their wrong options, decided once per process for the
    benchmark (`Context.shared`): ``sources(lifelog_id)`` gives a log's source items,
    ``remake(item, summaries)`` the right option's process applied to stand-ins' summaries."""
    key = ("unasked", spec, tuple(sorted(_logs(ctx))))
    if key not in ctx.shared:
        ctx.shared[key] = _allocate(ctx, spec, sources, remake)
    return ctx.shared[key]


def _logs(ctx: Context) -> dict[str, dict]:
    """Every life log of the benchmark (this one alone for a recipe built on its own)."""
    return dict(ctx.logs) or {ctx.log["lifelog_id"]: ctx.log}


def _order(item_id: str) -> int:
    return int.from_bytes(hashlib.sha256(item_id.encode()).digest()[:8], "big")


def _donors(ctx: Context) -> list[LibraryVideo]:
    """Library videos no life log uses: those whose summary no other video, and no record,
    also has (a record's text is printed as its answer; a text two donors share would be
    printed twice)."""
    used = {s["video_uid"] for log in _logs(ctx).values() for s in log["segments"]}
    printed = {_text(ctx.videos[u]) for u in used if u in ctx.videos}
    seen = Counter(_text(v) for v in ctx.videos.values())
    return [v for _, v in sorted(ctx.videos.items())
            if _text(v) and seen[_text(v)] == 1 and _text(v) not in printed]


def _text(video: LibraryVideo) -> str:
    return video.summary.strip().lower()


class _Ranker:
    """Stand-ins for a record, best first (see the module docstring)."""

    def __init__(self, ctx: Context, donors: list[LibraryVideo], spec: Spec,
                 segments: Sequence[dict]) -> None:
        self.ctx, self.donors, self.spec = ctx, donors, spec
        self.vecs = np.asarray(ctx.encode([d.summary for d in donors]), dtype=np.float32)
        self.words = np.array([_words(d.summary) for d in donors], dtype=float)
        self.content = [frozenset(content_words(d.summary)) for d in donors]
        self.tokens = [words(d.summary) for d in donors]
        queries = sorted({self.query(s) for s in segments})
        self.queries = dict(zip(queries, np.asarray(ctx.encode(queries), dtype=np.float32),
                                strict=True)) if queries else {}
        records = sorted({v.summary for s in segments
                          if (v := ctx.videos.get(s["video_uid"])) is not None})
        self.records = dict(zip(records, np.asarray(ctx.encode(records), dtype=np.float32),
                                strict=True)) if records else {}
        self._kinds: dict[tuple[str, ...], np.ndarray] = {}

    def query(self, seg: dict) -> str:
        """What the matcher searched with: the chunk's description (else the summary)."""
        video = self.ctx.videos.get(seg["video_uid"])
        return (seg.get("chunk") or {}).get("description") or (video.summary if video else "")

    def rank(self, seg: dict) -> np.ndarray:
        """The donors of the record's kind: those within the length ratio of its summary
        first, the nearest its length first (in steps of a tenth: the stand-ins drawn nearer
        the chunk's words than the record are shorter, and a length rule read that), then by
        similarity to the matcher's query (by video id on ties)."""
        video = self.ctx.videos.get(seg["video_uid"])
        if video is None:
            return np.empty(0, dtype=int)
        lo, hi = self.spec.length_ratio
        ratio = self.words / _words(video.summary)
        outside = (ratio < lo) | (ratio > hi)
        step = np.round(np.abs(np.log(ratio)) / 0.1)
        cos = self.vecs @ self.queries[self.query(seg)]
        order = np.lexsort((np.arange(len(self.donors)), -cos, step, outside))
        return order[self.kind(video.scenarios)[order]]

    def sides(self, seg: dict, ranked: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """``ranked`` split into the donors nearer the record's plan chunk than the record
        itself and those farther, each in ``ranked``'s order, in two ways, preferred first:
        by content-word share with the chunk, leaving out those with the record's own share (a
        reader sharing its ties would find the record in every tie); and among those with the
        record's share, by cosine to the matcher's query (every option then ties in words)."""
        video = self.ctx.videos[seg["video_uid"]]
        plan = frozenset(content_words(chunk_text(seg.get("chunk") or {})))
        own = word_share(plan, frozenset(content_words(video.summary)))
        share = np.array([word_share(plan, self.content[i]) for i in ranked.tolist()])
        query = self.queries[self.query(seg)]
        near = self.vecs[ranked] @ query > float(self.records[video.summary] @ query)
        tied = share == own
        closest = ranked[np.argsort(np.abs(share - own), kind="stable")]
        gap = share[np.argsort(np.abs(share - own), kind="stable")] - own
        return [(closest[gap > 0], closest[gap < 0]),
                (ranked[tied & near], ranked[tied & ~near])]

    def draw(self, record: str, sides: Sequence[tuple[Sequence[int], int]],
             rng: random.Random, same: NearDuplicate) -> list[int] | None:
        """``count`` donors from each side, uniformly, none a paraphrase of the record's
        summary or of a donor drawn before it; None where a side runs out."""
        vecs = [(self.records[record], words(record))]
        picked: list[int] = []
        for side, count in sides:
            order = list(side)
            rng.shuffle(order)
            got = 0
            for i in order:
                if got == count:
                    break
                if any(same(float(self.vecs[i] @ v), self.tokens[i], w) for v, w in vecs):
                    continue
                picked.append(i)
                vecs.append((self.vecs[i], self.tokens[i]))
                got += 1
            if got < count:
                return None
        return picked

    def kind(self, scenarios: tuple[str, ...]) -> np.ndarray:
        """Donors whose scenarios overlap these at Jaccard ``spec.same_kind`` or more."""
        if scenarios not in self._kinds:
            self._kinds[scenarios] = np.array([scenario_iou(scenarios, d.scenarios)
                                               >= self.spec.same_kind for d in self.donors],
                                              dtype=bool)
        return self._kinds[scenarios]


def _records(log: dict, item: dict) -> list[dict]:
    """The log's segments an item's evidence names, in evidence order."""
    by_uid = {s["video_uid"]: s for s in log["segments"]}
    return [by_uid[e["video_uid"]] for e in item["evidence"] if e["video_uid"] in by_uid]


def _allocate(ctx: Context, spec: Spec, sources: Callable[[str], list[dict]],
              remake: Callable[[dict, list[str]], str]) -> Allocation:
    logs = _logs(ctx)
    out = Allocation({lid: [] for lid in logs}, {lid: Counter() for lid in logs})
    queue = sorted(((_order(it["item_id"]), lid, it) for lid in sorted(logs)
                    for it in sources(lid)), key=lambda x: (x[0], x[2]["item_id"]))
    donors = _donors(ctx)
    ranker = _Ranker(ctx, donors, spec, [s for _, lid, it in queue
                                         for s in _records(logs[lid], it)]
                     ) if donors else None
    spent = np.zeros(len(donors), dtype=bool)
    asked: set[str] = set()
    for _, lid, item in queue:
        records = _records(logs[lid], item)
        uids = {s["video_uid"] for s in records}
        if not records or uids & asked:
            out.stats[lid][ASKED] += 1
            continue
        if spec.per_log is not None and len(out.by_log[lid]) >= spec.per_log:
            out.stats[lid][OVER_CAP] += 1
            continue
        picked = _stand_ins(ctx, ranker, records, spent, spec, item["item_id"])
        if picked is None:
            out.stats[lid][TOO_FEW] += 1
            continue
        spent[[i for row in picked for i in row]] = True
        asked |= uids
        out.by_log[lid].append(_made(item, picked, donors, remake))
    return out


def _stand_ins(ctx: Context, ranker: _Ranker | None, records: list[dict], spent: np.ndarray,
               spec: Spec, item_id: str) -> list[list[int]] | None:
    """Per record, ``spec.n`` unspent stand-ins: ``r`` (drawn uniformly in 0..n) from the
    ``spec.pool`` best nearer the plan's chunk than the record and the rest from those
    farther (by the first of `_Ranker.sides` where each side could give all ``n``), none a paraphrase of the record's summary or of each other; None where some rank
    could not be drawn for some record (see the module docstring)."""
    if ranker is None:
        return None
    rng = random.Random(_order(item_id))
    rank = rng.randrange(spec.n + 1)
    taken = spent.copy()
    columns = []
    for seg in records:
        video = ctx.videos.get(seg["video_uid"])
        if video is None:
            return None
        ranked = ranker.rank(seg)
        split = next(((a[: spec.pool], b[: spec.pool])
                      for a, b in ranker.sides(seg, ranked[~taken[ranked]])
                      if all(ranker.draw(video.summary, [(side, spec.n)], random.Random(0),
                                         spec.same) is not None for side in (a, b))), None)
        if split is None:
            return None
        nearer, farther = split
        column = ranker.draw(video.summary, [(nearer.tolist(), rank),
                                             (farther.tolist(), spec.n - rank)], rng, spec.same)
        if column is None:
            return None
        taken[column] = True
        columns.append(column)
    return [list(row) for row in zip(*columns, strict=True)]


def _made(item: dict, picked: list[list[int]], donors: Sequence[LibraryVideo],
          remake: Callable[[dict, list[str]], str]) -> Made:
    decoys = [remake(item, [donors[i].summary for i in row]) for row in picked]
    words = _words(item["answer"]["text"])
    return Made(item, decoys, {
        "generator": "offline", "techniques": ["unasked"],
        "stand_ins": [[donors[i].video_uid for i in row] for row in picked],
        "length_ratios": [round(_words(d) / words, 3) for d in decoys]})


def _words(text: str) -> int:
    return max(1, len(text.split()))
