"""The offline text-retrieval baseline's short answers (Neptune-style open questions), read
from the period's captions by word overlap. The question's form says what is asked (how
many, in what order, right after, where, with the object); nothing of the item's answer is
read."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from xlebench.library.language import third_person
from xlebench.systems.baselines.captions import Caption
from xlebench.tasks.language.actions import parse_narration
from xlebench.tasks.language.events import CHANGES

NO_INFO = "There is no information available in the provided records."
_SUFFIX = re.compile(r"\s+in the record provided for the .*$")
_GENERIC = frozenset({"time", "mani", "right", "after", "order", "follow", "where", "what"})


def as_narrated(act: str) -> str:
    """A question's act as a narration says it: "rinse the bucket" -> "rinses the bucket"
    (a stemmer takes "rinse" and "rinses" apart)."""
    head, _, rest = act.strip().partition(" ")
    return " ".join(w for w in (third_person(head), rest) if w)


def _question(item: dict) -> str:
    return _SUFFIX.sub("", item["query"]).rstrip(" ?")


def _best(pool: Sequence[Caption], text: str, words: Callable[[str], frozenset]) -> int | None:
    """Index of the caption sharing most content words with ``text`` (first on ties)."""
    q = words(text) - _GENERIC
    scores = [len(q & words(c.text)) for c in pool]
    if not q or not scores or max(scores) == 0:
        return None
    return scores.index(max(scores))


def answer_short(item: dict, captions: Sequence[Caption], words: Callable[[str], frozenset],
                 summary: Callable[[float, float], str]) -> str:
    lo, hi = item["period"]["start_s"], item["period"]["end_s"]
    pool = [c for c in captions if lo <= c.virtual_s <= hi and c.text.startswith("C ")]
    q = _question(item)
    if not pool:
        return NO_INFO
    if q.startswith("How many times does C "):
        act = words(as_narrated(q.removeprefix("How many times does C ")))
        return str(sum(1 for c in pool if act and act <= words(c.text)))
    if q.startswith("In what order does C do the following: "):
        listed = q.split(": ", 1)[1].split("; ")
        when = {x: _best(pool, as_narrated(x), words) for x in listed}
        ranked = sorted(listed, key=lambda x: (when[x] is None, when[x] or 0))
        return ", then ".join(ranked)
    if q.startswith("What does C do right after "):
        k = _best(pool, q.removeprefix("What does C do right after "), words)
        return pool[k + 1].text if k is not None and k + 1 < len(pool) else NO_INFO
    if q.startswith("Where does C "):
        k = _best(pool, as_narrated(q.removeprefix("Where does C ")), words)
        parsed = parse_narration("#C " + pool[k].text) if k is not None else None
        return f"the {parsed.pobj}" if parsed and parsed.pobj else NO_INFO
    first = _FIRST.match(q)
    if first or q.startswith("In order, what does C do with the "):
        obj = words(first.group(2) if first else q.removeprefix(
            "In order, what does C do with the "))
        said = [c.text for c in pool if obj and obj <= words(c.text)]
        runs = [t for k, t in enumerate(said) if not k or _verb(t) != _verb(said[k - 1])]
        if first:
            runs = runs[: {"two": 2, "three": 3, "four": 4, "five": 5}.get(first.group(1), 3)]
        return ", then ".join(runs) or NO_INFO
    if q.startswith("What does C do that changes the "):
        obj = words(q.removeprefix("What does C do that changes the "))
        said = [c.text for c in pool if obj and obj <= words(c.text)
                and _verb(c.text) in CHANGES]
        return said[0] if said else NO_INFO
    if q.startswith("Which does C do most often: "):
        listed = re.split(r", | or ", q.removeprefix("Which does C do most often: "))
        found = {x: sum(1 for c in pool if words(as_narrated(x)) <= words(c.text)) for x in listed}
        return max(listed, key=lambda x: found[x]) if any(found.values()) else NO_INFO
    if q.startswith("Why does C "):
        k = _best(pool, as_narrated(q.removeprefix("Why does C ")), words)
        parsed = parse_narration("#C " + pool[k].text) if k is not None else None
        obj = words(parsed.dobj) if parsed and parsed.dobj else frozenset()
        after = [c.text for c in pool[k + 1:] if obj and obj <= words(c.text)] if obj else []
        return f"to {after[0].removeprefix('C ')}" if after else NO_INFO
    return summary(lo, hi)


_FIRST = re.compile(r"In order, what are the first (\w+) things C does with the (.+)$")


def _verb(caption: str) -> str:
    """A caption's verb head ("C cuts the onion" -> "cut")."""
    parsed = parse_narration("#C " + caption)
    return parsed.verb.split()[0] if parsed and parsed.verb else ""
