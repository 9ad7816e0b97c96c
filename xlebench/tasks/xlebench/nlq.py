"""Items from Ego4D NLQ queries, shared by object and people retrieval (their templates
differ): each query is asked about its segment's period, its window remapped to the clock."""

from __future__ import annotations

from dataclasses import dataclass, field

from xlebench.config.knobs import knob
from xlebench.tasks.language import wording as W
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.items import to_day
from xlebench.tasks.recipe.records import evidence, record_period, sample, segment_of
from xlebench.tasks.screening.filters import PeriodParams

SPAN_FORMAT = ("Answer with up to 5 time spans, most likely first, formatted as "
               "[HH:MM:SS - HH:MM:SS], separated by commas.")


@dataclass
class RetrievalParams(PeriodParams):
    #: NLQ template categories (text before the colon) that make this subtask.
    templates: list[str] = field(default_factory=list)
    max_per_segment: int | None = knob(2, ge=1)
    max_items_per_log: int | None = knob(8, ge=1)


def nlq_items(ctx: Context, p: RetrievalParams) -> Built:
    out = Built()
    prefixes = tuple(p.templates)
    candidates = []
    for seg in ctx.log["segments"]:
        queries = [q for q in ctx.ann.nlq.get(seg["video_uid"], [])
                   if q.template.startswith(prefixes)]
        if not queries:
            out.stats["segments without matching NLQ queries"] += 1
        candidates += [(seg, q) for q in sample(ctx.rng, queries, p.max_per_segment)]
    for k, (seg, q) in enumerate(sample(ctx.rng, candidates, p.max_items_per_log)):
        period = record_period(ctx.log, [seg], p.period, ctx.rng)
        span = (to_day(seg, q.start_s), to_day(seg, q.end_s))
        out.items.append(ctx.item(
            k=k, query=W.retrieval_query(q.query, *period), period=period, spans=[span],
            text=W.span_text([span]), evidence=[evidence(seg, q.start_s, q.end_s)],
            provenance={"source_file": q.file, "annotation_ids": [q.annotation_uid],
                        "query_idx": q.query_idx, "clip_uid": q.clip_uid,
                        "template": q.template, "raw_query": q.raw,
                        # unrounded Ego4D seconds: the release export adds them to HH:MM
                        "video_spans": [[q.start_s, q.end_s]]},
            # one NLQ annotation holds many queries: the query is the source
            extra={"source": {"videos": [seg["video_uid"]],
                              "annotations": [f"{q.annotation_uid}/{q.query_idx}"]}}))
    return out


def nlq_oracle(ctx: Context, p: RetrievalParams, item: dict) -> str:
    """The language query's own window (its NLQ annotation, found by annotation id and query
    index in the annotation file), remapped to the clock."""
    seg = segment_of(ctx.log, item)
    prov = item["provenance"]
    q = next((q for q in ctx.ann.nlq.get(seg["video_uid"], [])
              if q.annotation_uid in prov["annotation_ids"]
              and q.query_idx == prov["query_idx"]), None)
    if q is None:
        return "There is no information available in the annotations."
    return W.span_text([(to_day(seg, q.start_s), to_day(seg, q.end_s))])
