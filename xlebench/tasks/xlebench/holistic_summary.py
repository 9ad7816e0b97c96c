"""Holistic summary: the period summaries aggregated over the whole life log."""

from __future__ import annotations

from dataclasses import dataclass, field

from xlebench.eval.scorers import TextSimilarity
from xlebench.tasks.language import wording as W
from xlebench.tasks.language.aggregate import aggregator_of
from xlebench.tasks.language.wording import SUMMARY_FORMAT, SUMMARY_SOURCE
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.records import (
    day_periods,
    day_phrase,
    in_period,
    record_period,
    seg_day,
    summary_of,
    whole,
)
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.screening.filters import PeriodParams


@dataclass
class HolisticSummaryParams(PeriodParams):
    boundaries: list[str] = field(default_factory=lambda: ["12:00", "17:00"])


def _day_summary(ctx: Context, p: HolisticSummaryParams, day: int, days: int) -> str:
    parts = []
    for _name, phrase, lo, hi in day_periods(p.boundaries):
        segs = [s for s in ctx.log["segments"] if in_period(s, lo, hi, day)]
        if segs:
            parts.append(ctx.aggregate([summary_of(ctx.videos, s) for s in segs],
                                       day_phrase(phrase, day, days)))
    where = "over the whole day" if days == 1 else f"over day {day + 1}"
    return ctx.aggregate(parts, where) if len(parts) > 1 else (parts[0] if parts else "")


def _item(ctx: Context, p: HolisticSummaryParams, k: int, query: str, segs: list[dict],
          text: str) -> dict:
    return ctx.item(
        k=k, query=query, period=record_period(ctx.log, segs, p.period, ctx.rng),
        text=text, evidence=[whole(s) for s in segs],
        provenance={"source_file": "library.parquet",
                    "annotation_ids": [s["video_uid"] for s in segs],
                    "aggregator": aggregator_of(ctx.aggregate)})


def build(ctx: Context, p: HolisticSummaryParams) -> Built:
    """One day: the day's summary. Several days: the whole log (item 0), then each day."""
    out = Built()
    segs = ctx.log["segments"]
    if not segs:
        out.stats["empty life log"] += 1
        return out
    days = int(ctx.log.get("days", 1))
    per_day = [_day_summary(ctx, p, d, days) for d in range(days)]
    if days == 1:
        out.items.append(_item(ctx, p, 0, W.HOLISTIC_QUERY, segs, per_day[0]))
        return out
    overall = ctx.aggregate([t for t in per_day if t], f"over all {days} days")
    out.items.append(_item(ctx, p, 0, W.HOLISTIC_QUERY, segs, overall))
    for d, text in enumerate(per_day):
        day_segs = [s for s in segs if seg_day(s) == d]
        if not day_segs:
            out.stats["days without segments"] += 1
            continue
        out.items.append(_item(ctx, p, d + 1, W.holistic_day_query(d + 1), day_segs, text))
    return out


def oracle(ctx: Context, p: HolisticSummaryParams, item: dict) -> str:
    """The library summaries of the records inside the item's period, aggregated per day
    and part of the day."""
    days = int(ctx.log.get("days", 1))
    lo, hi = float(item["period"]["start_s"]), float(item["period"]["end_s"])
    inside = {seg_day(s) for s in ctx.log["segments"] if lo <= float(s["start_s"]) <= hi}
    per_day = [_day_summary(ctx, p, d, days) for d in sorted(inside)]
    if days == 1 or len(per_day) == 1:
        return per_day[0] if per_day else ""
    return ctx.aggregate([t for t in per_day if t], f"over all {days} days")


RECIPE = Recipe(
    name="holistic_summary", task="summarisation", schema=HolisticSummaryParams, build=build,
    scorer=TextSimilarity(), primary="rougeL_content",
    paper_metrics=("rougeL", "bertscore_f1"), answer_format=SUMMARY_FORMAT,
    answer_source=SUMMARY_SOURCE, needs=("summaries",), group="summarisation",
    prompts=("tasks/aggregate.v2",), oracle=oracle, answers="descriptions",
    description="What happened over the whole day.")
