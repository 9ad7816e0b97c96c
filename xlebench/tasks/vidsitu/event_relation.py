"""Event relations (VidSitu): how events 1, 2, 4 and 5 of a 10-second window relate to event
3 — Caused By, Enabled By, Reaction To or No Relation. The narrations do not say, so the
labels are written at annotation time by the LLM (prompt ``tasks/event_relation.v2``,
validated and cached); without one the recipe makes no items and says why.

The labeller reads more than the item shows: the narrations of both annotators in and around
the window (``context_s`` either side), while the query gives only the five events' times —
with v1 the query showed the very event text the labels were written from, so a text-only
model reproduced them without the video. A window whose reference event (event 3) holds no
narration is left out and counted: a relation to nothing cannot be labelled.

As VidSitu keeps the majority of three annotators' labels, the labeller is asked
``labellers`` times (separate cached samples: set ``llm.temperature`` above 0 for them to
differ); an event's label is the one a majority gives, a window where some event has none is
left out and counted, and each item records how often all samples agreed
(``provenance.agreement``; the stats count the windows labelled unanimously).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import partial
from typing import Any

from xlebench.clock import fmt_hhmmss
from xlebench.config.knobs import knob
from xlebench.eval.scorers import RELATIONS, RelationAccuracy
from xlebench.library.annotations import clean_narration
from xlebench.llm.client import Usage
from xlebench.llm.prompts import load_prompt
from xlebench.llm.structured import ask_json
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.items import to_day
from xlebench.tasks.recipe.records import evidence, sample
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.vidsitu.event_windows import EventParams, windows

PROMPT = "tasks/event_relation.v2"
FORMAT = ("Answer with one line per event: Event <k>: <Caused By | Enabled By | Reaction To | "
          "No Relation>, for events 1, 2, 4 and 5.")


@dataclass
class RelationParams(EventParams):
    prompt: str = PROMPT
    #: Seconds of narrations the labeller reads before and after the window.
    context_s: float = knob(10.0, ge=0, le=600)
    #: Samples of the labeller per window; an event's label is their majority (VidSitu: 3).
    labellers: int = knob(3, ge=1, le=9)


def _labels(value: Any, n: int) -> dict[str, str]:
    others = [str(k) for k in range(1, n + 1) if k != (n + 1) // 2]
    if not isinstance(value, dict) or set(map(str, value)) != set(others):
        raise ValueError(f"expected an object with one label for each of events {others}")
    out = {}
    for k, label in value.items():
        match = next((r for r in RELATIONS if r.lower() == str(label).strip().lower()), None)
        if match is None:
            raise ValueError(f"event {k}: {label!r} is not one of {list(RELATIONS)}")
        out[str(k)] = match
    return out


def majority(votes: list[dict[str, str]]) -> tuple[dict[str, str] | None, float]:
    """Per event, the label more than half the samples give (None for the window when an
    event has none), and the share of events every sample labelled alike."""
    labels, counts = majority_votes(votes)
    if labels is None:
        return None, 0.0
    return labels, round(sum(n == len(votes) for n in counts.values()) / max(1, len(labels)), 4)


def majority_votes(votes: list[dict[str, str]]
                   ) -> tuple[dict[str, str] | None, dict[str, int]]:
    """Per event, the majority label and how many samples gave it (VidSitu's evaluator
    counts an event once per annotator who chose its majority label)."""
    out, n_for = {}, {}
    for event in sorted(votes[0]):
        label, n = Counter(v[event] for v in votes).most_common(1)[0]
        if 2 * n <= len(votes):
            return None, {}
        out[event], n_for[event] = label, n
    return out, n_for


def _context_lines(ctx: Context, seg: dict, start: float, p: RelationParams) -> str:
    """Both passes' narrations from ``context_s`` before the window to ``context_s`` after
    it, each with its time from the window start."""
    a, b = start - p.context_s, start + p.window_s + p.context_s
    lines = sorted((n.t - start, k + 1, clean_narration(n.text))
                   for k, narrs in enumerate(ctx.ann.narrations.get(seg["video_uid"]) or [])
                   for n in narrs if a <= n.t < b)
    return "\n".join(f"{t:+.1f} s (annotator {k}): {text}" for t, k, text in lines)


def _times(events: list, seg: dict) -> list[tuple[float, float]]:
    return [(to_day(seg, e.interval[0]), to_day(seg, e.interval[1])) for e in events]


def build(ctx: Context, p: RelationParams) -> Built:
    out = Built()
    if ctx.llm is None:
        out.stats["no LLM to label relations (use llm=litellm or llm=replay)"] += 1
        return out
    found = []
    for seg in ctx.log["segments"]:
        for start, events in windows(ctx, p, seg, out):
            if events[len(events) // 2].narrated:
                found.append((seg, start, events))
            else:
                out.stats["windows whose reference event has no narration"] += 1
    usage = Usage()
    for k, (seg, start, events) in enumerate(sample(ctx.rng, found, p.max_items_per_log)):
        listing = "\n".join(f"Event {n}: {a - start:.0f}-{b - start:.0f} s" for n, (a, b) in
                             enumerate(((e.interval[0], e.interval[1]) for e in events), 1))
        messages = load_prompt(p.prompt).render(events=listing,
                                                narrations=_context_lines(ctx, seg, start, p))
        votes = [ask_json(ctx.llm, messages, partial(_labels, n=len(events)),
                          max_retries=ctx.llm.settings.max_retries, usage=usage,
                          sample=v, what="event_relation labels")
                 for v in range(p.labellers)]
        labels, agreement = majority(votes)
        counts = majority_votes(votes)[1]
        if labels is None:
            out.stats["windows whose labellers gave an event no majority"] += 1
            continue
        if agreement == 1.0:
            out.stats["windows every labeller sample agreed on"] += 1
        a, b = to_day(seg, start), to_day(seg, start + p.window_s)
        mid = len(events) // 2 + 1
        shown = "; ".join(f"event {n}: {fmt_hhmmss(x)} - {fmt_hhmmss(y)}"
                          for n, (x, y) in enumerate(_times(events, seg), 1))
        out.items.append(ctx.item(
            k=k, period=(a, b),
            query=(f"In the record provided for the {fmt_hhmmss(a)} - {fmt_hhmmss(b)} period, "
                   f"five 2-second events happen ({shown}). How does each other event relate "
                   f"to event {mid}?"),
            text="\n".join(f"Event {n}: {lab}" for n, lab in sorted(labels.items())),
            answer={"relations": labels, "votes": counts}, evidence=[evidence(seg, start, start + p.window_s)],
            provenance={"source_file": ctx.ann.narration_file, "labeller": "llm",
                        "model": ctx.llm.settings.model, "prompt": p.prompt,
                        "labellers": p.labellers, "agreement": agreement,
                        "labeller_saw": {"narrations_s": [start - p.context_s,
                                                          start + p.window_s + p.context_s],
                                         "passes": len(ctx.ann.narrations.get(
                                             seg["video_uid"]) or [])}}))
    return out


RECIPE = Recipe(
    name="event_relation", task="event_understanding", schema=RelationParams, build=build,
    scorer=RelationAccuracy(), primary="relation_acc", answer_format=FORMAT,
    answer_source="LLM labels of narrated events", needs=("narrations",), prompts=(PROMPT,),
    description="How four 2-second events relate to the middle one (VidSitu).")
