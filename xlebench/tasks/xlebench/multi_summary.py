"""Multi-video summary per period: morning < 12:00, afternoon 12:00-17:00, evening > 17:00
(the segment's start decides); the answer aggregates the period's single summaries."""

from __future__ import annotations

from dataclasses import dataclass, field

from xlebench.config.knobs import knob
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
    summary_of,
    whole,
)
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.screening.filters import PeriodParams


@dataclass
class MultiSummaryParams(PeriodParams):
    boundaries: list[str] = field(default_factory=lambda: ["12:00", "17:00"])
    min_segments: int = knob(1, ge=1)


def build(ctx: Context, p: MultiSummaryParams) -> Built:
    out = Built()
    k, days = 0, int(ctx.log.get("days", 1))
    for day, (name, plain, lo, hi) in ((d, per) for d in range(days)
                                         for per in day_periods(p.boundaries)):
        segs = [s for s in ctx.log["segments"] if in_period(s, lo, hi, day)]
        phrase = day_phrase(plain, day, days)
        if days > 1:
            name = f"day{day + 1}-{name}"
        if len(segs) < p.min_segments:
            out.stats[f"{name}: fewer than {p.min_segments} segments"] += 1
            continue
        out.items.append(ctx.item(
            k=k, query=W.multi_summary_query(phrase),
            period=record_period(ctx.log, segs, p.period, ctx.rng),
            text=ctx.aggregate([summary_of(ctx.videos, s) for s in segs], phrase),
            evidence=[whole(s) for s in segs],
            provenance={"source_file": "library.parquet",
                        "annotation_ids": [s["video_uid"] for s in segs], "period": name,
                        "aggregator": aggregator_of(ctx.aggregate)},
            extra={"part": name}))
        k += 1
    return out


def oracle(ctx: Context, p: MultiSummaryParams, item: dict) -> str:
    """The library summaries of the records inside the item's period, aggregated."""
    lo, hi = float(item["period"]["start_s"]), float(item["period"]["end_s"])
    segs = [s for s in ctx.log["segments"] if lo <= float(s["start_s"]) < hi]
    return ctx.aggregate([summary_of(ctx.videos, s) for s in segs],
                         W.multi_summary_phrase(item["query"]))


RECIPE = Recipe(
    name="multi_summary", task="summarisation", schema=MultiSummaryParams, build=build,
    scorer=TextSimilarity(), primary="rougeL_content",
    paper_metrics=("rougeL", "bertscore_f1"), answer_format=SUMMARY_FORMAT,
    answer_source=SUMMARY_SOURCE, needs=("summaries",), group="summarisation",
    prompts=("tasks/aggregate.v2",), oracle=oracle, answers="descriptions",
    description="What happened in a part of the day, over several recordings.")
