"""MultiHop-EgoQA's category D over people (Table 6, "multiple locations / people"): who C
did a recurring action with or to — "Who did I talk with", "Who did I pass the plate to" —
each person grounded by the narrations that name them.

Ego4D narrations name other people by a role and a letter ("man X", "woman Y"), fixed within
one video only, so people are asked inside one record (``scope=clip``). The template generator
and the oracle (which re-reads the narrations) call the same functions.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence

from xlebench.library.language import join_and
from xlebench.tasks.language.actions import PEOPLE
from xlebench.tasks.multihop.hops import Occurrence

_PERSON = re.compile(rf"\b(with|to|at)\s+((?:{'|'.join(sorted(PEOPLE))})\s+[A-Za-z])\b",
                     re.IGNORECASE)


def person(o: Occurrence) -> tuple[str, str] | None:
    """(preposition, person) a narration names after its verb: "talks with man X" ->
    ("with", "man X"); None when it names no one."""
    m = _PERSON.search(o.text)
    if m is None:
        return None
    role, letter = m.group(2).split()
    return m.group(1).lower(), f"{role.lower()} {letter.upper()}"


def people(occs: Sequence[Occurrence]) -> tuple[str, str, list[tuple[str, list[int]]]] | None:
    """The verb's people: (preposition, object phrase, [(person, indices into occs)]) for the
    most common preposition, when two people or more are named; the object phrase is the one
    object every such narration shares, "something" when they differ, "" for none (or when
    the object is the person, as in "looks at man X")."""
    named = [(k, who) for k, o in enumerate(occs) if (who := person(o))]
    if not named:
        return None
    prep = Counter(p for _, (p, _) in named).most_common(1)[0][0]
    named = [(k, w) for k, (p, w) in named if p == prep]
    persons = sorted({w for _, w in named})
    if len(persons) < 2:
        return None
    objs = {occs[k].dobj for k, _ in named
            if occs[k].dobj and occs[k].dobj.split()[0] not in PEOPLE}
    obj = "" if not objs else f"the {objs.pop()}" if len(objs) == 1 else "something"
    return prep, obj, [(w, [k for k, x in named if x == w]) for w in persons]


def wording(verb: str, obj: str, prep: str, persons: Sequence[str],
            past: Callable[[str], str]) -> tuple[str, str]:
    """(question without its period, answer with one token per person)."""
    tail = "" if verb.endswith(f" {prep}") else f" {prep}"
    head = f"{verb} {obj}".strip()
    who = [f"<T{i + 1}>{w}</T{i + 1}>" for i, w in enumerate(persons)]
    return (f"Who did I {head}{tail}",
            f"You {past(verb)}{' ' + obj if obj else ''}{tail} {join_and(who)}.")
