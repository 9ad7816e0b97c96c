"""Event roles given the verbs (VidSitu's semantic-role task, seed 002): the windows of
`xlebench.tasks.vidsitu.event_srl`, each event's true verbs named in the query, the roles asked for —
who did it (Arg0), to what (Arg1), with what (Arg2), where (ALoc), the scene (AScn). VidSitu
scores roles given the ground-truth verb, so a role answer never pays for a wrong verb; the
verbs themselves are `event_srl`'s task.
"""

from __future__ import annotations

from dataclasses import dataclass

from xlebench.clock import fmt_hhmmss
from xlebench.eval.scorers import EventRoles
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.registry import Recipe
from xlebench.tasks.vidsitu.event_windows import (
    EventParams,
    describe,
    event_times,
    reread,
    window_items,
)
from xlebench.tasks.vidsitu.srl import ROLES, Event

FORMAT = ("Answer with one line per event: Event <k>: Arg0: <who>; Arg1: <what>; Arg2: <with "
          "what>; ALoc: <where>; AScn: <scene> (leave out a role the event does not have).")


@dataclass
class RolesParams(EventParams):
    pass


def _ask(events: list[Event], seg: dict) -> str:
    shown = "; ".join(f"event {n} ({fmt_hhmmss(a)} - {fmt_hhmmss(b)}): "
                      f"{', '.join(e.verbs) or 'no narrated action'}"
                      for n, (e, (a, b)) in enumerate(zip(events, event_times(events, seg),
                                                          strict=True), 1))
    return (f"five 2-second events happen, described by these verbs: {shown}. For each event, "
            "who did it, to what, with what, and where?")


def build(ctx: Context, p: RolesParams) -> Built:
    return window_items(ctx, p, _ask, lambda events: describe(events, p.roles, verbs=False))


def oracle(ctx: Context, p: RolesParams, item: dict) -> str:
    """The window's five events' roles, re-read from both narration passes."""
    return describe(reread(ctx, p, item), p.roles, verbs=False)


def human(item: dict) -> tuple[dict, str] | None:
    """VidSitu's human estimate: another annotator's roles (each event's first reference) as
    the reply, scored against this annotator's with the remaining references; events no second
    annotator described are not scored (their roles left out); None when no event has one."""
    events = item["answer"]["events"]
    if not any(e.get("references") for e in events):
        return None
    kept, lines = [], []
    for k, e in enumerate(events, start=1):
        refs = e.get("references") or []
        e = {f: v for f, v in e.items() if f != "roles_by_annotator"}  # the reply is one
        kept.append({**e, "references": refs[1:]} if refs else {**e, "roles": {},
                                                                  "references": []})
        said = "; ".join(f"{r}: {refs[0][r]}" for r in ROLES if refs and refs[0].get(r))
        lines.append(f"Event {k}: {said}")
    return {**item, "answer": {**item["answer"], "events": kept}}, "\n".join(lines)


RECIPE = Recipe(
    name="event_roles", task="event_understanding", schema=RolesParams, build=build,
    scorer=EventRoles(), primary="cider_d", answer_format=FORMAT,
    paper_metrics=("cider_d", "cider_d_verb", "cider_d_arg", "rouge_args", "lea", "lea_soft"),
    answer_source="Ego4D narrations (both passes)", needs=("narrations",),
    oracle=oracle, shows=("verbs",), human=human,
    description="Who did what, with what and where in five 2-second events, given their "
                "verbs (VidSitu's role task).")
