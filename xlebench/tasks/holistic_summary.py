"""Holistic summary: the period summaries aggregated over the whole life log."""

from __future__ import annotations

from dataclasses import dataclass, field

from xlebench.eval.scorers import TextSimilarity
from xlebench.tasks import wording as W
from xlebench.tasks.common import day_periods, in_period, summary_of, whole
from xlebench.tasks.context import Built, Context
from xlebench.tasks.filters import RecipeParams
from xlebench.tasks.registry import Recipe
from xlebench.tasks.single_summary import SUMMARY_FORMAT, SUMMARY_SOURCE


@dataclass
class HolisticSummaryParams(RecipeParams):
    boundaries: list[str] = field(default_factory=lambda: ["12:00", "17:00"])


def build(ctx: Context, p: HolisticSummaryParams) -> Built:
    out = Built()
    parts = []
    for _name, phrase, lo, hi in day_periods(p.boundaries):
        segs = [s for s in ctx.log["segments"] if in_period(s, lo, hi)]
        if segs:
            parts.append(ctx.aggregate([summary_of(ctx.videos, s) for s in segs], phrase))
    segs = ctx.log["segments"]
    if not segs:
        out.stats["empty life log"] += 1
        return out
    out.items.append(ctx.item(
        k=0, query=W.HOLISTIC_QUERY,
        period=(float(segs[0]["start_s"]), float(segs[-1]["end_s"])),
        text=ctx.aggregate(parts, "over the whole day") if len(parts) > 1 else
        (parts[0] if parts else ""),
        evidence=[whole(s) for s in segs],
        provenance={"source_file": "library.parquet",
                    "annotation_ids": [s["video_uid"] for s in segs]}))
    return out


RECIPE = Recipe(
    name="holistic_summary", task="summarisation", schema=HolisticSummaryParams, build=build,
    scorer=TextSimilarity(), primary="rougeL", answer_format=SUMMARY_FORMAT,
    answer_source=SUMMARY_SOURCE, needs=("summaries",), group="summarisation",
    prompts=("tasks/aggregate.v1",), description="What happened over the whole day.")
