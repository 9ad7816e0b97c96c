"""VidSitu's windows, shared by its three recipes (`event_srl`, `event_roles`, `event_relation`):
the parameters, the candidate windows of a record with their five events, how an event is
described and re-read from the annotations, and the items of a window."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xlebench.clock import fmt_hhmmss
from xlebench.config.knobs import knob
from xlebench.tasks.recipe.context import Built, Context
from xlebench.tasks.recipe.items import to_day
from xlebench.tasks.recipe.records import evidence, sample, segment_of
from xlebench.tasks.screening.filters import RecipeParams
from xlebench.tasks.vidsitu.srl import (
    ROLES,
    Event,
    Timed,
    coreference,
    eventfulness,
    events_in,
)


@dataclass
class EventParams(RecipeParams):
    window_s: float = knob(10.0, gt=0, le=600)
    event_s: float = knob(2.0, gt=0, le=60)
    stride_s: float = knob(5.0, gt=0, le=600)
    rank: str = knob("eventfulness", choices=("eventfulness",))
    #: None: every event of a window names a verb (VidSitu never asks about an event no one
    #: labelled); a number keeps windows with that many narrated events, the rest unscorable
    min_narrated_events: int | None = knob(None, ge=0)
    max_windows_per_source: int = knob(3, ge=1)
    roles: list[str] = field(default_factory=lambda: list(ROLES))
    max_items_per_log: int | None = knob(6, ge=1)


def windows(ctx: Context, p: EventParams, seg: dict, out: Built) -> list[tuple[float, list]]:
    """The record's kept windows: (start in source seconds, events), most eventful first."""
    passes = [Timed(p) for p in ctx.ann.narrations.get(seg["video_uid"]) or []]
    if not passes:
        out.stats["segments without narrations"] += 1
        return []
    scene = ctx.videos[seg["video_uid"]].scene if seg["video_uid"] in ctx.videos else ""
    n = int(round(p.window_s / p.event_s))
    need = n if p.min_narrated_events is None else p.min_narrated_events
    a0, b0 = float(seg.get("source_start_s", 0.0)), float(seg["source_end_s"])
    found = []
    t = a0
    while t + p.window_s <= b0:
        events = events_in(passes, t, p.event_s, n, scene)
        out.stats["candidate windows"] += 1
        if sum(e.narrated for e in events) >= need:
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


def describe(events: list[Event], roles: list[str], verbs: bool = True) -> str:
    """``Event k: verbs: cut, hold; Arg0: C; Arg1: onion`` lines (``roles`` chosen, verbs or
    not): every annotator's verbs, the first pass's first, as the verb task's evaluator
    counts any annotator's verb right."""
    lines = []
    for k, ev in enumerate(events, start=1):
        named = list(dict.fromkeys(v for by in ev.verbs_by_pass or [ev.verbs] for v in by))
        parts = ([f"verbs: {', '.join(named)}"] if verbs else []) + [
            f"{r}: {ev.roles[r]}" for r in roles if r in ev.roles]
        lines.append(f"Event {k}: " + "; ".join(parts))
    return "\n".join(lines)


def event_times(events: list[Event], seg: dict) -> list[tuple[float, float]]:
    return [(to_day(seg, e.interval[0]), to_day(seg, e.interval[1])) for e in events]


def window_items(ctx: Context, p: EventParams, ask: Callable[[list[Event], dict], str],
                 text: Callable[[list[Event]], str]) -> Built:
    """One item per kept window (at most ``max_items_per_log``): ``ask(events, seg)`` is the
    question after the period, ``text(events)`` the reference."""
    out = Built()
    found = [(seg, start, events) for seg in ctx.log["segments"]
             for start, events in windows(ctx, p, seg, out)]
    for k, (seg, start, events) in enumerate(sample(ctx.rng, found, p.max_items_per_log)):
        narrated = [e for e in events if e.annotators]
        out.stats["events with a PropBank verb sense"] += sum(bool(e.sense) for e in narrated)
        out.stats["events whose verb has no PropBank sense (one role tuple kept)"] += sum(
            not e.sense for e in narrated)
        out.stats["narrations read for the kept events"] += sum(e.narrations for e in events)
        out.stats["narrations whose actor has no role in their verb's sense"] += sum(
            e.actors_lost for e in events)
        a, b = to_day(seg, start), to_day(seg, start + p.window_s)
        out.items.append(ctx.item(
            k=k, query=(f"In the record provided for the {fmt_hhmmss(a)} - {fmt_hhmmss(b)} "
                        f"period, {ask(events, seg)}"), period=(a, b), text=text(events),
            answer={"events": [_event(e, t, p.roles)
                               for e, t in zip(events, event_times(events, seg), strict=True)]},
            evidence=[evidence(seg, start, start + p.window_s)],
            provenance={"source_file": ctx.ann.narration_file, "window_s": p.window_s,
                        "coreference": coreference(events),
                        "narrated_events": sum(e.narrated for e in events),
                        "references": ("multi" if any(e.annotators > 1 for e in events)
                                       else "single (one narration pass)")}))
    return out


def _event(e: Event, interval: tuple[float, float], roles: list[str]) -> dict:
    """An event of the answer: its verbs, its roles, how many annotators (narration passes)
    describe it, and (where another annotator gives other values) ``references``: the other
    annotators' roles; an event of one annotator has none (single-reference)."""
    out = {"interval": list(interval), "verbs_gt": e.verbs, "annotators": e.annotators,
           "roles": {r: v for r, v in e.roles.items() if r in roles}}
    if e.sense:
        out["sense"] = e.sense
    others = [{r: v for r, v in alt.items() if r in roles} for alt in e.other_roles]
    if any(others):
        out["references"] = [o for o in others if o]
    if e.annotators > 1:
        out["verbs_by_annotator"] = e.verbs_by_pass
        out["roles_by_annotator"] = [{r: v for r, v in x.items() if r in roles}
                                     for x in e.roles_by_pass]
    return out


def reread(ctx: Context, p: EventParams, item: dict) -> list[Event]:
    """The item's five events re-read from both narration passes of its window."""
    seg = segment_of(ctx.log, item)
    scene = ctx.videos[seg["video_uid"]].scene if seg["video_uid"] in ctx.videos else ""
    return events_in(ctx.ann.narrations.get(seg["video_uid"]) or [],
                     item["evidence"][0]["source_start_s"], p.event_s,
                     len(item["answer"]["events"]), scene)
