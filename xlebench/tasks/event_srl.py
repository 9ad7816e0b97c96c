"""Event verbs and semantic roles (VidSitu, seed 002): a 10-second window of a record, five
2-second events, each with its verbs and roles (Arg0, Arg1, Arg2, ALoc, AScn).

Windows are candidates every ``stride_s`` seconds; a window is kept when at least
``min_narrated_events`` of its five intervals hold a narration (at Ego4D's density — one
narration every ~4.5 s — few do: the share kept is reported), and the most eventful windows
(distinct verbs, people-actions aside) are taken, at most ``max_windows_per_source`` per record.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xlebench.clock import fmt_hhmmss
from xlebench.config.knobs import knob
from xlebench.eval.scorers import EventRoles
from xlebench.tasks.common import evidence, sample, segment_of
from xlebench.tasks.context import Built, Context
from xlebench.tasks.filters import RecipeParams
from xlebench.tasks.items import to_day
from xlebench.tasks.registry import Recipe
from xlebench.tasks.srl import ROLES, Event, coreference, eventfulness, events_in


@dataclass
class EventParams(RecipeParams):
    window_s: float = knob(10.0, gt=0, le=600)
    event_s: float = knob(2.0, gt=0, le=60)
    stride_s: float = knob(5.0, gt=0, le=600)
    rank: str = knob("eventfulness", choices=("eventfulness",))
    min_narrated_events: int = knob(4, ge=0)
    max_windows_per_source: int = knob(3, ge=1)
    roles: list[str] = field(default_factory=lambda: list(ROLES))
    max_items_per_log: int | None = knob(6, ge=1)


FORMAT = ("Answer with one line per event: Event <k>: verbs: <up to 5 verbs, most likely "
          "first>; Arg0: <who>; Arg1: <what>; Arg2: <with what>; ALoc: <where>; AScn: <scene>.")


def windows(ctx: Context, p: EventParams, seg: dict, out: Built) -> list[tuple[float, list]]:
    """The record's kept windows: (start in source seconds, events), most eventful first."""
    passes = ctx.ann.narrations.get(seg["video_uid"]) or []
    if not passes:
        out.stats["segments without narrations"] += 1
        return []
    scene = ctx.videos[seg["video_uid"]].scene if seg["video_uid"] in ctx.videos else ""
    n = int(round(p.window_s / p.event_s))
    a0, b0 = float(seg.get("source_start_s", 0.0)), float(seg["source_end_s"])
    found = []
    t = a0
    while t + p.window_s <= b0:
        events = events_in(passes, t, p.event_s, n, scene)
        out.stats["candidate windows"] += 1
        if sum(e.narrated for e in events) >= p.min_narrated_events:
            out.stats["windows with enough narrated events"] += 1
            found.append((t, events))
        t += p.stride_s
    found.sort(key=lambda w: (-eventfulness(w[1]), w[0]))
    kept: list[tuple[float, list]] = []
    for start, events in found:
        if all(abs(start - s) >= p.window_s for s, _ in kept):
            kept.append((start, events))
        if len(kept) == p.max_windows_per_source:
            break
    return kept


def describe(events: list[Event], roles: list[str]) -> str:
    lines = []
    for k, ev in enumerate(events, start=1):
        parts = [f"verbs: {', '.join(ev.verbs)}"] + [f"{r}: {ev.roles[r]}" for r in roles
                                                     if r in ev.roles]
        lines.append(f"Event {k}: " + "; ".join(parts))
    return "\n".join(lines)


def build(ctx: Context, p: EventParams) -> Built:
    out = Built()
    found = [(seg, start, events) for seg in ctx.log["segments"]
             for start, events in windows(ctx, p, seg, out)]
    for k, (seg, start, events) in enumerate(sample(ctx.rng, found, p.max_items_per_log)):
        a, b = to_day(seg, start), to_day(seg, start + p.window_s)
        mid = len(events) // 2
        ref = (to_day(seg, events[mid].interval[0]), to_day(seg, events[mid].interval[1]))
        query = (f"Describe the {len(events)} {p.event_s:g}-second events of the record "
                 f"provided for the {fmt_hhmmss(a)} - {fmt_hhmmss(b)} period (event "
                 f"{mid + 1} is {fmt_hhmmss(ref[0])} - {fmt_hhmmss(ref[1])}): for each, the "
                 "verbs that describe it and who did what, with what, and where.")
        out.items.append(ctx.item(
            k=k, query=query, period=(a, b), text=describe(events, p.roles),
            answer={"events": [{"interval": [to_day(seg, e.interval[0]),
                                             to_day(seg, e.interval[1])],
                                "verbs_gt": e.verbs,
                                "roles": {r: v for r, v in e.roles.items() if r in p.roles}}
                               for e in events]},
            evidence=[evidence(seg, start, start + p.window_s)],
            provenance={"source_file": ctx.ann.narration_file, "window_s": p.window_s,
                        "coreference": coreference(events),
                        "narrated_events": sum(e.narrated for e in events)}))
    return out


def oracle(ctx: Context, p: EventParams, item: dict) -> str:
    """The window's five events re-read from both narration passes."""
    seg = segment_of(ctx.log, item)
    ev = item["evidence"][0]
    scene = ctx.videos[seg["video_uid"]].scene if seg["video_uid"] in ctx.videos else ""
    events = events_in(ctx.ann.narrations.get(seg["video_uid"]) or [], ev["source_start_s"],
                       p.event_s, len(item["answer"]["events"]), scene)
    return describe(events, p.roles)


RECIPE = Recipe(
    name="event_srl", task="event_understanding", schema=EventParams, build=build,
    scorer=EventRoles(), primary="verb_r5", answer_format=FORMAT,
    answer_source="Ego4D narrations (both passes)", needs=("narrations",), oracle=oracle,
    description="Verbs and semantic roles of five 2-second events (VidSitu).")
