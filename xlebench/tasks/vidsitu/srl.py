"""Events and semantic roles from narrations, VidSitu style (seed 002).

A 10-second window is cut into five 2-second events (event 3, 4-6 s, is the reference for
event relations). An event's verbs are those of its narrations, kept where
two narration passes agree when two narrate it (Ego4D's two annotators stand in for VidSitu's
several, who keep verbs 2 of N agree on); its roles come from its first annotator's first
narration by rule (the other annotators' give its references): Arg0 the actor (``C``, or ``man X`` of an ``#O`` line), Arg1 the
direct object, Arg2 the instrument after "with", ALoc the place after on/in/at..., AScn the
library's scene label when no place is named. Entities co-refer when their role strings are
identical (VidSitu's exact-match co-reference), recorded as a networkx graph of events.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field

from xlebench.library.annotations import Narration
from xlebench.library.senses import loses_actor, sense_roles, senses_in
from xlebench.tasks.language.actions import (
    ON_PARTICLE,
    PARTICLES,
    PEOPLE,
    PLACE_PREPOSITIONS,
    PREPOSITIONAL_OBJECT,
    PREPOSITIONS,
    head_noun,
    verb_and_rest,
)

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
    #: The roles the other annotators' passes give the event (the first narration of each
    #: other pass in it): VidSitu scores a role against every annotator's value. Never another
    #: narration of the same pass: that is another action, not another description of this.
    other_roles: list[dict[str, str]] = field(default_factory=list)
    #: Narration passes that describe the event (its annotators).
    annotators: int = 0
    #: Each annotator's verbs for the event, in pass order (the human estimate scores one
    #: annotator's against the others').
    verbs_by_pass: list[list[str]] = field(default_factory=list)
    #: Each annotator's roles for the event, in pass order (VidSitu's Lea-S is averaged over
    #: keys of one annotator each).
    roles_by_pass: list[dict[str, str]] = field(default_factory=list)
    #: The first annotator's verb's PropBank sense (``cut.01``), None where its lemma has
    #: no frame file; each annotator's roles are their own verb's sense's
    #: (`xlebench.library.senses`).
    sense: str | None = None
    #: Narrations read for the event (every pass's), and those whose actor has no role in
    #: their verb's sense (`xlebench.library.senses.loses_actor`; counted in stats).
    narrations: int = 0
    actors_lost: int = 0


def _prepositional(prep: str, noun: str | None) -> str | None:
    """The role of a prepositional phrase: "with"/"using" a thing is the instrument (Arg2),
    "with" someone the comitative (ACom: "walks with woman Y" names no instrument), "to"
    someone the recipient (Arg2: "gives the cup to man X"), a place preposition before a
    thing the location (ALoc; "near man X" is no place)."""
    if not noun:
        return None
    person = noun.split()[0] in PEOPLE or noun == "c"  # the wearer is someone too
    if prep in ("with", "using"):
        return "ACom" if person and prep == "with" else "Arg2"
    if person:
        return "Arg2" if prep in ("to", "towards", "toward") else None
    return "ALoc" if prep in PLACE_PREPOSITIONS else None


def parse_roles(text: str, scene: str) -> tuple[str, dict[str, str]] | None:
    """(verb, roles) of one narration line, or None when it names no action."""
    if "#unsure" in text.lower():
        return None
    m = _LINE.match(text.strip())
    if not m:
        return None
    words = re.findall(r"[a-z]+", m.group(2).lower())
    if m.group(1).lower() == "c":
        skip = 1 if words[:1] == ["c"] else 0
        actor = "C"
    else:
        skip = 2
        actor = " ".join(m.group(2).split()[:2])
    parsed = verb_and_rest(m.group(2), skip)
    if parsed is None:
        return None
    verb, rest = parsed
    if rest and (rest[0] in PARTICLES or (rest[0] == "on" and verb in ON_PARTICLE)
                 or (verb, rest[0]) in PREPOSITIONAL_OBJECT):
        verb, rest = f"{verb} {rest[0]}", rest[1:]
    roles = {"Arg0": actor}
    dobj, k = (None, 0) if rest and rest[0] in PREPOSITIONS else head_noun(rest)
    if dobj:
        roles["Arg1"] = dobj
    while k < len(rest):
        prep, (noun, step) = rest[k], head_noun(rest[k + 1:])
        role = _prepositional(prep, noun)
        if role:
            roles.setdefault(role, noun)
        k += 1 + max(step, 1)
    if "ALoc" not in roles and scene:
        roles["AScn"] = scene
    return verb, roles


class Timed:
    """A narration pass with its times, for the narrations of a span in list order: by
    bisection where the pass runs in time (Ego4D's do), else by a scan. A record is cut into
    windows one second apart, so scanning every pass for every event was quadratic."""

    def __init__(self, narrations: Sequence[Narration]) -> None:
        self.narrations = list(narrations)
        self.times = [n.t for n in self.narrations]
        self.ordered = all(a <= b for a, b in zip(self.times, self.times[1:], strict=False))

    def between(self, a: float, b: float) -> list[Narration]:
        if self.ordered:
            return self.narrations[bisect_left(self.times, a):bisect_left(self.times, b)]
        return [n for n in self.narrations if a <= n.t < b]


def events_in(passes: Sequence[Sequence[Narration] | Timed], start: float, event_s: float,
              n: int, scene: str) -> list[Event]:
    """The n events of a window starting at ``start`` (source seconds). An event's roles are
    its first annotator's (the first pass that narrates it), the other passes' roles are its
    references, and its verbs are those at least two annotators name where two or more
    narrate it (VidSitu keeps verbs of 2-of-N agreement), else its one annotator's."""
    timed = [p if isinstance(p, Timed) else Timed(p) for p in passes]
    out = []
    for k in range(n):
        a, b = start + k * event_s, start + (k + 1) * event_s
        ev = Event((a, b))
        spans = [p.between(a, b) for p in timed]
        said = [[(*parsed, narr.text) for narr in span
                 if (parsed := parse_roles(narr.text, scene))] for span in spans if span]
        senses = iter(senses_in([(verb, text) for s in said for verb, _, text in s]))
        said = [[(verb, roles, next(senses)) for verb, roles, _ in s] for s in said]
        ev.narrated = bool(said)
        ev.narrations = sum(map(len, said))
        ev.actors_lost = sum(loses_actor(sense, roles) for s in said for _, roles, sense in s)
        first = said[0][0][2] if said and said[0] else None
        said = [[(verb, sense_roles(sense, roles)) for verb, roles, sense in s]
                for s in said if s]
        ev.annotators = len(said)
        if said:
            ev.sense = first.id if first else None
            ev.roles = said[0][0][1]
            for other in said[1:]:
                if other[0][1] != ev.roles and other[0][1] not in ev.other_roles:
                    ev.other_roles.append(other[0][1])
            ev.verbs_by_pass = [list(dict.fromkeys(v for v, _ in s)) for s in said]
            ev.roles_by_pass = [s[0][1] for s in said]
            ev.verbs = agreed_verbs(ev.verbs_by_pass)
        out.append(ev)
    return out


def agreed_verbs(per_pass: list[list[str]]) -> list[str]:
    """Verbs named by at least two passes, in the order first named (one pass: its verbs)."""
    seen = list(dict.fromkeys(v for verbs in per_pass for v in verbs))
    if len(per_pass) < 2:
        return seen
    return [v for v in seen if sum(v in verbs for verbs in per_pass) >= 2]


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
