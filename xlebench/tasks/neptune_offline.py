"""Neptune-style short-answer questions written without a model, from one record's narrations
(the "dense captions with timestamps" of Neptune's generator).

Each capability has a *subject* chosen from the record (the items to order, the action to
count, the object whose handling is asked about) and a *solver* that reads the answer off the
narrations given the subject. The generator picks subjects that make the answer unambiguous
(an action that happens once, a count within a range); the full-information oracle calls the
same solver on the annotations read afresh, so it checks the compiled answers against their
source rather than copying them.

==========  ====================  ==================================================================
capability  subject               answer (shape)
==========  ====================  ==================================================================
TO          3-5 one-off actions   their order (``order``; the question lists them shuffled)
CT          an action             how many times C does it, within ``count_range`` (``count``)
PR          a one-off action      the next different action within ``next_within_s`` (``phrase``)
ID          a one-off action      where C does it: the place its narration names (``phrase``)
SC          an object             the verbs C applies to it, in order, 3 or more (``sequence``)
SUM         the record            its library summary (``text``)
==========  ====================  ==================================================================
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from xlebench.library.language import gerund, third_person
from xlebench.tasks.actions import Narrated, parse_narration
from xlebench.tasks.source import Narration

OFFLINE_CAPABILITIES = ("TO", "CT", "PR", "ID", "SC", "SUM")


@dataclass(frozen=True)
class Event(Narrated):
    """One ``#C C`` narration: what (`Narrated`) and when (video seconds)."""

    t: float = 0.0


@dataclass(frozen=True)
class Rules:
    order_items: int = 3
    min_gap_s: float = 10.0
    count_range: tuple[int, int] = (2, 8)
    next_within_s: float = 30.0


def events(passes: Sequence[Sequence[Narration]], a: float, b: float) -> list[Event]:
    """The countable C actions in [a, b) of the pass with the most of them (two passes of one
    video describe the same events: never mixed)."""
    best: list[Event] = []
    for narr in passes:
        found = [Event(p.verb, p.dobj, p.pobj, t=n.t) for n in narr if a <= n.t < b
                 if (p := parse_narration(n.text)) and (p.dobj or " " in p.verb)]
        if len(found) > len(best):
            best = found
    return sorted(best, key=lambda e: e.t)


def phrase(action: str, form: str = "base") -> str:
    """``pick up cup`` -> ``pick up the cup`` / ``picks up the cup`` / ``picking up the cup``,
    from an action of `events` (verb with its particle, then the object)."""
    from xlebench.tasks.actions import PARTICLES

    words = action.split()
    verb = [words[0]] + [w for w in words[1:2] if w in PARTICLES or w in ("on", "at")]
    obj = words[len(verb):]
    head = {"base": verb[0], "3sg": third_person(verb[0]), "ing": gerund(verb[0])}[form]
    return " ".join([head, *verb[1:], *(["the", *obj] if obj else [])])


def _once(evs: Sequence[Event]) -> list[Event]:
    counts = Counter(e.action for e in evs)
    return [e for e in evs if counts[e.action] == 1]


def _when(evs: Sequence[Event], action: str) -> list[float]:
    return [e.t for e in evs if e.action == action]


# -- solvers: (subject, events) -> answer ------------------------------------------------------

def solve(cap: str, subject: dict, evs: Sequence[Event], r: Rules) -> dict | None:
    """The answer of a capability's question about ``subject``, read off ``evs``; None when
    the narrations do not determine one (the generator then skips the subject)."""
    return SOLVERS[cap](subject, evs, r)


def _order(subject: dict, evs: Sequence[Event], r: Rules) -> dict | None:
    listed = subject["listed"]
    times = [_when(evs, a) for a in listed]
    if any(len(t) != 1 for t in times):
        return None
    order = sorted(range(len(listed)), key=lambda k: times[k][0])
    return {"text": ", then ".join(phrase(listed[k]) for k in order), "shape": "order",
            "candidates": [phrase(a) for a in listed], "order": order,
            "at": [times[k][0] for k in order]}


