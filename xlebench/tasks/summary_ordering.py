"""Summary ordering: the log's single summaries shuffled (seeded); the answer is their
chronological order."""

from __future__ import annotations

from dataclasses import dataclass

from xlebench.config.knobs import knob
from xlebench.eval.scorers import OrderAccuracy
from xlebench.tasks import wording as W
from xlebench.tasks.common import summary_of, whole
from xlebench.tasks.context import Built, Context
from xlebench.tasks.filters import RecipeParams
from xlebench.tasks.registry import Recipe


@dataclass
class OrderingParams(RecipeParams):
    min_summaries: int = knob(3, ge=2)


def build(ctx: Context, p: OrderingParams) -> Built:
    out = Built()
    segs = ctx.log["segments"]
    if len(segs) < p.min_summaries:
        out.stats[f"logs with fewer than {p.min_summaries} segments"] += 1
        return out
    shown = list(range(len(segs)))
    ctx.rng.shuffle(shown)
    order = [shown.index(j) for j in range(len(segs))]  # order[k]: shown summary k-th in time
    out.items.append(ctx.item(
        k=0, query=W.ordering_query([summary_of(ctx.videos, segs[j]) for j in shown]),
        period=(float(segs[0]["start_s"]), float(segs[-1]["end_s"])),
        text=W.ordering_answer(order), order=order, evidence=[whole(s) for s in segs],
        provenance={"source_file": "library.parquet",
                    "annotation_ids": [s["video_uid"] for s in segs]}))
    return out


def oracle(ctx: Context, p: OrderingParams, item: dict) -> str:
    """Each shown summary placed at the record whose library summary it is, in clock order
    (a summary that several records share goes to the first one not yet taken)."""
    from xlebench.eval.scorers.order import shown

    texts = shown(item)
    free = list(range(len(texts)))
    order = []
    for seg in sorted(ctx.log["segments"], key=lambda s: float(s["start_s"])):
        k = next((k for k in free if texts[k] == summary_of(ctx.videos, seg)), None)
        if k is not None:
            free.remove(k)
            order.append(k)
    return W.ordering_answer(order + free)


RECIPE = Recipe(
    name="summary_ordering", task="ordering", schema=OrderingParams, build=build,
    scorer=OrderAccuracy(), primary="position_acc",
    answer_format="Answer as: Correct order of the summaries: <numbers separated by commas>.",
    answer_source="library summaries", needs=("summaries",), oracle=oracle,
    description="The day's summaries, shuffled, to be put back in order.")
