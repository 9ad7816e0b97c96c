"""Event verbs (VidSitu, seed 002): a 10-second window of a record, five 2-second events,
each with the verbs that describe it; VidSitu's second task, the semantic roles of each event
given its true verbs, is `xlebench.tasks.vidsitu.event_roles` over the same windows.

Windows are candidates every ``stride_s`` seconds; a window is kept when each of its five
intervals holds a narration naming a verb (``min_narrated_events``, default every event:
VidSitu never asks about an event no one labelled; at Ego4D's density — one narration every
~4.5 s — few do: the share kept is reported), and the most eventful windows
(distinct verbs, people-actions aside) are taken, at most ``max_windows_per_source`` per record.
"""

from __future__ import annotations

from xlebench.clock import fmt_hhmmss
from xlebench.eval.scorers import EventVerbs
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.vidsitu.event_windows import (
    EventParams,
    describe,
    event_times,
    reread,
    window_items,
)
from xlebench.tasks.vidsitu.srl import (
    Event,
    agreed_verbs,
)

FORMAT = ("Answer with one line per event: Event <k>: verbs: <up to 5 verbs, most likely "
          "first>.")


def _ask(events: list[Event], seg: dict) -> str:
    shown = "; ".join(f"event {n}: {fmt_hhmmss(a)} - {fmt_hhmmss(b)}"
                      for n, (a, b) in enumerate(event_times(events, seg), 1))
    return (f"five 2-second events happen ({shown}). Which verbs describe what happens in "
            "each event?")


def build(ctx: Context, p: EventParams) -> Built:
    return window_items(ctx, p, _ask, lambda events: describe(events, []))


def oracle(ctx: Context, p: EventParams, item: dict) -> str:
    """The window's five events' verbs, re-read from both narration passes."""
    return describe(reread(ctx, p, item), [])


def human(item: dict) -> tuple[dict, str] | None:
    """VidSitu's human estimate for verbs: the first annotator's verbs as the reply, scored
    against the other annotators as the evaluator scores a system against all of them;
    events with one annotator have no other to score against (no verbs). None when no event
    has two."""
    events = item["answer"]["events"]
    if not any(len(e.get("verbs_by_annotator", [])) > 1 for e in events):
        return None
    kept, lines = [], []
    for k, e in enumerate(events, start=1):
        by = e.get("verbs_by_annotator", [])
        others = by[1:]
        event = {k2: v for k2, v in e.items() if k2 != "verbs_by_annotator"}
        event.update(verbs_gt=agreed_verbs(others) if others else [], annotators=len(others))
        if len(others) > 1:
            event["verbs_by_annotator"] = others
        kept.append(event)
        lines.append(f"Event {k}: verbs: {', '.join(by[0] if others else [])}")
    return {**item, "answer": {**item["answer"], "events": kept}}, "\n".join(lines)


RECIPE = Recipe(
    name="event_srl", task="event_understanding", schema=EventParams, build=build,
    scorer=EventVerbs(), primary="verb_r5", answer_format=FORMAT,
    paper_metrics=("acc@1", "acc@5", "verb_r5_th9"),
    answer_source="Ego4D narrations (both passes)", needs=("narrations",),
    oracle=oracle, answers="verbs", human=human,
    description="The verbs of five 2-second events (VidSitu's verb task).")
