"""Single-video summary: one item per segment; the answer is the video's one-sentence
library summary. The queried period is the record's own (the paper's) or, by default, widened
into the free time around it, so that its length does not name the video."""

from __future__ import annotations

from dataclasses import dataclass

from xlebench.config.knobs import knob
from xlebench.eval.scorers import TextSimilarity
from xlebench.tasks.language import wording as W
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.records import record_period, sample, segment_of, summary_of, whole
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.screening.filters import PeriodParams


@dataclass
class SingleSummaryParams(PeriodParams):
    max_items_per_log: int | None = knob(None, ge=1)


def build(ctx: Context, p: SingleSummaryParams) -> Built:
    out = Built()
    for k, seg in enumerate(sample(ctx.rng, list(ctx.log["segments"]), p.max_items_per_log)):
        period = record_period(ctx.log, [seg], p.period, ctx.rng)
        out.items.append(ctx.item(
            k=k, query=W.single_summary_query(*period), period=period,
            text=summary_of(ctx.videos, seg), evidence=[whole(seg)],
            provenance={"source_file": "library.parquet", "annotation_ids": [seg["video_uid"]]}))
    return out


def oracle(ctx: Context, p: SingleSummaryParams, item: dict) -> str:
    """The library's summary of the record's video."""
    return summary_of(ctx.videos, segment_of(ctx.log, item))


RECIPE = Recipe(
    name="single_summary", task="summarisation", schema=SingleSummaryParams, build=build,
    scorer=TextSimilarity(), primary="rougeL_content",
    paper_metrics=("rougeL", "bertscore_f1"), answer_format=W.SUMMARY_FORMAT,
    answer_source=W.SUMMARY_SOURCE, needs=("summaries",), group="summarisation",
    oracle=oracle, answers="descriptions",
    description="What happened in one recording, as one sentence.")
