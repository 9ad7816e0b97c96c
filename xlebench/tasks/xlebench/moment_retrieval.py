"""Moment retrieval: Ego4D moments labels (``use_phone`` -> "When did I (use phone) ...");
every interval of the label in the segment is a ground-truth span."""

from __future__ import annotations

from dataclasses import dataclass

from xlebench.config.knobs import knob
from xlebench.eval.scorers import SpanRecall
from xlebench.tasks.language import wording as W
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.items import to_day
from xlebench.tasks.recipe.records import evidence, record_period, sample, segment_of
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.screening.filters import PeriodParams
from xlebench.tasks.xlebench.nlq import SPAN_FORMAT


@dataclass
class MomentParams(PeriodParams):
    max_per_segment: int | None = knob(2, ge=1)
    max_items_per_log: int | None = knob(8, ge=1)


def build(ctx: Context, p: MomentParams) -> Built:
    out = Built()
    candidates = []
    for seg in ctx.log["segments"]:
        by_label: dict[str, list] = {}
        for m in ctx.ann.moments.get(seg["video_uid"], []):
            by_label.setdefault(m.label, []).append(m)
        if not by_label:
            out.stats["segments without moments annotations"] += 1
        labels = sample(ctx.rng, sorted(by_label), p.max_per_segment)
        candidates += [(seg, lab, by_label[lab]) for lab in labels]
    for k, (seg, label, moments) in enumerate(sample(ctx.rng, candidates,
                                                     p.max_items_per_log)):
        period = record_period(ctx.log, [seg], p.period, ctx.rng)
        spans = [(to_day(seg, m.start_s), to_day(seg, m.end_s)) for m in moments]
        out.items.append(ctx.item(
            k=k, query=W.moment_query(label, *period), period=period, spans=spans,
            text=W.span_text(spans), evidence=[evidence(seg, m.start_s, m.end_s)
                                               for m in moments],
            provenance={"source_file": moments[0].file, "label": label,
                        "video_spans": [[m.start_s, m.end_s] for m in moments],
                        "annotation_ids": sorted({i for m in moments
                                                  for i in m.annotation_uids})}))
    return out


def oracle(ctx: Context, p: MomentParams, item: dict) -> str:
    """Every interval the moments annotations give the label in the record, on the clock."""
    seg = segment_of(ctx.log, item)
    spans = [(to_day(seg, m.start_s), to_day(seg, m.end_s))
             for m in ctx.ann.moments.get(seg["video_uid"], [])
             if m.label == item["provenance"]["label"]]
    return W.span_text(spans) if spans else "There is no information available."


RECIPE = Recipe(
    name="moment_retrieval", task="temporal_localisation", schema=MomentParams, build=build,
    scorer=SpanRecall(), primary="R@5,0.3", answer_format=SPAN_FORMAT,
    answer_source="Ego4D moments", needs=("moments",), group="temporal localisation",
    oracle=oracle, check="R@1,0.5",
    description="When C did an activity (an Ego4D moments label), as clock spans.")
