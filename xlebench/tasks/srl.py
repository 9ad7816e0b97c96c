"""Events and semantic roles from narrations, VidSitu style (seed 002).

A 10-second window is cut into five 2-second events (event 3, 4-6 s, is the reference for
event relations). An event's verbs are those of every narration in its interval, from both
narration passes (Ego4D's two annotators stand in for VidSitu's several); its roles come from
the first narration by rule: Arg0 the actor (``C``, or ``man X`` of an ``#O`` line), Arg1 the
direct object, Arg2 the instrument after "with", ALoc the place after on/in/at..., AScn the
library's scene label when no place is named. Entities co-refer when their role strings are
identical (VidSitu's exact-match co-reference), recorded as a networkx graph of events.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xlebench.library.language import base_form
from xlebench.tasks.actions import (
    ON_PARTICLE,
    PARTICLES,
    PLACE_PREPOSITIONS,
    PREPOSITIONAL_OBJECT,
    PREPOSITIONS,
    head_noun,
)
from xlebench.tasks.source import Narration

ROLES = ("Arg0", "Arg1", "Arg2", "ALoc", "AScn")
#: People-action verbs VidSitu's eventfulness ranking ignores.
DULL = frozenset({"talk", "listen", "stand", "sit", "look", "walk"})
_LINE = re.compile(r"^#([co])\s+(.*)$", re.IGNORECASE)


@dataclass
class Event:
    interval: tuple[float, float]  # source seconds
    verbs: list[str] = field(default_factory=list)
    roles: dict[str, str] = field(default_factory=dict)
    narrated: bool = False
    #: The roles other narrations of the event give (the other annotator's pass, a second
    #: line): VidSitu scores a role against every annotator's value.
    other_roles: list[dict[str, str]] = field(default_factory=list)


def parse_roles(text: str, scene: str) -> tuple[str, dict[str, str]] | None:
    """(verb, roles) of one narration line, or None when it names no action."""
    if "#unsure" in text.lower():
        return None
    m = _LINE.match(text.strip())
    if not m:
        return None
    words = re.findall(r"[a-z]+", m.group(2).lower())
    if m.group(1).lower() == "c":
        actor, words = "C", words[1:] if words[:1] == ["c"] else words
    else:
        actor, words = " ".join(m.group(2).split()[:2]), words[2:]
    if not words:
        return None
    verb, rest = base_form(words[0]), words[1:]
    if rest and (rest[0] in PARTICLES or (rest[0] == "on" and verb in ON_PARTICLE)
                 or (verb, rest[0]) in PREPOSITIONAL_OBJECT):
        verb, rest = f"{verb} {rest[0]}", rest[1:]
    roles = {"Arg0": actor}
    dobj, k = (None, 0) if rest and rest[0] in PREPOSITIONS else head_noun(rest)
    if dobj:
        roles["Arg1"] = dobj
    while k < len(rest):
        prep, (noun, step) = rest[k], head_noun(rest[k + 1:])
        if prep == "with" and noun:
            roles.setdefault("Arg2", noun)
        elif prep in PLACE_PREPOSITIONS and noun:
            roles.setdefault("ALoc", noun)
        k += 1 + max(step, 1)
    if "ALoc" not in roles and scene:
        roles["AScn"] = scene
    return verb, roles


def events_in(passes: list[list[Narration]], start: float, event_s: float, n: int,
              scene: str) -> list[Event]:
    """The n events of a window starting at ``start`` (source seconds)."""
    out = []
    for k in range(n):
        a, b = start + k * event_s, start + (k + 1) * event_s
        ev = Event((a, b))
        for p in passes:
            for narr in p:
                if a <= narr.t < b:
                    ev.narrated = True
                    parsed = parse_roles(narr.text, scene)
                    if parsed:
                        if parsed[0] not in ev.verbs:
                            ev.verbs.append(parsed[0])
                        if not ev.roles:
                            ev.roles = parsed[1]
                        elif parsed[1] != ev.roles and parsed[1] not in ev.other_roles:
                            ev.other_roles.append(parsed[1])
        out.append(ev)
    return out


def eventfulness(events: list[Event]) -> int:
    """Distinct verbs of the window, people-actions aside (VidSitu's ranking, on text)."""
    return len({v for e in events for v in e.verbs if v.split()[0] not in DULL})


def coreference(events: list[Event]) -> list[dict]:
    """Entities named by the same role string in several events (exact match)."""
    import networkx as nx  # 0.1 s to import: only when events are linked, not at start-up

    graph = nx.Graph()
    for k, ev in enumerate(events):
        for role, value in ev.roles.items():
            if role != "AScn":
                graph.add_edge(("event", k), ("entity", value))
    return [{"entity": name, "events": sorted(k for _, k in graph.neighbors(node))}
            for node in sorted(graph.nodes) if node[0] == "entity"
            for _, name in [node] if graph.degree(node) > 1]
