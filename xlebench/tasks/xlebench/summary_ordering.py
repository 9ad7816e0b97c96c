"""Summary ordering: one text per record of the log, shuffled (seeded); the answer is their
chronological order.

The paper shows the records' library summaries — the very references of the single-video
summary items (and the right options of the summary multiple-choice items) of the same log, so
a reader of this one query answers those without the video. By default each record is shown by
the clip-level summary of its video least like the library summary (Ego4D's 5-minute clip
summaries, which no other recipe answers with); ``texts=summaries`` is the paper's."""

from __future__ import annotations

from dataclasses import dataclass

from xlebench.config.knobs import knob
from xlebench.eval.metrics import rouge_l
from xlebench.eval.scorers import OrderAccuracy
from xlebench.tasks.language import wording as W
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.records import record_period, summary_of, whole
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.screening.filters import PeriodParams
from xlebench.tasks.screening.leaks import prints

#: Stats key of a log left without an item: a record whose every clip summary prints its
#: library summary (a short video's only clip says what its summary says).
NO_CLIPS = ("logs with a record whose every clip summary prints its library summary "
            "(tasks.summary_ordering.texts=summaries shows the library summaries, as the "
            "paper does, printing the single_summary answers)")


@dataclass
class OrderingParams(PeriodParams):
    min_summaries: int = knob(3, ge=2)
    #: ``clips``: each record's clip summary least like its library summary; ``summaries``:
    #: the library summaries (the paper's, which print the single-summary references).
    texts: str = knob("clips", choices=("clips", "summaries"))


def shown_text(videos: dict, seg: dict, texts: str) -> str | None:
    """What a record is shown by: under ``clips`` its clip summary least like its library
    summary, None where every clip prints that summary; the library summary where the video
    has no clip summary at all (the authors' library file): the annotate stage then drops
    one of each item pair whose answer the query prints (`annotate.printed_answers`)."""
    summary = summary_of(videos, seg)
    clips = [c.text for c in videos[seg["video_uid"]].clip_summaries if c.text.strip()]
    if texts == "summaries" or not clips:
        return summary
    best = min(clips, key=lambda t: rouge_l(t, summary))
    return None if prints(best, summary) else best


def build(ctx: Context, p: OrderingParams) -> Built:
    out = Built()
    segs = ctx.log["segments"]
    if len(segs) < p.min_summaries:
        out.stats[f"logs with fewer than {p.min_summaries} segments"] += 1
        return out
    texts = [shown_text(ctx.videos, s, p.texts) for s in segs]
    if None in texts:
        out.stats[NO_CLIPS] += 1
        return out
    shown = list(range(len(segs)))
    ctx.rng.shuffle(shown)
    order = [shown.index(j) for j in range(len(segs))]  # order[k]: shown summary k-th in time
    out.items.append(ctx.item(
        k=0, query=W.ordering_query([texts[j] for j in shown]),
        period=record_period(ctx.log, segs, p.period, ctx.rng),
        text=W.ordering_answer(order), order=order, evidence=[whole(s) for s in segs],
        provenance={"source_file": "library.parquet", "texts": p.texts,
                    "annotation_ids": [s["video_uid"] for s in segs]}))
    return out


def oracle(ctx: Context, p: OrderingParams, item: dict) -> str:
    """Each shown text placed at the record it was chosen for, in clock order (a text that
    several records share goes to the first one not yet taken)."""
    from xlebench.eval.scorers.order import shown

    texts = shown(item)
    free = list(range(len(texts)))
    order = []
    for seg in sorted(ctx.log["segments"], key=lambda s: float(s["start_s"])):
        mine = shown_text(ctx.videos, seg, item["provenance"].get("texts", "summaries"))
        k = next((k for k in free if texts[k] == mine), None)
        if k is not None:
            free.remove(k)
            order.append(k)
    return W.ordering_answer(order + free)


RECIPE = Recipe(
    name="summary_ordering", task="ordering", schema=OrderingParams, build=build,
    scorer=OrderAccuracy(), primary="position_acc",
    answer_format="Answer as: Correct order of the summaries: <numbers separated by commas>.",
    answer_source="library clip summaries", needs=("summaries",),
    oracle=oracle, shows=("descriptions",),
    description="The day's records, one text each, shuffled, to be put back in order.")
