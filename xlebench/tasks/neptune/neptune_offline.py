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
TO          an object             the verbs C applies to it, in order (``sequence``): all of them
                                  when they are 3-4 and none repeats, else the first three when
                                  those differ ("the first three things"); repeats in a row are
                                  one act
CT          an action             how many times C does it, within ``count_range`` (``count``);
                                  never a state (hold, look, ...), and only where the record's
                                  narration passes agree (`counts_agree`)
PR          a one-off action      the next different action within ``next_within_s`` (``phrase``)
ID          a one-off action      where C does it: the place its narration names (``phrase``)
SC          an object             the one state-changing act C applies to it (``phrase``: "C cuts
                                  the onion"); objects changed in two ways are not asked
SUM         the record            its library summary (``text``)
CMP         4 actions             the one C does most often, at least 2 times more than any
                                  other (``phrase``); every pass finds the same one most often
                                  (`winner_agreed`)
GR          a pick-up             what C picks it up for: the next act on the same object within
                                  ``next_within_s``, when it uses it ("to wash the cup") and
                                  every time C picks it up it is the same use
==========  ====================  ==================================================================
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xlebench.library.language import third_person
from xlebench.tasks.language.actions import parse_narration
from xlebench.tasks.language.events import (  # noqa: F401 - read by Neptune's recipes as N.*
    CHANGES,
    STATES,
    Event,
    events,
    pass_events,
    phrase,
    record_events,
)

OFFLINE_CAPABILITIES = ("TO", "CT", "PR", "ID", "SC", "SUM", "CMP", "GR")


@dataclass(frozen=True)
class Rules:
    order_items: int = 3
    min_gap_s: float = 10.0
    count_range: tuple[int, int] = (2, 8)
    next_within_s: float = 30.0




NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five"}
#: Verbs that move a thing without using it: what C picks something up *for* is none of them.
MOVES = frozenset("""pick take grab lift carry put place drop move remove get bring raise lower
hang throw pass hand collect""".split())
#: The acts GR asks the goal of.
PICKS = frozenset("pick take grab lift".split())
#: CMP: how many actions are compared, and the margin the most frequent one wins by.
COMPARED, MARGIN = 4, 2


def counts_agree(actions: Sequence[str], per_pass: Sequence[Sequence[Event]], need: int
                 ) -> str | None:
    """None when each of ``actions`` is counted alike by each of at least ``need`` narration
    passes; else why not (Neptune avoids counts that viewers may disagree on)."""
    if len(per_pass) < need:
        return f"counts on records with fewer than {need} narration passes"
    if any(len({len(_when(evs, a)) for evs in per_pass}) > 1 for a in actions):
        return "counts the narration passes disagree on"
    return None


def winner_agreed(actions: Sequence[str], per_pass: Sequence[Sequence[Event]], need: int
                  ) -> str | None:
    """None when at least ``need`` narration passes each find the same one of ``actions``
    done most often, by at least one more time than any other; else why not (CMP asks which
    is done most, so the passes must agree on that, not on every count)."""
    if len(per_pass) < need:
        return f"comparisons on records with fewer than {need} narration passes"
    tops = set()
    for evs in per_pass:
        counts = sorted(((len(_when(evs, a)), a) for a in actions), reverse=True)
        if counts[0][0] - counts[1][0] < 1:
            return "comparisons a narration pass finds no clear winner in"
        tops.add(counts[0][1])
    return None if len(tops) == 1 else "comparisons the narration passes disagree on"


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
    if "dobj" in subject:  # an object's handling, in order
        return _handling(subject, evs, r)
    listed = subject["listed"]
    times = [_when(evs, a) for a in listed]
    if any(len(t) != 1 for t in times) or len({a.split()[0] for a in listed}) < len(listed):
        return None  # an act done twice, or two acts of one verb: no single order to say
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


def handled(dobj: str, evs: Sequence[Event]) -> list[Event]:
    """The acts C applies to ``dobj`` in order, a run of the same act counted once."""
    out: list[Event] = []
    for e in evs:
        if e.dobj == dobj and (not out or out[-1].verb != e.verb):
            out.append(e)
    return out


def _handling(subject: dict, evs: Sequence[Event], r: Rules) -> dict | None:
    acts = handled(subject["dobj"], evs)
    first = subject.get("first")
    if first:
        acts = acts[:first]
    heads = [e.verb.split()[0] for e in acts]
    if len(set(heads)) != len(heads) or not 3 <= len(heads) <= (first or 4):
        return None  # "in order" would have no single answer, or is not asked
    said = [" ".join([f"C {third_person(e.verb.split()[0])} it", *e.verb.split()[1:]])
            for e in acts]
    return {"text": ", then ".join(said), "shape": "sequence", "candidates": heads,
            "order": list(range(len(heads))), "at": [e.t for e in acts]}


def _change(subject: dict, evs: Sequence[Event], r: Rules) -> dict | None:
    acts = [e for e in evs if e.dobj == subject["dobj"] and e.verb.split()[0] in CHANGES]
    if len({e.verb for e in acts}) != 1:
        return None
    return {"text": f"C {phrase(acts[0].action, '3sg')}", "shape": "phrase",
            "at": [e.t for e in acts][:5]}


def object_verbs(ann: Any) -> dict[str, set[str]]:
    """Per object (direct object's head noun), the changing verbs C applies to it in any
    narration of the annotations (computed once per annotation index)."""
    memo = ann.derived.get("object_verbs")
    if memo is None:
        memo = {}
        for passes in ann.narrations.values():
            for narr in passes:
                for n in narr:
                    p = parse_narration(n.text)
                    if p and p.dobj and p.verb.split()[0] in CHANGES:
                        memo.setdefault(p.dobj, set()).add(p.verb)
        ann.derived["object_verbs"] = memo
    return memo


def attested(ann: Any) -> frozenset[tuple[str, str]]:
    """Every (verb, direct object) pair C's narrations contain anywhere in the annotations
    (computed once per annotation index): a decoy pairing a verb with an object no narration
    pairs them with ("C pours the drawer") is ruled out without the video."""
    memo = ann.derived.get("attested_pairs")
    if memo is None:
        memo = frozenset((p.verb, p.dobj) for passes in ann.narrations.values()
                         for narr in passes for n in narr
                         if (p := parse_narration(n.text)) and p.dobj)
        ann.derived["attested_pairs"] = memo
    return memo


def other_uses(dobj: str, evs: Sequence[Event], pairs: frozenset[tuple[str, str]] | None = None
               ) -> list[str]:
    """``to wash the cup``-like uses C never makes of ``dobj`` in ``evs`` (GR's decoys): the
    uses of the record's other acts, or, with ``pairs`` (`attested`), every use some narration
    makes of such an object (a use no narration makes of it, "to fry the cup", is ruled out
    unseen; one object keeps one use per video, so the record alone offers few)."""
    if pairs is None:
        verbs = _other_verbs(dobj, evs, _uses)
    else:
        done = {e.verb for e in evs if e.dobj == dobj}
        verbs = sorted({v for v, o in pairs if o == dobj and _uses(v.split()[0])} - done)
    return [f"to {phrase(f'{v} {dobj}')}" for v in verbs]


def _uses(head: str) -> bool:
    return head not in MOVES and head not in STATES


def _other_acts(dobj: str, evs: Sequence[Event], keep: Callable[[str], bool]) -> list[str]:
    return [f"{v} {dobj}" for v in _other_verbs(dobj, evs, keep)]


def _other_verbs(dobj: str, evs: Sequence[Event], keep: Callable[[str], bool]) -> list[str]:
    done = {e.verb for e in evs if e.dobj == dobj}
    return sorted({e.verb for e in evs if e.dobj and keep(e.verb.split()[0])} - done)


def _most(subject: dict, evs: Sequence[Event], r: Rules) -> dict | None:
    listed = subject["listed"]
    counts = [len(_when(evs, a)) for a in listed]
    ranked = sorted(counts)
    if ranked[-1] - ranked[-2] < MARGIN:
        return None
    k = counts.index(ranked[-1])
    return {"text": f"C {phrase(listed[k], '3sg')}", "shape": "phrase",
            "at": sorted(t for a in listed for t in _when(evs, a))}


def _goal(subject: dict, evs: Sequence[Event], r: Rules) -> dict | None:
    """Every time C does the pick-up, the next act on the same object within
    ``next_within_s`` is the same use: that use is what C picks it up for (one pick-up
    followed by a move, or by two different uses, has no single answer)."""
    at = [e for e in evs if e.action == subject["action"]]
    if not at or not at[0].dobj:
        return None
    uses, times = set(), []
    for a in at:
        nxt = next((e for e in evs if e.t > a.t and e.dobj == a.dobj), None)
        if nxt is None or nxt.t - a.t > r.next_within_s or not _uses(nxt.verb.split()[0]):
            return None
        uses.add(nxt.action)
        times += [a.t, nxt.t]
    if len(uses) != 1:
        return None
    return {"text": f"to {phrase(uses.pop())}", "shape": "phrase", "at": times[:6]}


def _summary(subject: dict, evs: Sequence[Event], r: Rules) -> dict | None:
    text = subject.get("summary", "")
    return {"text": text, "shape": "text", "at": []} if text.strip() else None


SOLVERS = {"TO": _order, "CT": _count, "PR": _next, "ID": _place, "SC": _change,
           "SUM": _summary, "CMP": _most, "GR": _goal}


# -- subjects and questions --------------------------------------------------------------------

def question(cap: str, subject: dict) -> str:
    """The question of a capability about its subject (the period is added by the recipe)."""
    if cap == "TO" and subject.get("first"):
        return (f"In order, what are the first {NUMBERS[subject['first']]} things C does "
                f"with the {subject['dobj']}")
    if cap == "TO" and "dobj" in subject:
        return f"In order, what does C do with the {subject['dobj']}"
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
        return f"What does C do that changes the {subject['dobj']}"
    if cap == "CMP":
        listed = [phrase(a) for a in subject["listed"]]
        return (f"Which does C do most often: {', '.join(listed[:-1])} or {listed[-1]}")
    if cap == "GR":
        return f"Why does C {phrase(subject['action'])}"
    return "Summarize in one sentence what C does"


def subjects(cap: str, evs: Sequence[Event], r: Rules, rng: random.Random,
             summary: str) -> list[dict]:
    """Candidate subjects of one capability in one record (each is checked by its solver)."""
    once = _once(evs)
    if cap == "TO":
        spaced: list[Event] = []
        for e in once:  # apart in time, and each its own verb: an answer never says one twice
            if (not spaced or e.t - spaced[-1].t >= r.min_gap_s) and \
                    e.verb.split()[0] not in {x.verb.split()[0] for x in spaced}:
                spaced.append(e)
        listed = ([{"listed": [e.action for e in rng.sample(spaced, r.order_items)]}]
                  if len(spaced) >= r.order_items else [])  # the shown order
        return listed + [_handling_subject(d, evs) for d in sorted({e.dobj for e in evs
                                                                     if e.dobj})]
    if cap == "CT":
        return [{"action": a} for a in sorted(Counter(e.action for e in evs))
                if a.split()[0] not in STATES]
    if cap == "PR":
        return [{"action": e.action} for e in once]
    if cap == "ID":
        return [{"verb": e.verb, "dobj": e.dobj} for e in once if e.dobj and e.pobj]
    if cap == "SC":
        return [{"dobj": d} for d in sorted({e.dobj for e in evs if e.dobj})]
    if cap == "CMP":
        return _compared(evs, rng)
    if cap == "GR":
        return [{"action": a} for a in sorted({e.action for e in evs
                                               if e.verb.split()[0] in PICKS and e.dobj})]
    return [{"summary": summary}]


def _compared(evs: Sequence[Event], rng: random.Random) -> list[dict]:
    """The record's most frequent act with ``COMPARED - 1`` others it beats by ``MARGIN``,
    listed in a random order (none when no act is that clear a winner)."""
    counts = Counter(e.action for e in evs if e.action.split()[0] not in STATES)
    if not counts:
        return []
    top, n = max(sorted(counts.items()), key=lambda kv: kv[1])
    others = sorted(a for a, c in counts.items() if c <= n - MARGIN)
    if len(others) < COMPARED - 1:
        return []
    listed = [top, *rng.sample(others, COMPARED - 1)]
    rng.shuffle(listed)
    return [{"listed": listed}]


def _handling_subject(dobj: str, evs: Sequence[Event]) -> dict:
    """All of an object's acts when they are few and none repeats, else its first three."""
    heads = [e.verb.split()[0] for e in handled(dobj, evs)]
    whole = len(set(heads)) == len(heads) and 3 <= len(heads) <= 4
    return {"dobj": dobj} if whole else {"dobj": dobj, "first": 3}
