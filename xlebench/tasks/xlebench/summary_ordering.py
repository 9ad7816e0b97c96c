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
from xlebench.library.records import ClipSummary
from xlebench.tasks.language import wording as W
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.records import evidence, record_period, summary_of, whole
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.screening.filters import PeriodParams
from xlebench.tasks.screening.leaks import prints

#: Stats key of a log left without an item: a record whose every clip summary prints its
#: library summary (a short video's only clip says what its summary says).
NO_CLIPS = ("logs with a record whose every clip summary prints its library summary "
            "(tasks.summary_ordering.texts=summaries shows the library summaries, as the "
            "paper does, printing the single_summary answers)")

#: Stats key of a log whose records have no clip summaries at all (the authors' library file).
NO_RECORD_CLIPS = ("logs whose records have no clip summaries to order (the authors' library "
                   "has none: tasks.summary_ordering.across=day orders the day's records, as "
                   "the paper does)")


@dataclass
class OrderingParams(PeriodParams):
    min_summaries: int = knob(3, ge=2)
    #: ``clips``: each record's clip summary least like its library summary; ``summaries``:
    #: the library summaries (the paper's, which print the single-summary references).
    texts: str = knob("clips", choices=("clips", "summaries"))
    #: ``day``: one text per record of the log (the paper's); ``part``: one text per record
    #: of the ``min_summaries`` records in a row nearest together in the day (the same part
    #: of it, where the log has them); ``record``: the clip summaries of one record, at most
    #: ``max_summaries`` in a row, in the order they happen.
    across: str = knob("part", choices=("day", "part", "record"))
    max_summaries: int = knob(5, ge=2)


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


def record_clips(videos: dict, seg: dict) -> list[ClipSummary]:
    """The record's clip summaries in the order they happen, inside its source span, each
    text once (two alike have no order between them), none printing its library summary."""
    a, b = float(seg.get("source_start_s", 0.0)), float(seg["source_end_s"])
    summary = summary_of(videos, seg)
    seen = {" ".join(summary.split())}  # shown as it is, a clip would print the answer
    out = []
    for c in sorted(videos[seg["video_uid"]].clip_summaries, key=lambda c: c.start_s):
        key = " ".join(c.text.split())
        inside = a - 1.0 <= c.start_s and c.end_s <= b + 1.0
        if inside and key and key not in seen and not prints(key, summary):
            out.append(c)
        seen.add(key)
    return out


def build_record(ctx: Context, p: OrderingParams) -> Built:
    """One record of the log (seeded) with at least ``min_summaries`` clip summaries: a run of
    at most ``max_summaries`` of them, shuffled; the answer is the order they happen in."""
    out = Built()
    runs = [(s, c) for s in ctx.log["segments"]
            if len(c := record_clips(ctx.videos, s)) >= p.min_summaries]
    if not runs:
        bare = not any(ctx.videos[s["video_uid"]].clip_summaries for s in ctx.log["segments"])
        out.stats[NO_RECORD_CLIPS if bare else
                  f"logs with no record of {p.min_summaries} distinct clip summaries"] += 1
        return out
    seg, clips = ctx.rng.choice(runs)
    first = ctx.rng.randrange(len(clips) - min(len(clips), p.max_summaries) + 1)
    clips = clips[first:first + p.max_summaries]
    shown = list(range(len(clips)))
    ctx.rng.shuffle(shown)
    order = [shown.index(j) for j in range(len(clips))]
    period = record_period(ctx.log, [seg], p.period, ctx.rng)
    out.items.append(ctx.item(
        k=0, query=W.clip_ordering_query([clips[j].text for j in shown], *period),
        period=period,
        text=W.ordering_answer(order), order=order,
        evidence=[evidence(seg, c.start_s, c.end_s) for c in clips],
        provenance={"source_file": "library.parquet", "texts": "clips", "across": "record",
                    "annotation_ids": [seg["video_uid"]]}))
    return out


def nearest_run(segs: list[dict], k: int) -> list[dict]:
    """The ``k`` records in a row (clock order) whose first start and last end lie nearest
    together (ties: the earliest)."""
    ordered = sorted(segs, key=lambda s: float(s["start_s"]))
    runs = [ordered[i:i + k] for i in range(len(ordered) - k + 1)]
    return min(runs, key=lambda r: (float(r[-1]["end_s"]) - float(r[0]["start_s"]),
                                    float(r[0]["start_s"])))


def build(ctx: Context, p: OrderingParams) -> Built:
    if p.across == "record":
        return build_record(ctx, p)
    out = Built()
    segs = ctx.log["segments"]
    if p.across == "part" and len(segs) >= p.min_summaries:
        segs = nearest_run(segs, p.min_summaries)
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
    if item["provenance"].get("across") == "record":
        return _oracle_record(ctx, item, texts)
    free = list(range(len(texts)))
    order = []
    for seg in sorted(ctx.log["segments"], key=lambda s: float(s["start_s"])):
        mine = shown_text(ctx.videos, seg, item["provenance"].get("texts", "summaries"))
        k = next((k for k in free if texts[k] == mine), None)
        if k is not None:
            free.remove(k)
            order.append(k)
    return W.ordering_answer(order + free)


def _oracle_record(ctx: Context, item: dict, texts: list[str]) -> str:
    """Each shown clip text placed at the clip of the item's record that says it, in the
    order the video's clip summaries run."""
    uid = item["evidence"][0]["video_uid"]
    clips = sorted(ctx.videos[uid].clip_summaries, key=lambda c: c.start_s)
    said = [" ".join(c.text.split()) for c in clips]
    ranked = sorted(range(len(texts)), key=lambda k: (
        said.index(" ".join(texts[k].split())) if " ".join(texts[k].split()) in said
        else len(said), k))
    return W.ordering_answer(ranked)


RECIPE = Recipe(
    name="summary_ordering", task="ordering", schema=OrderingParams, build=build,
    scorer=OrderAccuracy(), primary="position_acc",
    answer_format="Answer as: Correct order of the summaries: <numbers separated by commas>.",
    answer_source="library clip summaries", needs=("summaries",),
    oracle=oracle, shows=("descriptions",),
    description="The day's records, one text each, shuffled, to be put back in order.")
