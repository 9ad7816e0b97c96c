"""Acts C does in a record, read from its Ego4D narrations with their times: what Neptune's
and EgoSchema's offline generators ask about (one narration pass at a time: two passes of one
video describe the same events), the verb classes they read (states, changes), and an act said
as a phrase ("picks up the cup").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xlebench.library.annotations import Narration
from xlebench.library.language import gerund, third_person
from xlebench.tasks.language.actions import Narrated, parse_narration


@dataclass(frozen=True)
class Event(Narrated):
    """One ``#C C`` narration: what (`Narrated`) and when (video seconds)."""

    t: float = 0.0


#: Verbs of states, not acts: "how many times does C hold the cup" has no countable answer.
STATES = frozenset("hold look watch see stand sit wait keep stare lie wear have".split())
#: Verbs that change their object's state (SC), and the verbs' heads only.
CHANGES = frozenset("""cut chop slice dice peel grate mash crack break fold unfold open close
fill empty wash rinse clean wipe dry iron paint sand drill cook fry boil bake mix stir knead
tie untie wrap unwrap tear squeeze melt pour plant water trim sew glue screw unscrew
sharpen""".split())


def pass_events(passes: Sequence[Sequence[Narration]], a: float, b: float
                ) -> list[list[Event]]:
    """The countable C actions in [a, b) of each narration pass that has any."""
    out = []
    for narr in passes:
        found = [Event(p.verb, p.dobj, p.pobj, t=n.t) for n in narr if a <= n.t < b
                 if (p := parse_narration(n.text)) and (p.dobj or " " in p.verb)]
        if found:
            out.append(sorted(found, key=lambda e: e.t))
    return out


def events(passes: Sequence[Sequence[Narration]], a: float, b: float) -> list[Event]:
    """The countable C actions in [a, b) of the pass with the most of them (two passes of one
    video describe the same events: never mixed)."""
    return max(pass_events(passes, a, b), key=len, default=[])


def record_events(ann: Any, seg: dict) -> list[Event]:
    """`events` of a log segment: the countable C acts of its video's richest narration pass
    inside the segment's source range."""
    a, b = float(seg.get("source_start_s", 0.0)), float(seg["source_end_s"])
    return events(ann.narrations.get(seg["video_uid"]) or [], a, b)


def phrase(action: str, form: str = "base") -> str:
    """``pick up cup`` -> ``pick up the cup`` / ``picks up the cup`` / ``picking up the cup``,
    from an action of `events` (verb with its particle, then the object)."""
    from xlebench.tasks.language.actions import PARTICLES

    words = action.split()
    verb = [words[0]] + [w for w in words[1:2] if w in PARTICLES or w in ("on", "at")]
    obj = words[len(verb):]
    head = {"base": verb[0], "3sg": third_person(verb[0]), "ing": gerund(verb[0])}[form]
    return " ".join([head, *verb[1:], *(["the", *obj] if obj else [])])
