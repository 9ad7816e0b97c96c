"""Action counting: verb-noun actions from ``#C C`` narrations inside a sub-window of a
segment, from one narration pass (never both: the passes describe the same events)."""

from __future__ import annotations

from dataclasses import dataclass

from xlebench.config.knobs import knob
from xlebench.eval.scorers import CountAccuracy
from xlebench.tasks.language import wording as W
from xlebench.tasks.language.actions import count_actions
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.records import evidence, record_period, sample, segment_of
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.screening.filters import PeriodParams


@dataclass
class CountingParams(PeriodParams):
    window_lengths_s: list[int] = knob(factory=lambda: [60, 120, 180], ge=1, le=86_400,
                                       each=True, nonempty=True)
    min_window_s: int = knob(60, ge=1, le=86_400)
    min_actions: int = knob(2, ge=1, le=50)
    max_actions: int = knob(5, ge=1, le=50)
    max_items_per_log: int | None = knob(4, ge=1)


def _window(ctx: Context, p: CountingParams, seg: dict, out: Built) -> tuple | None:
    passes = ctx.ann.narrations.get(seg["video_uid"])
    if not passes:
        out.stats["segments without narrations"] += 1
        return None
    length = ctx.rng.choice(list(p.window_lengths_s))
    dur = float(seg["source_end_s"]) - float(seg.get("source_start_s", 0.0))
    if dur < max(length, float(p.min_window_s)):
        out.stats["segments shorter than the window"] += 1
        return None
    a = round(ctx.rng.uniform(0, dur - length))
    counts, which = count_actions(passes, a, a + length)
    frequent = [(n, act) for act, n in counts.items() if n >= 1]
    if len(frequent) < p.min_actions:
        out.stats["windows with too few distinct actions"] += 1
        return None
    chosen = sorted(frequent, key=lambda x: (-x[0], x[1]))[: p.max_actions]
    ctx.rng.shuffle(chosen)
    return seg, a, length, chosen, which


def build(ctx: Context, p: CountingParams) -> Built:
    out = Built()
    candidates = [w for seg in ctx.log["segments"] if (w := _window(ctx, p, seg, out))]
    for k, (seg, a, length, chosen, which) in enumerate(
            sample(ctx.rng, candidates, p.max_items_per_log)):
        period = record_period(ctx.log, [seg], p.period, ctx.rng)
        actions = [act for _, act in chosen]
        counts = {act: n for n, act in chosen}
        # the window counted from the printed period's start (the record's, padded or not)
        at = round(a - float(seg.get("source_start_s", 0.0)) + float(seg["start_s"]) - period[0])
        out.items.append(ctx.item(
            k=k, query=W.counting_query(*period, at, at + length, actions), period=period,
            text=W.counting_answer(actions, counts), counts=counts,
            evidence=[evidence(seg, a, a + length)],
            provenance={"source_file": ctx.ann.narration_file,
                        "narration_pass": which + 1, "annotation_ids": [seg["video_uid"]]},
            # windows of one video overlap and their counts with them: one question a video
            extra={"window_s": [a, a + length],
                   "source": {"videos": [seg["video_uid"]], "annotations": [seg["video_uid"]],
                              "whole": True}}))
    return out


def oracle(ctx: Context, p: CountingParams, item: dict) -> str:
    """The listed actions counted in the narration pass and window the item names."""
    seg = segment_of(ctx.log, item)
    passes = ctx.ann.narrations.get(seg["video_uid"]) or []
    k = item["provenance"]["narration_pass"] - 1
    a, b = item["window_s"]
    counts, _ = count_actions(passes[k:k + 1], a, b)
    actions = W.counting_actions(item["query"])
    return W.counting_answer(actions, {act: counts.get(act, 0) for act in actions})


RECIPE = Recipe(
    name="action_counting", task="counting", schema=CountingParams, build=build,
    scorer=CountAccuracy(), primary="count_acc",
    answer_format=("Answer as: <action>: <count>; <action>: <count>; ... (every listed "
                   "action, each entry ending with ;)"),
    answer_source="Ego4D narrations", needs=("narrations",), oracle=oracle,
    shows=("descriptions",),
    description="How many times C did each listed action in a sub-window of a record.")
