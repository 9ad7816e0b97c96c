"""Event roles given the verbs (VidSitu's semantic-role task, seed 002): the windows of
`xlebench.tasks.event_srl`, each event's true verbs named in the query, the roles asked for —
who did it (Arg0), to what (Arg1), with what (Arg2), where (ALoc), the scene (AScn). VidSitu
scores roles given the ground-truth verb, so a role answer never pays for a wrong verb; the
verbs themselves are `event_srl`'s task.
"""

from __future__ import annotations

from dataclasses import dataclass

from xlebench.clock import fmt_hhmmss
from xlebench.eval.scorers import EventRoles
from xlebench.tasks.context import Built, Context
from xlebench.tasks.event_srl import EventParams, describe, event_times, reread, window_items
from xlebench.tasks.registry import Recipe
from xlebench.tasks.srl import Event

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


RECIPE = Recipe(
    name="event_roles", task="event_understanding", schema=RolesParams, build=build,
    scorer=EventRoles(), primary="cider_d", answer_format=FORMAT,
    answer_source="Ego4D narrations (both passes)", needs=("narrations",),
    oracle=oracle, shows=("verbs",),
    description="Who did what, with what and where in five 2-second events, given their "
                "verbs (VidSitu's role task).")