def _count(subject: dict, evs: Sequence[Event], r: Rules) -> dict | None:
    at = _when(evs, subject["action"])
    lo, hi = r.count_range
    if not lo <= len(at) <= hi:
        return None
    return {"text": str(len(at)), "shape": "count", "value": len(at), "at": at}


def _next(subject: dict, evs: Sequence[Event], r: Rules) -> dict | None:
    at = _when(evs, subject["action"])
    if len(at) != 1:
        return None
    after = [e for e in evs if e.t > at[0] and e.action != subject["action"]]
    if not after or after[0].t - at[0] > r.next_within_s:
        return None
    return {"text": f"C {phrase(after[0].action, '3sg')}", "shape": "phrase",
            "at": [at[0], after[0].t]}


def _place(subject: dict, evs: Sequence[Event], r: Rules) -> dict | None:
    found = [e for e in evs if e.verb == subject["verb"] and e.dobj == subject["dobj"]]
    if len(found) != 1 or not found[0].pobj:
        return None
    return {"text": f"the {found[0].pobj}", "shape": "phrase", "at": [found[0].t]}


def _handling(subject: dict, evs: Sequence[Event], r: Rules) -> dict | None:
    verbs: list[str] = []
    said: list[str] = []
    at: list[float] = []
    for e in evs:
        head, *particle = e.verb.split()
        if e.dobj == subject["dobj"] and head not in verbs:
            verbs.append(head)
            said.append(" ".join([f"C {third_person(head)} it", *particle]))
            at.append(e.t)
    if len(verbs) < 3:
        return None
    verbs, said, at = verbs[:4], said[:4], at[:4]
    return {"text": ", then ".join(said),
            "shape": "sequence", "candidates": verbs, "order": list(range(len(verbs))),
            "at": at}


def _summary(subject: dict, evs: Sequence[Event], r: Rules) -> dict | None:
    text = subject.get("summary", "")
    return {"text": text, "shape": "text", "at": []} if text.strip() else None


SOLVERS = {"TO": _order, "CT": _count, "PR": _next, "ID": _place, "SC": _handling,
           "SUM": _summary}


# -- subjects and questions --------------------------------------------------------------------

def question(cap: str, subject: dict) -> str:
    """The question of a capability about its subject (the period is added by the recipe)."""
    if cap == "TO":
        return ("In what order does C do the following: "
                + "; ".join(phrase(a) for a in subject["listed"]))
    if cap == "CT":
        return f"How many times does C {phrase(subject['action'])}"
    if cap == "PR":
        return f"What does C do right after {phrase(subject['action'], 'ing')}"
    if cap == "ID":
        return f"Where does C {phrase(subject['verb'] + ' ' + subject['dobj'])}"
    if cap == "SC":
        return f"In order, what does C do with the {subject['dobj']}"
    return "Summarize in one sentence what C does"


def subjects(cap: str, evs: Sequence[Event], r: Rules, rng: random.Random,
             summary: str) -> list[dict]:
    """Candidate subjects of one capability in one record (each is checked by its solver)."""
    once = _once(evs)
    if cap == "TO":
        spaced: list[Event] = []
        for e in once:
            if not spaced or e.t - spaced[-1].t >= r.min_gap_s:
                spaced.append(e)
        if len(spaced) < r.order_items:
            return []
        listed = [e.action for e in rng.sample(spaced, r.order_items)]  # the shown order
        return [{"listed": listed}]
    if cap == "CT":
        return [{"action": a} for a in sorted(Counter(e.action for e in evs))]
    if cap == "PR":
        return [{"action": e.action} for e in once]
    if cap == "ID":
        return [{"verb": e.verb, "dobj": e.dobj} for e in once if e.dobj and e.pobj]
    if cap == "SC":
        return [{"dobj": d} for d in sorted({e.dobj for e in evs if e.dobj})]
    return [{"summary": summary}]
