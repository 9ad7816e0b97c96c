"""Event relations (VidSitu): how events 1, 2, 4 and 5 of a 10-second window relate to event
3 — Caused By, Enabled By, Reaction To or No Relation. The narrations do not say, so the
labels are written at annotation time by the LLM (prompt ``tasks/event_relation.v1``,
validated and cached); without one the recipe makes no items and says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from xlebench.clock import fmt_hhmmss
from xlebench.eval.scorers import RELATIONS, RelationAccuracy
from xlebench.llm.client import Usage
from xlebench.llm.prompts import load_prompt
from xlebench.llm.structured import ask_json
from xlebench.tasks.common import evidence, sample
from xlebench.tasks.context import Built, Context
from xlebench.tasks.event_srl import EventParams, describe, windows
from xlebench.tasks.items import to_day
from xlebench.tasks.registry import Recipe

PROMPT = "tasks/event_relation.v1"
FORMAT = ("Answer with one line per event: Event <k>: <Caused By | Enabled By | Reaction To | "
          "No Relation>, for events 1, 2, 4 and 5.")


@dataclass
class RelationParams(EventParams):
    prompt: str = PROMPT


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


def build(ctx: Context, p: RelationParams) -> Built:
    out = Built()
    if ctx.llm is None:
        out.stats["no LLM to label relations (use llm=litellm or llm=replay)"] += 1
        return out
    found = [(seg, start, events) for seg in ctx.log["segments"]
             for start, events in windows(ctx, p, seg, out)]
    usage = Usage()
    for k, (seg, start, events) in enumerate(sample(ctx.rng, found, p.max_items_per_log)):
        text = describe(events, p.roles)
        messages = load_prompt(p.prompt).render(events=text)
        labels = ask_json(ctx.llm, messages, partial(_labels, n=len(events)),
                          max_retries=ctx.llm.settings.max_retries, usage=usage,
                          what="event_relation labels")
        a, b = to_day(seg, start), to_day(seg, start + p.window_s)
        mid = len(events) // 2 + 1
        out.items.append(ctx.item(
            k=k, period=(a, b),
            query=(f"In the record provided for the {fmt_hhmmss(a)} - {fmt_hhmmss(b)} period, "
                   f"five events happen: {text.replace(chr(10), ' | ')}. How does each other "
                   f"event relate to event {mid}?"),
            text="\n".join(f"Event {n}: {lab}" for n, lab in sorted(labels.items())),
            answer={"relations": labels}, evidence=[evidence(seg, start, start + p.window_s)],
            provenance={"source_file": ctx.ann.narration_file, "labeller": "llm",
                        "model": ctx.llm.settings.model, "prompt": p.prompt}))
    return out


RECIPE = Recipe(
    name="event_relation", task="event_understanding", schema=RelationParams, build=build,
    scorer=RelationAccuracy(), primary="relation_acc", answer_format=FORMAT,
    answer_source="LLM labels of narrated events", needs=("narrations",), prompts=(PROMPT,),
    description="How four 2-second events relate to the middle one (VidSitu).")
