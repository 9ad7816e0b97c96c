"""The 8 X-LeBench subtask recipes (DESIGN.md section 3).

Each recipe turns one life log (its segments on the virtual clock), the library's videos and
the Ego4D annotations into task items. Parameters come from the recipe's config file
(``conf/tasks/<subtask>.yaml``). A log without the annotations a recipe needs gets no items of
that subtask, and the reason is counted in the recipe's stats.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from xlebench.library.records import LibraryVideo
from xlebench.plan.answers import parse_clock
from xlebench.tasks import wording as W
from xlebench.tasks.actions import count_actions
from xlebench.tasks.aggregate import Aggregator
from xlebench.tasks.items import make_item, to_day
from xlebench.tasks.source import AnnotationIndex


@dataclass
class Context:
    log: dict
    videos: dict[str, LibraryVideo]
    ann: AnnotationIndex
    rng: random.Random
    aggregate: Aggregator


@dataclass
class Built:
    items: list[dict] = field(default_factory=list)
    stats: Counter = field(default_factory=Counter)


def _segment_period(seg: dict) -> tuple[float, float]:
    return float(seg["start_s"]), float(seg["end_s"])


def _evidence(seg: dict, a: float, b: float) -> dict:
    return {"video_uid": seg["video_uid"], "source_start_s": round(a, 3),
            "source_end_s": round(b, 3)}


def _sample(rng: random.Random, items: list, k: int | None) -> list:
    if k is None or len(items) <= k:
        return items
    keep = sorted(rng.sample(range(len(items)), k))
    return [items[i] for i in keep]


# -- temporal localisation ------------------------------------------------------------------

def _retrieval(ctx: Context, p: dict, subtask: str) -> Built:
    out = Built()
    prefixes = tuple(p["templates"])
    candidates = []
    for seg in ctx.log["segments"]:
        queries = [q for q in ctx.ann.nlq.get(seg["video_uid"], [])
                   if q.template.startswith(prefixes)]
        if not queries:
            out.stats["segments without matching NLQ queries"] += 1
        candidates += [(seg, q) for q in _sample(ctx.rng, queries, p.get("max_per_segment"))]
    for k, (seg, q) in enumerate(_sample(ctx.rng, candidates, p.get("max_items_per_log"))):
        period = _segment_period(seg)
        span = (to_day(seg, q.start_s), to_day(seg, q.end_s))
        query = W.retrieval_query(q.query, *period)
        out.items.append(make_item(
            log=ctx.log, subtask=subtask, k=k, query=query, period=period, spans=[span],
            text=W.span_text([span]), evidence=[_evidence(seg, q.start_s, q.end_s)],
            provenance={"source_file": q.file, "annotation_ids": [q.annotation_uid],
                        "query_idx": q.query_idx, "clip_uid": q.clip_uid,
                        "template": q.template}))
    return out


def object_retrieval(ctx: Context, p: dict) -> Built:
    return _retrieval(ctx, p, "object_retrieval")


def people_retrieval(ctx: Context, p: dict) -> Built:
    return _retrieval(ctx, p, "people_retrieval")


def moment_retrieval(ctx: Context, p: dict) -> Built:
    out = Built()
    candidates = []
    for seg in ctx.log["segments"]:
        by_label: dict[str, list] = {}
        for m in ctx.ann.moments.get(seg["video_uid"], []):
            by_label.setdefault(m.label, []).append(m)
        if not by_label:
            out.stats["segments without moments annotations"] += 1
        labels = _sample(ctx.rng, sorted(by_label), p.get("max_per_segment"))
        candidates += [(seg, lab, by_label[lab]) for lab in labels]
    for k, (seg, label, moments) in enumerate(
            _sample(ctx.rng, candidates, p.get("max_items_per_log"))):
        period = _segment_period(seg)
        spans = [(to_day(seg, m.start_s), to_day(seg, m.end_s)) for m in moments]
        out.items.append(make_item(
            log=ctx.log, subtask="moment_retrieval", k=k,
            query=W.moment_query(label, *period),
            period=period, spans=spans, text=W.span_text(spans),
            evidence=[_evidence(seg, m.start_s, m.end_s) for m in moments],
            provenance={"source_file": moments[0].file, "label": label,
                        "annotation_ids": sorted({i for m in moments
                                                  for i in m.annotation_uids})}))
    return out


# -- summaries ----------------------------------------------------------------------------------

def _summary_of(ctx: Context, seg: dict) -> str:
    return ctx.videos[seg["video_uid"]].summary


def single_summary(ctx: Context, p: dict) -> Built:
    out = Built()
    segs = _sample(ctx.rng, list(ctx.log["segments"]), p.get("max_items_per_log"))
    for k, seg in enumerate(segs):
        period = _segment_period(seg)
        out.items.append(make_item(
            log=ctx.log, subtask="single_summary", k=k,
            query=W.single_summary_query(*period),
            period=period, text=_summary_of(ctx, seg),
            evidence=[_evidence(seg, seg.get("source_start_s", 0.0), seg["source_end_s"])],
            provenance={"source_file": "library.parquet", "annotation_ids": [seg["video_uid"]]}))
    return out


def _periods(p: dict) -> list[tuple[str, str, float, float]]:
    noon, evening = (parse_clock(t) for t in p["boundaries"])
    return [("morning", f"in the morning (before {p['boundaries'][0]})", 0, noon),
            ("afternoon", f"in the afternoon ({p['boundaries'][0]}-{p['boundaries'][1]})",
             noon, evening),
            ("evening", f"in the evening (after {p['boundaries'][1]})", evening, 10 ** 9)]


def _in_period(seg: dict, lo: float, hi: float) -> bool:
    """A segment belongs to the period its start falls in; after midnight is still evening."""
    return lo <= float(seg["start_s"]) < hi


def multi_summary(ctx: Context, p: dict) -> Built:
    out = Built()
    k = 0
    for name, phrase, lo, hi in _periods(p):
        segs = [s for s in ctx.log["segments"] if _in_period(s, lo, hi)]
        if len(segs) < int(p["min_segments"]):
            out.stats[f"{name}: fewer than {p['min_segments']} segments"] += 1
            continue
        summaries = [_summary_of(ctx, s) for s in segs]
        out.items.append(make_item(
            log=ctx.log, subtask="multi_summary", k=k,
            query=W.multi_summary_query(phrase),
            period=(float(segs[0]["start_s"]), float(segs[-1]["end_s"])),
            text=ctx.aggregate(summaries, phrase),
            evidence=[_evidence(s, s.get("source_start_s", 0.0), s["source_end_s"])
                      for s in segs],
            provenance={"source_file": "library.parquet",
                        "annotation_ids": [s["video_uid"] for s in segs], "period": name},
            extra={"part": name}))
        k += 1
    return out


def holistic_summary(ctx: Context, p: dict) -> Built:
    out = Built()
    parts = []
    for _name, phrase, lo, hi in _periods(p):
        segs = [s for s in ctx.log["segments"] if _in_period(s, lo, hi)]
        if segs:
            parts.append(ctx.aggregate([_summary_of(ctx, s) for s in segs], phrase))
    segs = ctx.log["segments"]
    if not segs:
        out.stats["empty life log"] += 1
        return out
    out.items.append(make_item(
        log=ctx.log, subtask="holistic_summary", k=0,
        query=W.HOLISTIC_QUERY,
        period=(float(segs[0]["start_s"]), float(segs[-1]["end_s"])),
        text=ctx.aggregate(parts, "over the whole day") if len(parts) > 1 else
        (parts[0] if parts else ""),
        evidence=[_evidence(s, s.get("source_start_s", 0.0), s["source_end_s"]) for s in segs],
        provenance={"source_file": "library.parquet",
                    "annotation_ids": [s["video_uid"] for s in segs]}))
    return out


# -- counting and ordering --------------------------------------------------------------------

def action_counting(ctx: Context, p: dict) -> Built:
    out = Built()
    candidates = []
    for seg in ctx.log["segments"]:
        passes = ctx.ann.narrations.get(seg["video_uid"])
        if not passes:
            out.stats["segments without narrations"] += 1
            continue
        length = ctx.rng.choice(list(p["window_lengths_s"]))
        dur = float(seg["source_end_s"]) - float(seg.get("source_start_s", 0.0))
        if dur < max(length, float(p["min_window_s"])):
            out.stats["segments shorter than the window"] += 1
            continue
        a = round(ctx.rng.uniform(0, dur - length))
        counts, which = count_actions(passes, a, a + length)
        frequent = [(n, act) for act, n in counts.items() if n >= 1]
        if len(frequent) < int(p["min_actions"]):
            out.stats["windows with too few distinct actions"] += 1
            continue
        chosen = sorted(frequent, key=lambda x: (-x[0], x[1]))[: int(p["max_actions"])]
        ctx.rng.shuffle(chosen)
        candidates.append((seg, a, length, chosen, which))
    for k, (seg, a, length, chosen, which) in enumerate(
            _sample(ctx.rng, candidates, p.get("max_items_per_log"))):
        period = _segment_period(seg)
        actions = [act for _, act in chosen]
        counts = {act: n for n, act in chosen}
        out.items.append(make_item(
            log=ctx.log, subtask="action_counting", k=k,
            query=W.counting_query(*period, a, a + length, actions), period=period,
            text=W.counting_answer(actions, counts), counts=counts,
            evidence=[_evidence(seg, a, a + length)],
            provenance={"source_file": ctx.ann.narration_file,
                        "narration_pass": which + 1, "annotation_ids": [seg["video_uid"]]},
            extra={"window_s": [a, a + length]}))
    return out


def summary_ordering(ctx: Context, p: dict) -> Built:
    out = Built()
    segs = ctx.log["segments"]
    if len(segs) < int(p["min_summaries"]):
        out.stats[f"logs with fewer than {p['min_summaries']} segments"] += 1
        return out
    shown = list(range(len(segs)))
    ctx.rng.shuffle(shown)
    # order[k] = which shown summary happened k-th
    order = [shown.index(j) for j in range(len(segs))]
    out.items.append(make_item(
        log=ctx.log, subtask="summary_ordering", k=0,
        query=W.ordering_query([_summary_of(ctx, segs[j]) for j in shown]),
        period=(float(segs[0]["start_s"]), float(segs[-1]["end_s"])),
        text=W.ordering_answer(order), order=order,
        evidence=[_evidence(s, s.get("source_start_s", 0.0), s["source_end_s"]) for s in segs],
        provenance={"source_file": "library.parquet",
                    "annotation_ids": [s["video_uid"] for s in segs]}))
    return out


RECIPES: dict[str, Callable[[Context, dict], Built]] = {
    "object_retrieval": object_retrieval, "people_retrieval": people_retrieval,
    "moment_retrieval": moment_retrieval, "single_summary": single_summary,
    "multi_summary": multi_summary, "holistic_summary": holistic_summary,
    "action_counting": action_counting, "summary_ordering": summary_ordering,
}

