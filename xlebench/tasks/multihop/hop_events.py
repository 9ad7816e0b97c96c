"""MultiHop-EgoQA's event categories, mined from the narrations in order (Table 6):

* **E — event composition**: what C did right after each time C did a recurring action; the
  answers differ from one time to the next (several actions and objects), each grounded.
* **F — event comparison**: whether a recurring action or a one-off action came first; the
  answer says which (or that the one-off fell between two of the recurring ones) and grounds
  both.

Both work on ``ordered``: (segment, occurrence) pairs in narration order, so the template
generator and the oracle (which re-reads the narrations) call the same functions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from xlebench.tasks.multihop.hops import Occurrence

Tagged = tuple[dict, Occurrence]


def action(o: Occurrence) -> str | None:
    return f"{o.verb} {o.dobj}" if o.dobj else None


def phrase(o: Occurrence) -> str:
    """``pick up the cup``: the base form, object with its article."""
    return f"{o.verb} the {o.dobj}" if o.dobj else o.verb


def _same(a: dict | None, b: dict | None) -> bool:
    return a is b or (a is not None and b is not None and a.get("index") == b.get("index"))


def after_each(ordered: Sequence[Tagged], node: str) -> list[Tagged] | None:
    """The occurrence right after each occurrence of action ``node`` (the next narrated act
    of the same record that is not ``node``, with an object or without: "walks" is an act);
    None when one has no successor, when two times share one successor (A, A, B: "each
    time" would ground twice to B), or when every successor is the same act (no composition
    to ask about)."""
    out: list[Tagged] = []
    for k, (seg, o) in enumerate(ordered):
        if action(o) != node:
            continue
        nxt = next(((s, x) for s, x in ordered[k + 1:] if action(x) != node), None)
        if nxt is None or not _same(nxt[0], seg):
            return None
        if any(x is nxt[1] for _, x in out):
            return None
        out.append(nxt)
    if len(out) < 2 or len({phrase(x) for _, x in out}) < 2:
        return None
    return out


def one_off(ordered: Sequence[Tagged], node: str) -> Tagged | None:
    """F's other action: one that happens exactly once, shares neither verb nor object with
    ``node``, nearest in time to ``node``'s first occurrence (ties: alphabetical)."""
    counts = Counter(action(o) for _, o in ordered if action(o))
    first = next((o for _, o in ordered if action(o) == node), None)
    if first is None:
        return None
    seg = next(s for s, o in ordered if o is first)
    verb_node = first.verb.split()[0]
    pool = [(abs(o.start - first.start), action(o) or "", (s, o)) for s, o in ordered
            if action(o) and counts[action(o)] == 1 and o.verb.split()[0] != verb_node
            and o.dobj != first.dobj and _same(s, seg)]
    return min(pool, key=lambda x: (x[0], x[1]))[2] if pool else None


def relation(ordered: Sequence[Tagged], node: str, other: str) -> str | None:
    """``node_first``, ``other_first`` or ``between``; None when either is missing."""
    a = [o.start for _, o in ordered if action(o) == node]
    b = [o.start for _, o in ordered if action(o) == other]
    if not a or len(b) != 1:
        return None
    if max(a) < b[0]:
        return "node_first"
    if b[0] < min(a):
        return "other_first"
    return "between"


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def composition_answer(parts: Sequence[str], past: callable) -> str:
    """``The first time you <T1>washed the knife</T1>, the second time <T2>...</T2>.``"""
    said = [f"the {ORDINALS[i]} time you <T{i + 1}>{past(p)}</T{i + 1}>"
            for i, p in enumerate(parts)]
    text = ", ".join(said)
    return text[:1].upper() + text[1:] + "."


def comparison_answer(node_phrase: str, other_phrase: str, how: str, past: callable) -> str:
    a, b = f"<T1>{past(node_phrase)}</T1>", f"<T2>{past(other_phrase)}</T2>"
    if how == "node_first":
        return f"You {a} first, then {b}."
    if how == "other_first":
        return f"You {b} first, then {a}."
    return f"You {a} both before and after you {b}."
